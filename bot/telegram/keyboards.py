"""Inline buttons: callback data formats, keyboards, and pending /forget confirmations."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.texts import t


class ForgetCb(CallbackData, prefix="fg", sep="|"):
    # A token, not the entity name: names may be 200 characters, callback data only 64 bytes.
    token: str
    ok: bool


class ReviewCb(CallbackData, prefix="rv", sep="|"):
    pending_id: str
    ok: bool


@dataclass(frozen=True)
class ForgetRequest:
    chat_id: int
    user_id: int
    entity: str | None  # None means everything in the chat
    expires_at: float


class Confirmations:
    """Pending /forget requests, keyed by a random token carried in the button.

    Kept in memory on purpose: after a restart an old button just says it expired, which is
    the safe outcome for a destructive action.
    """

    TTL_S = 600.0

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, ForgetRequest] = {}

    def add(self, *, chat_id: int, user_id: int, entity: str | None) -> str:
        now = self._clock()
        self._items = {k: v for k, v in self._items.items() if v.expires_at > now}
        token = secrets.token_urlsafe(8)
        self._items[token] = ForgetRequest(chat_id, user_id, entity, now + self.TTL_S)
        return token

    def get(self, token: str, *, chat_id: int) -> ForgetRequest | None:
        item = self._items.get(token)
        if item is None or item.chat_id != chat_id or item.expires_at <= self._clock():
            return None
        return item

    def discard(self, token: str) -> None:
        self._items.pop(token, None)


def forget_keyboard(token: str, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(
                    text=t("telegram.yes_forget", lang),
                    callback_data=ForgetCb(token=token, ok=True).pack(),
                ),
                InlineKeyboardButton(
                    text=t("telegram.cancel", lang),
                    callback_data=ForgetCb(token=token, ok=False).pack(),
                ),
            ]
        ]
    )


def review_keyboard(pending_id: str, lang: str) -> InlineKeyboardMarkup | None:
    """Approve/reject buttons, or None when the id cannot fit in callback data."""
    try:  # pack() refuses the separator inside a value and data over 64 bytes
        approve = ReviewCb(pending_id=pending_id, ok=True).pack()
        reject = ReviewCb(pending_id=pending_id, ok=False).pack()
    except ValueError:
        return None
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                InlineKeyboardButton(text=t("telegram.approve", lang), callback_data=approve),
                InlineKeyboardButton(text=t("telegram.reject", lang), callback_data=reject),
            ]
        ]
    )
