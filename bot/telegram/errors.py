"""The one error handler: core errors become friendly replies, anything else an apology.

Users never see a traceback. The log gets the chat id and the cause's type; message bodies and
the token stay out of it (exception texts can quote user input, so they are logged at DEBUG).
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramForbiddenError
from aiogram.types import CallbackQuery, ErrorEvent, Message

from bot.telegram.common import is_addressed, is_group, lang_of, send_long
from bot.telegram.middlewares import InFlight
from bot.texts import t
from core.errors import CoreError, InvalidInput, NotFound

log = logging.getLogger(__name__)

CALLBACK_TEXT_LIMIT = 200  # answerCallbackQuery's text limit


def friendly(exc: BaseException, lang: str) -> str:
    """The reply for an error: specific for the core's expected errors, else an apology."""
    if isinstance(exc, NotFound):
        return t("telegram.not_found", lang, detail=str(exc))
    if isinstance(exc, InvalidInput):
        return t("telegram.invalid_input", lang, detail=str(exc))
    return t("telegram.apology", lang)


async def on_error(event: ErrorEvent, bot: Bot, inflight: InFlight) -> bool:
    # Runs outside the update middlewares: hold the in-flight count so shutdown waits for us.
    with inflight.hold():
        exc = event.exception
        message, query = event.update.message, event.update.callback_query
        chat_id = _chat_id(message, query)
        if isinstance(exc, CoreError):
            log.info("telegram: %s in chat %s", type(exc).__name__, chat_id)
        else:
            log.error(
                "telegram: update %s failed in chat %s: %s",
                event.update.update_id,
                chat_id,
                type(exc).__name__,
                exc_info=exc,
            )
        log.debug("telegram: cause in chat %s: %s", chat_id, exc)
        if isinstance(exc, TelegramForbiddenError):
            return True  # blocked or kicked: there is nobody to apologise to
        user = message.from_user if message else (query.from_user if query else None)
        text = friendly(exc, lang_of(user))
        try:
            if query is not None:
                await query.answer(text[:CALLBACK_TEXT_LIMIT], show_alert=True)
            elif message is not None and await _should_reply(message, bot):
                await send_long(message, text)
        except Exception as send_exc:
            log.warning(
                "telegram: could not tell chat %s about the error: %s",
                chat_id,
                type(send_exc).__name__,
            )
        return True


def _chat_id(message: Message | None, query: CallbackQuery | None) -> int | None:
    if message is not None:
        return message.chat.id
    if query is not None and query.message is not None:
        return query.message.chat.id
    return None


async def _should_reply(message: Message, bot: Bot) -> bool:
    # A group message nobody addressed to the bot was only being remembered: stay quiet.
    if not is_group(message) or (message.text or "").startswith("/"):
        return True
    try:
        return await is_addressed(message, bot)
    except Exception:
        return False
