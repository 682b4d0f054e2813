"""Button presses (block_actions): the forget confirmation and the review queue.

The chat always comes from where the button was pressed (Bolt's context), never from the button
value, so a button can only act on the conversation it was shown in. Results replace the
ephemeral message that held the buttons, so a button cannot be pressed twice by mistake.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.blocks import (
    ACTION_FORGET_CANCEL,
    ACTION_FORGET_CONFIRM,
    ACTION_REVIEW_APPROVE,
    ACTION_REVIEW_REJECT,
    escape,
    parse_forget_value,
    parse_review_value,
)
from bot.slack.commands import review_message
from bot.slack.people import may_erase
from bot.texts import LANGUAGES, t
from core.contract import CoreApi
from core.errors import NotFound


@dataclass(frozen=True)
class Press:
    """One button press, with what its answer needs."""

    action: dict[str, Any]
    core: CoreApi
    chat: str  # where the button was pressed, never from its value
    user: str  # who pressed it
    channel: str = ""  # Slack's id of where it was pressed
    client: AsyncWebClient | None = None


async def _forget_confirmed(press: Press) -> str:
    core, chat, user = press.core, press.chat, press.user
    name, lang = parse_forget_value(press.action["value"])
    # rights may have changed since the question was asked
    if press.client is None or not await may_erase(press.client, press.channel, user):
        return t("slack.admins_only", lang)
    if name is None:
        await core.forget_chat(chat)
        return t("slack.forgot_all", lang, user=user)
    try:
        gone = await core.forget_entity(chat, name)
    except NotFound:
        return t("slack.no_facts_about", lang, name=escape(name))
    return t(
        "slack.forgot_entity",
        lang,
        user=user,
        name=escape(name),
        count=gone.facts,
        messages=gone.messages,
    )


async def _forget_cancelled(press: Press) -> str:
    value = str(press.action.get("value"))
    lang = value if value in LANGUAGES else "en"  # the cancel button carries the language
    return t("slack.forget_cancelled", lang)


async def _reviewed(press: Press) -> tuple[str, list[dict[str, Any]]]:
    core, chat, user = press.core, press.chat, press.user
    pending_id, lang = parse_review_value(press.action["value"])
    approve = press.action["action_id"] == ACTION_REVIEW_APPROVE
    try:
        fact = await core.review(chat, pending_id, approve)
    except NotFound:  # pressed twice, or reviewed by someone else meanwhile
        note = t("slack.review_gone", lang)
    else:
        if approve and fact is not None:
            note = t("slack.approved", lang, user=user, fact=escape(fact.sentence()))
        else:
            note = t("slack.rejected", lang, user=user)
    return await review_message(core, chat, lang, note=note)


Answer = Callable[[Press], Awaitable[str | tuple[str, list[dict[str, Any]]]]]

BUTTONS: dict[str, Answer] = {
    ACTION_FORGET_CONFIRM: _forget_confirmed,
    ACTION_FORGET_CANCEL: _forget_cancelled,
    ACTION_REVIEW_APPROVE: _reviewed,
    ACTION_REVIEW_REJECT: _reviewed,
}


async def on_button(
    ack: AsyncAck,
    action: dict[str, Any],
    respond: AsyncRespond,
    core: CoreApi,
    chat: str,
    user_id: str,
    client: AsyncWebClient,
    context: AsyncBoltContext,
) -> None:
    """Every button of this module: its answer replaces the message that held the buttons.
    Given `core` and `chat` by the app's `provide` middleware (app.py), `user_id` by Bolt."""
    await ack()
    press = Press(action, core, chat, user_id, context.channel_id or "", client)
    answer = await BUTTONS[action["action_id"]](press)
    if isinstance(answer, str):
        await respond(text=answer, replace_original=True)
    else:
        text, blocks = answer
        await respond(text=text, blocks=blocks, replace_original=True)


def register_actions(app: AsyncApp) -> None:
    app.action(re.compile(f"^(?:{'|'.join(map(re.escape, BUTTONS))})$"))(on_button)
