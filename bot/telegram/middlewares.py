"""Update middlewares: in-flight tracking for clean shutdown, per-chat ordering, and what
every handler is given by parameter name (`chat`, `lang`; `manager` on the leads router)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject, User

from bot.telegram.common import chat_key, lang_of

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class InFlight(BaseMiddleware):
    """Counts updates being handled, so shutdown can wait for them.

    aiogram's polling runs each update as a task and does not await those tasks when it stops;
    the webhook handler does the same in background mode. Without this, stopping would close the
    HTTP session under a handler that is about to send its answer.
    """

    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def count(self) -> int:
        return self._count

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        # Also used by the error handler, which runs outside this middleware.
        self._count += 1
        self._idle.clear()
        try:
            yield
        finally:
            self._count -= 1
            if not self._count:
                self._idle.set()

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        with self.hold():
            return await handler(event, data)

    async def wait_idle(self, grace_s: float) -> bool:
        """True when nothing is in flight any more, False when `grace_s` ran out first."""
        # Let just-created update tasks reach this middleware before we look at the count.
        await asyncio.sleep(0)
        try:
            async with asyncio.timeout(grace_s):
                while self._count:
                    await self._idle.wait()
                    # An error handler may have taken over between set() and our wake-up.
                    await asyncio.sleep(0)
        except TimeoutError:
            return False
        return True


class ChatOrder(BaseMiddleware):
    """Handle one chat's updates one at a time, in arrival order.

    Polling starts a task per update; without this a question sent right after a statement
    could be answered before the statement is stored. asyncio.Lock wakes waiters FIFO and the
    tasks reach the lock in creation order. Different chats still run concurrently.
    """

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._waiting: dict[int, int] = {}

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        chat = data.get("event_chat")  # set by aiogram's UserContextMiddleware
        if chat is None:
            return await handler(event, data)
        key = chat.id
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock:
                return await handler(event, data)
        finally:
            # Drop idle locks so a bot in many chats does not grow this dict forever.
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key]
                del self._locks[key]


class Speaker(BaseMiddleware):
    """Gives handlers `chat`, the core's key for the update's chat (forum topics share their
    group's), and `lang`, the language of whoever sent it (English when unknown).

    An outer middleware on updates, after aiogram's UserContextMiddleware, which found the
    update's chat and user (`event_chat`, `event_from_user`)."""

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        chat = data.get("event_chat")
        if chat is not None:
            data["chat"] = chat_key(chat.id)
        user: User | None = data.get("event_from_user")
        data["lang"] = lang_of(user)
        return await handler(event, data)
