"""Slack messages in the durable inbound log (issue 12), as bot/telegram/journal.py does for
Telegram: an event that carries a message (message, app_mention) is recorded before Bolt
acknowledges it (HTTP 200 or the Socket Mode ack), marked done once its listener finished,
taken up again at start when a crash came in between, and never handled twice.

Recording happens in the global middleware (app.py), which Bolt runs before the listener's
automatic ack; marking done at the end of the listener (messages.py), which Bolt runs after the
ack. Slash commands and buttons are not recorded: they answer through a response_url that
expires, and the user sees at once whether they worked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from core.inbound import InboundLog

log = logging.getLogger("bot.slack")

SOURCE = "slack"
RECORDED_EVENTS = frozenset({"message", "app_mention"})


def recorded_id(body: dict[str, Any]) -> str | None:
    """The event id of a delivery that carries a message, else None."""
    event = body.get("event")
    event_id = body.get("event_id")
    if body.get("type") != "event_callback" or not isinstance(event, dict):
        return None
    if event.get("type") not in RECORDED_EVENTS or not isinstance(event_id, str) or not event_id:
        return None
    return event_id


async def record(inbound: InboundLog, body: dict[str, Any]) -> bool:
    """Record a message-carrying delivery before it is acknowledged; False when it was
    already handled (a retry or a replay after a restart), so it must be dropped."""
    event_id = recorded_id(body)
    if event_id is None:
        return True
    seen = await asyncio.to_thread(inbound.delivery, SOURCE, event_id)
    if seen is not None and seen.done:
        return False
    if seen is None:
        item = (event_id, json.dumps(body, ensure_ascii=False))
        await asyncio.to_thread(inbound.record_deliveries, SOURCE, [item])
    return True


@contextlib.asynccontextmanager
async def handling(inbound: InboundLog | None, body: dict[str, Any]) -> AsyncIterator[None]:
    """Marks the delivery done when the listener ends, with or without an error (the error
    handler has apologised; doing it again at every start would loop), but not when it is
    cancelled by a shutdown: then it is taken up at the next start."""
    try:
        yield
    except Exception:
        await finish(inbound, body)
        raise
    await finish(inbound, body)


async def finish(inbound: InboundLog | None, body: dict[str, Any]) -> None:
    event_id = recorded_id(body)
    if inbound is not None and event_id is not None:
        await asyncio.to_thread(inbound.finish_delivery, SOURCE, event_id)


async def take_up_unfinished(app: AsyncApp, inbound: InboundLog) -> int:
    """Dispatch, in the order received, the deliveries a crash left unfinished. They were
    verified when they arrived; dispatched as Socket Mode requests, Bolt does not check a
    signature again (their timestamps are stale by now)."""
    pending = await asyncio.to_thread(inbound.unfinished_deliveries, SOURCE)
    for delivery in pending:
        try:
            await app.async_dispatch(AsyncBoltRequest(body=delivery.body, mode="socket_mode"))
        except Exception:
            log.warning("slack: unfinished delivery failed again", exc_info=True)
    if pending:
        log.info("slack: took up %d deliveries left unfinished", len(pending))
    return len(pending)
