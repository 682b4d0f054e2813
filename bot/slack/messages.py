"""Free-form conversation: @-mentions in channels, messages in DMs, and what channels say.

Statements are remembered and questions answered by the core (handle_message decides which).
Replies go in the thread of the message that asked, so a busy channel stays readable; a thread
still belongs to its channel's chat. A reply too long for one Slack message continues in
follow-up messages in the same thread. Bolt acknowledges events before these listeners run.

Channel messages that do not mention the bot are overheard: remembered like everything said in
a Telegram group (and buying interest in them still reaches the managers), with nothing said
in the channel. Messages that mention the bot also arrive as app_mention and are answered there.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import client_for, hear, is_overheard
from bot.slack import journal
from bot.slack.blocks import answer_blocks, answer_fallback, escape, paginate, sections
from bot.slack.common import (
    mentions,
    message_time,
    plain_text,
    with_progress,
)
from bot.slack.handoff import client_of
from bot.slack.people import PeopleCache
from bot.texts import t
from core.errors import CoreError
from core.language import detect_language, is_question
from core.models import IncomingMessage

if TYPE_CHECKING:
    from core.contract import CoreApi
    from core.handoff import ClientInfo
    from core.models import Reply

log = logging.getLogger("bot.slack")

OVERHEARD_CHANNEL_TYPES = ("channel", "group")  # public and private channels


def reply_content(reply: Reply, *, command: str) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for a core reply: Block Kit for answers, sections otherwise."""
    if reply.answer is not None:
        return answer_fallback(reply.answer), answer_blocks(reply.answer, command=command)
    return escape(reply.text), sections(escape(reply.text))


@dataclass(frozen=True)
class Delivery:
    """One message event with what handling it needs: the core and the chat (from the app's
    `provide` middleware), the event, Bolt's context and the Web API client."""

    core: CoreApi
    chat: str
    event: dict[str, Any]
    context: AsyncBoltContext
    client: AsyncWebClient


def register_messages(
    app: AsyncApp,
    *,
    command: str,
    progress_after: float,
    people: PeopleCache,
    unobserved: Collection[str] = (),
) -> None:
    """`unobserved`: channel ids whose unaddressed messages are not remembered (the managers'
    leads channel: their talk about a client's price is not a client's buying interest).
    The listeners are given `core` and `chat` by the app's `provide` middleware (app.py)."""

    async def heard(d: Delivery, text: str) -> IncomingMessage:
        author, channel = d.event.get("user") or "unknown", d.event["channel"]

        async def describe() -> ClientInfo:  # issue 8: who the client is, for a hand-off card
            person = await people.lookup(d.client, author)
            return client_of(author, d.context.team_id, channel, person)

        # the ts is unique per channel: Slack's event retries then store nothing twice
        ts = d.event["ts"]
        who = await client_for(d.core, describe)
        # a message in a thread replies to the thread's parent (its ts is the thread's)
        parent = d.event.get("thread_ts")
        return IncomingMessage(
            author=author,
            text=text,
            message_id=ts,
            ts=message_time(ts),
            client=who,
            reply_to=parent if parent and parent != ts else None,
        )

    async def converse(d: Delivery) -> None:
        client, channel = d.client, d.event["channel"]
        thread_ts = d.event.get("thread_ts") or d.event["ts"]
        text = plain_text(d.event.get("text") or "", bot_user_id=d.context.bot_user_id)
        lang = detect_language(text) if text else "en"
        if not text:  # a bare mention: say what the bot is for instead of storing nothing
            hint = t("slack.empty_mention", lang, cmd=command)
            await client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=hint)
            return

        placeholder: str | None = None

        async def show_progress() -> None:
            nonlocal placeholder
            working = await client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=t("slack.working", lang)
            )
            placeholder = working.get("ts")

        said = await heard(d, text)
        reply = await with_progress(
            hear(d.core, d.chat, said, overheard=False),
            after=progress_after,
            notify=show_progress,
        )
        if reply is None:
            return
        if reply.ingest is not None and reply.ingest.duplicate and placeholder is None:
            return  # a redelivered event (Slack retries): the first delivery already answered
        for n, (fallback, blocks) in enumerate(paginate(*reply_content(reply, command=command))):
            if n == 0 and placeholder is not None:  # "working on it" becomes the answer, in place
                await client.chat_update(
                    channel=channel, ts=placeholder, text=fallback, blocks=blocks
                )
            else:
                await client.chat_postMessage(
                    channel=channel, thread_ts=thread_ts, text=fallback, blocks=blocks
                )

    async def overhear(d: Delivery) -> None:
        """Remember a channel message nobody addressed to the bot; never answer it."""
        text = plain_text(d.event.get("text") or "", bot_user_id=d.context.bot_user_id)
        if not text:
            return
        try:
            await hear(d.core, d.chat, await heard(d, text), overheard=True)
        except CoreError as exc:  # e.g. too long to remember: nobody asked, so nobody is told
            log.info("slack overheard message in %s not remembered: %s", d.chat, type(exc).__name__)
        except Exception:  # the error handler would apologise in a channel that asked nothing
            log.exception("slack overheard message in %s failed", d.chat)

    async def correct(d: Delivery) -> None:
        """message_changed: the edit is a correction (issue 12); no reply, as in Slack."""
        new, bot_user = d.event.get("message") or {}, d.context.bot_user_id
        if new.get("bot_id") or new.get("user") == bot_user or not new.get("ts"):
            return
        text = plain_text(new.get("text") or "", bot_user_id=bot_user)
        if not text or is_question(text):
            return  # questions were answered, never remembered
        try:
            await d.core.correct(
                d.chat,
                message_id=new["ts"],
                author=new.get("user") or "unknown",
                text=text,
                ts=message_time(new["ts"]),
            )
        except CoreError as exc:
            log.info("slack edit in %s not applied: %s", d.chat, type(exc).__name__)

    async def on_event(
        event: dict[str, Any],
        body: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        core: CoreApi,
        chat: str,
    ) -> None:
        """app_mention and message events, each recorded in the inbound log while handled."""
        d = Delivery(core, chat, event, context, client)
        async with journal.handling(core.inbound, body):
            if event.get("type") != "app_mention":
                await on_message_event(d)
            elif not str(event.get("channel", "")).startswith("D"):
                # DMs are handled as message.im; answering the mention too would reply twice
                await converse(d)

    async def on_message_event(d: Delivery) -> None:
        event, bot_user = d.event, d.context.bot_user_id
        subtype = event.get("subtype")
        if subtype == "message_changed":
            await correct(d)
            return
        # People's own new messages only: deletions, joins and bots' posts (subtype / bot_id)
        # are not content; a file shared with a comment is (its text is the caption).
        if subtype not in (None, "file_share") or event.get("bot_id"):
            return
        if event.get("user") == bot_user:
            return
        kind = event.get("channel_type")
        shared = kind in OVERHEARD_CHANNEL_TYPES
        if not shared and kind != "im":
            return
        addressed = not shared or mentions(event.get("text") or "", bot_user)
        if is_overheard(shared=shared, addressed=addressed):
            if event.get("channel") not in unobserved:
                await overhear(d)
        elif not shared:
            await converse(d)
        # a channel message that mentions the bot also arrives as app_mention: answered there

    app.event("app_mention")(on_event)
    app.event("message")(on_event)
