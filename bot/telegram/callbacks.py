"""Inline button presses: /forget confirmation and /review approve/reject."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, Message

from bot.telegram.common import GROUP_TYPES, is_admin
from bot.telegram.formatting import escape
from bot.telegram.keyboards import Confirmations, ForgetCb, ReviewCb
from bot.texts import t
from core.errors import NotFound

if TYPE_CHECKING:
    from core.contract import CoreApi


async def on_forget(
    query: CallbackQuery,
    callback_data: ForgetCb,
    bot: Bot,
    core: CoreApi,
    chat: str,
    lang: str,
    confirmations: Confirmations,
) -> None:
    message = query.message
    if not isinstance(message, Message):  # too old: Telegram no longer shows its content
        await query.answer(t("telegram.expired", lang))
        return
    request = confirmations.get(callback_data.token, chat_id=message.chat.id)
    if request is None:
        await query.answer(t("telegram.expired", lang))
        await message.edit_reply_markup(reply_markup=None)
        return
    if query.from_user.id != request.user_id:
        # Buttons are visible to the whole group; only the asker decides.
        await query.answer(t("telegram.not_yours", lang), show_alert=True)
        return
    confirmations.discard(callback_data.token)
    if not callback_data.ok:
        await message.edit_text(escape(t("telegram.forget_cancelled", lang)))
        await query.answer()
        return
    # Rights may have changed since the question was asked.
    if message.chat.type in GROUP_TYPES and not await is_admin(
        bot, message.chat.id, query.from_user.id
    ):
        await query.answer(t("telegram.admins_only", lang), show_alert=True)
        return
    if request.entity is None:
        await core.forget_chat(chat)
        done = t("telegram.forget_done_all", lang)
    else:
        gone = await core.forget_entity(chat, request.entity)
        done = t(
            "telegram.forget_done_entity",
            lang,
            name=request.entity,
            count=gone.facts,
            messages=gone.messages,
        )
    await message.edit_text(escape(done))
    await query.answer()


async def on_review(
    query: CallbackQuery, callback_data: ReviewCb, core: CoreApi, chat: str, lang: str
) -> None:
    message = query.message
    if not isinstance(message, Message):
        await query.answer(t("telegram.expired", lang))
        return
    try:
        await core.review(chat, callback_data.pending_id, callback_data.ok)
    except NotFound:
        # Someone else pressed first, or the item was dropped: just retire the buttons.
        await message.edit_reply_markup(reply_markup=None)
        await query.answer(t("telegram.already_reviewed", lang))
        return
    verdict = "approved" if callback_data.ok else "rejected"
    status = t(f"telegram.{verdict}", lang, name=query.from_user.full_name)
    # Keep the fact's text and say who decided; no reply_markup removes the buttons.
    await message.edit_text(escape(f"{message.text or ''}\n\n{status}".strip()))
    await query.answer()


def make_router() -> Router:
    """A fresh router per Dispatcher (an aiogram router can be attached only once)."""
    router = Router(name="callbacks")
    router.callback_query.register(on_forget, ForgetCb.filter())
    router.callback_query.register(on_review, ReviewCb.filter())
    return router
