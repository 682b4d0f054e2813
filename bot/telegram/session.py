"""An aiohttp session that honours Telegram's flood control.

aiogram raises TelegramRetryAfter on 429 and never resends, so a reply hit by flood control
would be lost. Every Bot API call goes through make_request, so retrying here covers replies,
edits, documents and callback answers alike.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.exceptions import TelegramRetryAfter
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType

log = logging.getLogger(__name__)


class RetryAfterSession(AiohttpSession):
    """Wait `retry_after` seconds and resend, at most `max_retries` times.

    A wait longer than `max_wait` is not worth blocking a handler for: the error propagates and
    the error handler apologises instead.
    """

    def __init__(self, *, max_retries: int = 3, max_wait: float = 60.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_retries = max_retries
        self.max_wait = max_wait

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - aiogram's signature, passed through
    ) -> TelegramType:
        attempt = 0
        while True:
            try:
                return await super().make_request(bot, method, timeout)
            except TelegramRetryAfter as exc:
                attempt += 1
                if attempt > self.max_retries or exc.retry_after > self.max_wait:
                    raise
                # Method name and wait only: the request body is user text.
                log.warning(
                    "telegram flood control on %s: retry %d/%d in %s s",
                    method.__api_method__,
                    attempt,
                    self.max_retries,
                    exc.retry_after,
                )
                await asyncio.sleep(exc.retry_after)
