"""Test doubles of the core's ports, each declaring the Protocol it stands in for: `make lint`
type-checks this module (mypy strict), so a port that changes fails there, not in a test at
run time. (The front-ends' stand-in for the core is tests/telegram/stub_core.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.ports import Clock

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class ManualClock(Clock):
    """A clock that moves only when a test moves it."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = start or START

    def now(self) -> datetime:
        return self.t

    def advance(self, **delta: float) -> datetime:
        self.t += timedelta(**delta)
        return self.t
