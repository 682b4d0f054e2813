"""Button presses (block_actions): the forget confirmation and the review queue.

The chat always comes from where the button was pressed (Bolt's context), never from the button
value, so a button can only act on the conversation it was shown in. Results replace the
ephemeral message that held the buttons, so a button cannot be pressed twice by mistake.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

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
from bot.slack.common import chat_key, keyword_only
from bot.texts import LANGUAGES, t
from core.errors import NotFound

if TYPE_CHECKING:
    from core.contract import CoreApi


def register_actions(app: AsyncApp, core: CoreApi) -> None:
    async def on_forget_confirm(
        *,
        ack: AsyncAck,
        action: dict[str, Any],
        body: dict[str, Any],
        respond: AsyncRespond,
        context: AsyncBoltContext,
    ) -> None:
        await ack()
        chat, user = chat_key(context), body["user"]["id"]
        name, lang = parse_forget_value(action["value"])
        if name is None:
            await core.forget_chat(chat)
            text = t("slack.forgot_all", lang, user=user)
        else:
            try:
                count = await core.forget_entity(chat, name)
            except NotFound:
                text = t("slack.no_facts_about", lang, name=escape(name))
            else:
                text = t("slack.forgot_entity", lang, user=user, name=escape(name), count=count)
        await respond(text=text, replace_original=True)

    async def on_forget_cancel(
        *, ack: AsyncAck, action: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        value = str(action.get("value"))
        lang = value if value in LANGUAGES else "en"  # the cancel button carries the language
        await respond(text=t("slack.forget_cancelled", lang), replace_original=True)

    async def on_review(
        *,
        ack: AsyncAck,
        action: dict[str, Any],
        body: dict[str, Any],
        respond: AsyncRespond,
        context: AsyncBoltContext,
    ) -> None:
        await ack()
        chat, user = chat_key(context), body["user"]["id"]
        pending_id, lang = parse_review_value(action["value"])
        approve = action["action_id"] == ACTION_REVIEW_APPROVE
        try:
            fact = await core.review(chat, pending_id, approve)
        except NotFound:  # pressed twice, or reviewed by someone else meanwhile
            note = t("slack.review_gone", lang)
        else:
            if approve and fact is not None:
                note = t("slack.approved", lang, user=user, fact=escape(fact.sentence()))
            else:
                note = t("slack.rejected", lang, user=user)
        text, blocks = await review_message(core, chat, lang, note=note)
        await respond(text=text, blocks=blocks, replace_original=True)

    app.action(ACTION_FORGET_CONFIRM)(keyword_only(on_forget_confirm))
    app.action(ACTION_FORGET_CANCEL)(keyword_only(on_forget_cancel))
    review_actions = f"^(?:{ACTION_REVIEW_APPROVE}|{ACTION_REVIEW_REJECT})$"
    app.action(re.compile(review_actions))(keyword_only(on_review))
