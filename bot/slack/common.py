"""Small helpers shared by the Slack listeners: chat keys, text conversion, progress, wiring."""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.slack.blocks import Block, paginate

log = logging.getLogger("bot.slack")

T = TypeVar("T")

_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL_MENTION = re.compile(r"<#[CG][A-Z0-9]+\|([^>]*)>")
_LINK = re.compile(r"<(?:mailto:)?([^>|]+)(?:\|([^>]*))?>")

RESPONSE_URL_MESSAGES = 4  # Slack takes five per response_url; one may be the progress note


def chat_key(context: AsyncBoltContext) -> str:
    """The core chat for a request: one per workspace channel or DM; threads share the channel.

    The team id is part of the key so the same channel id in another workspace stays apart.
    """
    team = context.team_id or context.enterprise_id
    channel = context.channel_id
    if not team or not channel:
        raise ValueError("Slack request without a team or channel id")
    return f"slack:{team}:{channel}"


def plain_text(text: str, *, bot_user_id: str | None = None) -> str:
    """Slack message markup to the plain text the core reads.

    Mentions of the bot itself are dropped (they address the bot, they are not content); other
    mentions keep the user id, channel links keep their name, links keep their label or URL.
    """
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    text = _USER_MENTION.sub(r"@\1", text)
    text = _CHANNEL_MENTION.sub(r"#\1", text)
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    return " ".join(html.unescape(text).split())


def mentions(text: str, user_id: str | None) -> bool:
    """Whether Slack message markup `text` mentions `user_id` (unknown: assume it does)."""
    if not user_id:
        return True
    return re.search(rf"<@{re.escape(user_id)}(?:\|[^>]*)?>", text) is not None


def message_time(ts: str | None) -> datetime | None:
    """A Slack message ts ("1700000000.000100") as an aware UTC datetime."""
    try:
        return datetime.fromtimestamp(float(ts), tz=UTC) if ts else None
    except ValueError:
        return None


async def with_progress(
    work: Awaitable[T], *, after: float, notify: Callable[[], Awaitable[object]]
) -> T:
    """Await `work`; if it takes longer than `after` seconds, call `notify` once meanwhile.

    Fast answers then arrive without a "working on it" flicker, slow ones show progress.
    """
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=after)
        if not done:
            try:
                await notify()
            except Exception:  # a lost progress note must not lose the answer
                log.warning("could not show progress", exc_info=True)
        return await task
    finally:
        if not task.done():  # we were cancelled: do not leave the work running unowned
            task.cancel()


async def respond_in_pages(
    respond: AsyncRespond, text: str, blocks: list[Block] | None, **options: Any
) -> None:
    """Answer through a response_url, in as many messages as Slack's limits need."""
    if blocks is None:
        await respond(text=text, **options)
        return
    for page_text, page in paginate(text, blocks, max_messages=RESPONSE_URL_MESSAGES):
        await respond(text=page_text, blocks=page, **options)
