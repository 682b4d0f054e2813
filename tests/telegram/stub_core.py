"""A scriptable stand-in for core.service.Core, for front-end behaviour the real core cannot
easily produce (a 10,000-character answer, a crash, a slow answer)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from core.models import Reply


class StubCore:
    def __init__(
        self, *, reply_text: str = "ok", fail: Exception | None = None, delay: float = 0.0
    ) -> None:
        self.reply_text = reply_text
        self.fail = fail
        self.delay = delay
        self.calls: list[tuple[str, str, str]] = []  # (method, chat, text)
        self.started = asyncio.Event()

    async def handle_message(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str | None = None,
        ts: datetime | None = None,
    ) -> Reply:
        self.calls.append(("handle_message", chat, text))
        self.started.set()
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        return Reply(kind="answer", text=self.reply_text)

    async def remember(self, chat: str, **kwargs: Any) -> Any:
        self.calls.append(("remember", chat, kwargs.get("text", "")))
        raise AssertionError("the stub core does not remember")

    async def observe(self, chat: str, **kwargs: Any) -> Any:
        self.calls.append(("observe", chat, kwargs.get("text", "")))
        raise AssertionError("the stub core does not observe")
