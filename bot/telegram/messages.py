"""Free text and unknown commands. Registered last: the command routers get the first look."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiogram import Bot, F, Router
from aiogram.types import Message

from bot.conversation import client_for, hear, is_overheard
from bot.telegram.common import (
    author_of,
    is_addressed,
    is_group,
    rate_limited,
    replied,
    send_long,
    typing,
    without_mention,
)
from bot.telegram.handoff import client_of
from bot.telegram.ratelimit import QuestionLimiter
from bot.telegram.texts import help_text
from core.language import is_question
from core.models import ClientInfo, IncomingMessage

if TYPE_CHECKING:
    from core.contract import CoreApi


async def unknown_command(message: Message, bot: Bot, lang: str) -> None:
    """Unknown commands get help, not silence; commands for other bots in a group are ignored."""
    head = (message.text or "").split(maxsplit=1)[0]
    _, _, mention = head.partition("@")
    me = await bot.me()
    if mention and mention.lower() != (me.username or "").lower():
        return
    await send_long(message, help_text(lang))


async def on_text(
    message: Message, bot: Bot, core: CoreApi, chat: str, lang: str, limiter: QuestionLimiter
) -> None:
    text = message.text or message.caption or ""  # a photo's or document's caption is text too
    shared = is_group(message)
    overheard = is_overheard(shared=shared, addressed=shared and await is_addressed(message, bot))
    author = author_of(message)

    async def describe() -> ClientInfo:  # issue 8: who the client is, for a hand-off card
        return client_of(message, author)

    parent = replied(message)  # what a team member answers ("who approves that?")
    said = IncomingMessage(
        author=author,
        text=text,
        message_id=str(message.message_id),
        ts=message.date,
        reply_to=str(parent.message_id) if parent is not None else None,
    )
    if overheard:
        client = await client_for(core, describe)
        await hear(core, chat, said.model_copy(update={"client": client}), overheard=True)
        return
    if shared:
        text = await without_mention(text, bot)
        if not text:
            await send_long(message, help_text(lang))
            return
    if is_question(text) and await rate_limited(message, limiter):
        return
    client = await client_for(core, describe)
    async with typing(message):
        said = said.model_copy(update={"text": text, "client": client})
        reply = await hear(core, chat, said, overheard=False)
    if reply is not None and reply.text.strip():
        await send_long(message, reply.text)


async def on_edit(message: Message, core: CoreApi, chat: str) -> None:
    """An edited message is a correction (issue 12): its new text replaces the old one and
    what only the old text said is superseded. Said nothing about: an edit gets no reply."""
    text = message.text or message.caption or ""
    if text.startswith("/") or is_question(text):
        return  # commands and questions were never memory
    await core.correct(
        chat,
        message_id=str(message.message_id),
        author=author_of(message),
        text=text,
        ts=message.date,
    )


def make_router() -> Router:
    """A fresh router per Dispatcher (an aiogram router can be attached only once)."""
    router = Router(name="messages")
    router.message.register(unknown_command, F.text.startswith("/"))
    router.message.register(on_text, F.text | F.caption)
    router.edited_message.register(on_edit, F.text | F.caption)
    return router
