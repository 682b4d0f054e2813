"""Telegram updates in the durable inbound log (issue 12): recorded before Telegram is told they
arrived, marked done once handled, taken up again after a crash, never answered twice.

Polling: aiogram confirms a batch's offset when it asks for the next batch, which it does as
soon as the batch's handler tasks exist, not when they finish. So the batch is recorded by a
session middleware as getUpdates returns it, before aiogram can ask for the next one.
Webhook: the update is recorded before the handler answers 200.
Handling: an outer middleware skips an update already done (Telegram re-delivers what it had
not seen confirmed) and marks an update done once its handler finished, with or without an
error (the error handler has apologised; doing it again at every start would loop).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from aiogram import BaseMiddleware, Bot, Dispatcher
from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.methods import GetUpdates, Response, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import TelegramObject, Update
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web

from bot.telegram.middlewares import Handler
from core.inbound import InboundLog

log = logging.getLogger(__name__)

SOURCE = "telegram"


def _body(update: Update) -> str:
    return update.model_dump_json(by_alias=True, exclude_none=True)


class RecordUpdates(BaseRequestMiddleware):
    """Session middleware: every batch getUpdates returns is durably recorded before it is
    handed to aiogram."""

    def __init__(self, inbound: InboundLog) -> None:
        self.inbound = inbound

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        response = await make_request(bot, method)
        # aiogram 3.31 hands the middleware chain the parsed result (the list of updates),
        # not the Response envelope its annotations name
        updates = response.result if isinstance(response, Response) else response
        if isinstance(method, GetUpdates) and isinstance(updates, list):
            items = [(str(u.update_id), _body(u)) for u in updates if isinstance(u, Update)]
            await asyncio.to_thread(self.inbound.record_deliveries, SOURCE, items)
        return response


class Journal(BaseMiddleware):
    """Outer update middleware, registered before the others."""

    def __init__(self, inbound: InboundLog) -> None:
        self.inbound = inbound
        self._active: set[str] = set()  # being handled in this process

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        key = str(event.update_id)
        if key in self._active:
            return None  # re-delivered while its first delivery is still being handled
        seen = await asyncio.to_thread(self.inbound.delivery, SOURCE, key)
        if seen is not None and seen.done:
            log.info("telegram: update %s was handled before; not handled again", key)
            return None
        if seen is None:  # fed without going through getUpdates or the webhook
            await asyncio.to_thread(self.inbound.record_deliveries, SOURCE, [(key, _body(event))])
        self._active.add(key)
        try:
            result = await handler(event, data)
        except Exception:
            await asyncio.to_thread(self.inbound.finish_delivery, SOURCE, key)
            raise
        finally:
            self._active.discard(key)
        await asyncio.to_thread(self.inbound.finish_delivery, SOURCE, key)
        return result


async def take_up_unfinished(bot: Bot, dp: Dispatcher, inbound: InboundLog) -> int:
    """Handle, in the order received, the updates a crash left unfinished; before polling or
    the webhook starts, so a chat's old messages come before its new ones."""
    pending = await asyncio.to_thread(inbound.unfinished_deliveries, SOURCE)
    for delivery in pending:
        try:
            await dp.feed_raw_update(bot, json.loads(delivery.body))
        except Exception:  # the error handler has answered; go on with the next one
            log.warning("telegram: unfinished update %s failed again", delivery.id, exc_info=True)
    if pending:
        log.info("telegram: took up %d updates left unfinished", len(pending))
    return len(pending)


class RecordingRequestHandler(SimpleRequestHandler):
    """The webhook handler, recording each update before Telegram gets its 200."""

    def __init__(self, *args: Any, inbound: InboundLog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inbound = inbound

    async def _handle_request_background(self, bot: Bot, request: web.Request) -> web.Response:
        update = await request.json(loads=bot.session.json_loads)  # aiohttp caches the body
        if isinstance(update, dict) and "update_id" in update:
            item = (str(update["update_id"]), json.dumps(update, ensure_ascii=False))
            await asyncio.to_thread(self.inbound.record_deliveries, SOURCE, [item])
        return await super()._handle_request_background(bot, request)
