"""Free text and unknown commands. Registered last: the command routers get the first look."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiogram import Bot, F, Router
from aiogram.types import Message

from bot.telegram.common import (
    author_of,
    chat_key,
    is_addressed,
    is_group,
    lang_of,
    rate_limited,
    send_long,
    typing,
    without_mention,
)
from bot.telegram.handoff import client_of
from bot.telegram.ratelimit import QuestionLimiter
from bot.telegram.texts import help_text
from core.language import is_question

if TYPE_CHECKING:
    from core.contract import CoreApi


async def unknown_command(message: Message, bot: Bot) -> None:
    """Unknown commands get help, not silence; commands for other bots in a group are ignored."""
    head = (message.text or "").split(maxsplit=1)[0]
    _, _, mention = head.partition("@")
    me = await bot.me()
    if mention and mention.lower() != (me.username or "").lower():
        return
    await send_long(message, help_text(lang_of(message.from_user)))


async def on_text(message: Message, bot: Bot, core: CoreApi, limiter: QuestionLimiter) -> None:
    text = message.text or ""
    chat = chat_key(message.chat.id)
    if is_group(message) and not await is_addressed(message, bot):
        # Groups: everything said is memory (and buying interest still reaches the managers),
        # but the bot speaks only when spoken to.
        author = author_of(message)
        client = {"client": client_of(message, author)} if core.handoff is not None else {}
        await core.observe(
            chat,
            author=author,
            text=text,
            message_id=str(message.message_id),
            ts=message.date,
            **client,
        )
        return
    if is_group(message):
        text = await without_mention(text, bot)
        if not text:
            await send_long(message, help_text(lang_of(message.from_user)))
            return
    if is_question(text) and await rate_limited(message, limiter):
        return
    author = author_of(message)
    # issue 8: who the client is, for a hand-off card (only a core with hand-off takes it)
    extra = {"client": client_of(message, author)} if core.handoff is not None else {}
    async with typing(message):
        reply = await core.handle_message(
            chat,
            author=author,
            text=text,
            message_id=str(message.message_id),
            ts=message.date,
            **extra,
        )
    if reply.text.strip():
        await send_long(message, reply.text)


def make_router() -> Router:
    """A fresh router per Dispatcher (an aiogram router can be attached only once)."""
    router = Router(name="messages")
    router.message.register(unknown_command, F.text.startswith("/"))
    router.message.register(on_text, F.text)
    return router
