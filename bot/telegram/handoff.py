"""Hand-off cards in Telegram (issue 8): the Notifier, the Take and Close buttons, /leads and
/close.

Managers are the Telegram user ids in HANDOFF_TELEGRAM_MANAGER_IDS; each gets the card in their
private chat with the bot (they must have pressed Start once, or Telegram refuses the message:
the service then keeps retrying, see core/handoff.py). Only those ids may press the buttons or
run /leads and /close, which answer only in a private chat, so a group never sees the list.
An open card has Take and Close, a taken one Close, a closed one no buttons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiogram import BaseMiddleware, Bot, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    TelegramObject,
    User,
)

from bot.leads import close_reply, manager_language, render_card, render_leads, take_reply
from bot.telegram.common import lang_of, send_long
from bot.telegram.formatting import escape
from bot.telegram.middlewares import Handler
from bot.texts import t
from core.contract import CoreApi, Leads
from core.handoff import ClientInfo, HandOff

CARD_LIMIT = 4000  # below Telegram's 4096, room for escaping differences


class TakeCb(CallbackData, prefix="ho"):
    id: str


class CloseCb(CallbackData, prefix="hc"):
    id: str


def client_of(message: Message, author: str) -> ClientInfo:
    """Who wrote `message`, for the card: name, @username and a link that opens the chat."""
    user = message.from_user
    if user is None:
        return ClientInfo(name=author, platform="telegram")
    link = f"https://t.me/{user.username}" if user.username else f"tg://user?id={user.id}"
    return ClientInfo(
        name=author, platform="telegram", user_id=str(user.id), username=user.username, link=link
    )


def card_text(h: HandOff, lang: str = "en") -> str:
    text = render_card(h, lang)
    if len(text) > CARD_LIMIT:
        text = text[: CARD_LIMIT - 1] + "…"
    return escape(text)


def card_keyboard(h: HandOff, lang: str = "en") -> InlineKeyboardMarkup | None:
    if h.status == "closed":
        return None  # editing without a keyboard removes the buttons
    close = InlineKeyboardButton(text=t("lead.close", lang), callback_data=CloseCb(id=h.id).pack())
    if h.status == "taken":
        return InlineKeyboardMarkup(inline_keyboard=[[close]])
    take = InlineKeyboardButton(text=t("lead.take", lang), callback_data=TakeCb(id=h.id).pack())
    return InlineKeyboardMarkup(inline_keyboard=[[take, close]])


class TelegramNotifier:
    """Cards in each manager's private chat with the bot."""

    name = "telegram"

    def __init__(
        self,
        bot: Bot,
        manager_ids: Sequence[int],
        *,
        languages: Mapping[str, str] | None = None,
        default_language: str = "en",
    ) -> None:
        self.bot = bot
        self.manager_ids = list(dict.fromkeys(manager_ids))
        self.languages = dict(languages or {})  # "telegram:501" -> the card language
        self.default_language = default_language

    def language(self, target: str) -> str:
        return manager_language(f"telegram:{target}", self.languages, self.default_language)

    def targets(self) -> Sequence[str]:
        return [str(i) for i in self.manager_ids]

    async def send(self, target: str, handoff: HandOff) -> str:
        lang = self.language(target)
        sent = await self.bot.send_message(
            chat_id=int(target),
            text=card_text(handoff, lang),
            reply_markup=card_keyboard(handoff, lang),
        )
        return str(sent.message_id)

    async def update(self, target: str, ref: str, handoff: HandOff) -> None:
        try:
            await self.bot.edit_message_text(
                chat_id=int(target),
                message_id=int(ref),
                text=card_text(handoff, self.language(target)),
                reply_markup=card_keyboard(handoff, self.language(target)),
            )
        except TelegramBadRequest as exc:
            if "not modified" in exc.message:
                return  # it already shows this
            raise


@dataclass(frozen=True)
class Manager:
    """Who pressed a card's button or ran /leads or /close, as the hand-off records them."""

    key: str  # "telegram:<user id>"
    name: str
    user: User


class ManagersOnly(BaseMiddleware):
    """The leads router's gate, between its filters and its handlers: anyone but a configured
    manager is told leads are for managers, a command outside a private chat is told to come
    to one (a group never sees the list), and a manager's handler is given `manager`."""

    def __init__(self, ids: frozenset[int]) -> None:
        self.ids = ids

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        lang: str = data["lang"]
        if user is None or user.id not in self.ids:
            await _refuse(event, t("lead.managers_only", lang))
            return None
        if isinstance(event, Message) and event.chat.type != ChatType.PRIVATE:
            await _refuse(event, t("lead.private_only", lang))
            return None
        data["manager"] = Manager(f"telegram:{user.id}", user.full_name, user)
        return await handler(event, data)


async def _refuse(event: TelegramObject, text: str) -> None:
    if isinstance(event, CallbackQuery):
        await event.answer(text, show_alert=True)
    elif isinstance(event, Message):
        await send_long(event, text)


async def on_card_button(
    query: CallbackQuery,
    callback_data: TakeCb | CloseCb,
    handoff: Leads,
    manager: Manager,
    lang: str,
) -> None:
    """Take or Close on a card, by a manager; every card then shows it too."""
    if isinstance(callback_data, TakeCb):
        taken = await handoff.take(callback_data.id, manager=manager.key, name=manager.name)
        text, refused = take_reply(taken, lang, lambda h: h.taken_by_name or h.taken_by or "?")
    else:
        closed = await handoff.close(callback_data.id, manager=manager.key, name=manager.name)
        text, refused = close_reply(closed, callback_data.id, lang), closed.result != "closed"
    await query.answer(text, show_alert=refused)


async def cmd_leads(
    message: Message,
    handoff: Leads,
    manager: Manager,
    handoff_languages: tuple[Mapping[str, str], str] = ({}, ""),
) -> None:
    languages, default = handoff_languages
    lang = manager_language(manager.key, languages, default or lang_of(manager.user))
    await send_long(message, render_leads(await handoff.leads(), lang))


async def cmd_close(
    message: Message, command: CommandObject, handoff: Leads, manager: Manager, lang: str
) -> None:
    handoff_id = (command.args or "").strip()
    if not handoff_id or len(handoff_id) > 64 or " " in handoff_id:
        await send_long(message, t("lead.close_usage", lang))
        return
    outcome = await handoff.close(handoff_id, manager=manager.key, name=manager.name)
    await send_long(message, close_reply(outcome, handoff_id, lang))


def make_router(managers: frozenset[int]) -> Router:
    """Registered before the free-text router, so /leads and /close are not taken for unknown
    commands."""
    router = Router(name="handoff")
    gate = ManagersOnly(managers)
    router.callback_query.middleware(gate)
    router.message.middleware(gate)
    router.callback_query.register(on_card_button, TakeCb.filter())
    router.callback_query.register(on_card_button, CloseCb.filter())
    router.message.register(cmd_leads, Command("leads"))
    router.message.register(cmd_close, Command("close"))
    return router


def enabled(core: CoreApi, manager_ids: Sequence[int] | None) -> Leads | None:
    """The hand-off service when the core has one and Telegram managers are configured."""
    service = core.handoff
    return service if service is not None and manager_ids else None
