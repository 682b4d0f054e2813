"""Command handlers. Each turns one command into one core call and one reply.

Handlers receive `core`, `limiter` and `confirmations` by parameter name from the Dispatcher's
workflow data (see runner.build_dispatcher), and `chat` and `lang` from the Speaker middleware.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from aiogram import Bot, Router
from aiogram.enums import ChatAction
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import BufferedInputFile, Message

from bot import render
from bot.telegram.common import (
    author_of,
    is_admin,
    is_group,
    rate_limited,
    send_long,
    typing,
)
from bot.telegram.formatting import escape
from bot.telegram.keyboards import Confirmations, forget_keyboard, review_keyboard
from bot.telegram.ratelimit import QuestionLimiter
from bot.telegram.texts import help_text
from bot.texts import t
from bot.triples import stated
from core.errors import NotFound

if TYPE_CHECKING:
    from core.contract import CoreApi

REVIEW_BATCH = 10  # pending facts shown per /review, each with its own buttons


async def cmd_start(message: Message, lang: str) -> None:
    await send_long(message, f"{t('telegram.start', lang)}\n\n{help_text(lang)}")


async def cmd_help(message: Message, lang: str) -> None:
    await send_long(message, help_text(lang))


async def cmd_ask(
    message: Message,
    command: CommandObject,
    core: CoreApi,
    chat: str,
    lang: str,
    limiter: QuestionLimiter,
) -> None:
    question = (command.args or "").strip()
    if not question:
        await send_long(message, t("telegram.ask_usage", lang))
        return
    if await rate_limited(message, limiter):
        return
    async with typing(message):
        answer = await core.ask(chat, question, author=author_of(message))
    await send_long(message, render.render_answer(answer))


async def cmd_remember(
    message: Message, command: CommandObject, core: CoreApi, chat: str, lang: str
) -> None:
    storing = stated(
        core,
        chat,
        (command.args or "").strip(),
        author=author_of(message),
        message_id=str(message.message_id),
        ts=message.date,
    )
    if storing is None:
        await send_long(message, t("telegram.remember_usage", lang))
        return
    async with typing(message):
        result = await storing
    await send_long(message, render.render_ingest(result, lang))


async def cmd_why(
    message: Message, command: CommandObject, core: CoreApi, chat: str, lang: str
) -> None:
    trace_id = (command.args or "").strip() or None
    trace = await core.why(chat, trace_id)
    if trace is None:
        await send_long(message, t("telegram.no_trace", lang))
        return
    await send_long(message, render.render_trace(trace))


async def cmd_worlds(message: Message, core: CoreApi, chat: str, lang: str) -> None:
    worlds = await core.worlds(chat)
    if not worlds:
        await send_long(message, t("telegram.no_worlds", lang))
        return
    await send_long(message, render.render_worlds(worlds, lang))


async def cmd_facts(
    message: Message, command: CommandObject, core: CoreApi, chat: str, lang: str
) -> None:
    entity = (command.args or "").strip() or None
    try:
        facts = await core.facts(chat, entity)
    except NotFound:  # an entity this chat never mentioned: say so in our own words
        facts = []
    if not facts:
        text = (
            t("telegram.no_facts_about", lang, name=entity)
            if entity
            else t("telegram.no_facts", lang)
        )
        await send_long(message, text)
        return
    await send_long(message, render.render_facts(facts, lang))


async def cmd_forget(
    message: Message,
    command: CommandObject,
    bot: Bot,
    core: CoreApi,
    chat: str,
    lang: str,
    confirmations: Confirmations,
) -> None:
    target = (command.args or "").strip()
    if not target or message.from_user is None:
        await send_long(message, t("telegram.forget_usage", lang))
        return
    everything = target.lower() == "all"
    # in a group, erasing is for its admins: a name takes every message that names it, so any
    # member, a client among them, could empty a company's answers with "/forget price"
    if is_group(message) and not await _may_forget(message, bot):
        await send_long(message, t("telegram.admins_only", lang))
        return
    question = t("telegram.forget_confirm_all", lang)
    if not everything:  # what it would take, or that nothing here names it
        try:
            would = await core.forget_preview(chat, target)
        except NotFound:
            await send_long(message, t("telegram.no_facts_about", lang, name=target))
            return
        question = t(
            "telegram.forget_confirm_entity",
            lang,
            name=target,
            count=would.facts,
            messages=would.messages,
        )
    token = confirmations.add(
        chat_id=message.chat.id,
        user_id=message.from_user.id,
        entity=None if everything else target,
    )
    await message.reply(escape(question), reply_markup=forget_keyboard(token, lang))


async def _may_forget(message: Message, bot: Bot) -> bool:
    if message.sender_chat is not None and message.sender_chat.id == message.chat.id:
        return True  # an anonymous admin posts as the group itself
    assert message.from_user is not None
    return await is_admin(bot, message.chat.id, message.from_user.id)


async def cmd_review(message: Message, core: CoreApi, chat: str, lang: str) -> None:
    pending = await core.pending(chat)
    if not pending:
        await send_long(message, t("telegram.nothing_pending", lang))
        return
    for item in pending[:REVIEW_BATCH]:
        # One message per fact, so a button press edits exactly that fact's message.
        await message.answer(
            escape(render.render_pending(item)), reply_markup=review_keyboard(item.id, lang)
        )
    if len(pending) > REVIEW_BATCH:
        await send_long(
            message, t("telegram.more_pending", lang, count=len(pending) - REVIEW_BATCH)
        )


async def cmd_export(message: Message, core: CoreApi, chat: str, lang: str) -> None:
    async with typing(message, ChatAction.UPLOAD_DOCUMENT):
        dump = await core.export(chat)
        # default=str: datetimes and ids the core may leave as objects still serialise.
        data = json.dumps(dump, ensure_ascii=False, indent=2, default=str).encode("utf-8")
        document = BufferedInputFile(data, filename=f"graph-{message.chat.id}.json")
        await message.answer_document(document, caption=escape(t("telegram.export_caption", lang)))


def make_router() -> Router:
    """A fresh router per Dispatcher (an aiogram router can be attached only once)."""
    router = Router(name="commands")
    router.message.register(cmd_start, CommandStart())
    router.message.register(cmd_help, Command("help"))
    router.message.register(cmd_ask, Command("ask"))
    router.message.register(cmd_remember, Command("remember"))
    router.message.register(cmd_why, Command("why"))
    router.message.register(cmd_worlds, Command("worlds"))
    router.message.register(cmd_facts, Command("facts"))
    router.message.register(cmd_forget, Command("forget"))
    router.message.register(cmd_review, Command("review"))
    router.message.register(cmd_export, Command("export"))
    return router
