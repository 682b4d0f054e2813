"""Per-user question budget, so one user cannot keep the bot busy for a whole group."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable


class QuestionLimiter:
    """Sliding one-minute window of question timestamps per user id."""

    WINDOW_S = 60.0

    def __init__(self, per_minute: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._seen: dict[int, deque[float]] = {}

    def check(self, user_id: int) -> int:
        """Record a question; 0 when allowed, else whole seconds until the next one is allowed."""
        if self.per_minute <= 0:  # 0 or less disables the limit
            return 0
        now = self._clock()
        stamps = self._seen.setdefault(user_id, deque())
        while stamps and now - stamps[0] >= self.WINDOW_S:
            stamps.popleft()
        if len(stamps) >= self.per_minute:
            return max(1, math.ceil(self.WINDOW_S - (now - stamps[0])))
        stamps.append(now)
        self._prune(now)
        return 0

    def _prune(self, now: float) -> None:
        # Forget users whose window is empty; cheap because it runs only past a size threshold.
        if len(self._seen) < 1024:
            return
        for user_id in [u for u, s in self._seen.items() if not s or now - s[-1] >= self.WINDOW_S]:
            del self._seen[user_id]
