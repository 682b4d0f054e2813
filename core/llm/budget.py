"""A per-chat budget of LLM calls per minute: a token bucket per key; excess calls wait in line.

Which chat a call belongs to travels in a context variable, not in the Llm Protocol's signatures
and not in an attribute of the shared adapter (an attribute would race: two chats' tasks would
overwrite each other's key). The core wraps its LLM calls for a chat in `budget_scope(chat)`;
asyncio tasks copy the context when created, so tasks spawned inside the scope inherit the key.
Calls made outside any scope share the "" bucket.

A flood is queued, never dropped: callers wait (FIFO per key) until a token is available.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

_KEY: ContextVar[str] = ContextVar("graphmem_llm_budget_key", default="")


def current_budget_key() -> str:
    return _KEY.get()


@contextmanager
def budget_scope(key: str) -> Iterator[None]:
    """LLM calls made inside (in this task and tasks it starts) count against `key`'s budget."""
    token = _KEY.set(key)
    try:
        yield
    finally:
        _KEY.reset(token)


@dataclass
class _Bucket:
    tokens: float
    stamp: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # FIFO: waiters keep their order


class CallBudget:
    """Token buckets, one per key: `calls_per_minute` tokens, refilled continuously.

    The bucket holds at most `calls_per_minute` tokens, so an idle chat may burst that many
    calls, and the long-run rate is `calls_per_minute`. A value <= 0 disables the limit.
    """

    MAX_KEYS = 4096  # idle, full buckets beyond this are forgotten (a fresh bucket is full too)

    def __init__(
        self,
        calls_per_minute: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.capacity = float(max(calls_per_minute, 0))
        self._rate = self.capacity / 60.0  # tokens per second
        self._clock = clock
        self._sleep = sleep
        self._buckets: dict[str, _Bucket] = {}

    def _refill(self, bucket: _Bucket) -> None:
        now = self._clock()
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.stamp) * self._rate)
        bucket.stamp = now

    def _bucket(self, key: str) -> _Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.MAX_KEYS:
                self._forget_idle()
            bucket = self._buckets[key] = _Bucket(self.capacity, self._clock())
        return bucket

    def _forget_idle(self) -> None:
        for key, bucket in list(self._buckets.items()):
            self._refill(bucket)
            if bucket.tokens >= self.capacity and not bucket.lock.locked():
                del self._buckets[key]

    async def acquire(self, key: str | None = None) -> float:
        """Take one call from `key`'s budget (default: the current scope), waiting if needed.

        Returns the seconds waited. Cancelling a waiting caller consumes nothing.
        """
        if self._rate <= 0:
            return 0.0
        key = current_budget_key() if key is None else key
        bucket = self._bucket(key)
        waited = 0.0
        async with bucket.lock:
            while True:
                self._refill(bucket)
                if bucket.tokens >= 1.0:
                    bucket.tokens -= 1.0
                    return waited
                delay = (1.0 - bucket.tokens) / self._rate
                if waited == 0.0:
                    log.info("LLM budget of %r exhausted: call queued for %.1fs", key, delay)
                await self._sleep(delay)
                waited += delay
