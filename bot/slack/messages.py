"""Free-form conversation: @-mentions in channels and messages in DMs.

Statements are remembered and questions answered by the core (handle_message decides which).
Replies go in the thread of the message that asked, so a busy channel stays readable; a thread
still belongs to its channel's chat. Bolt acknowledges events before these listeners run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.blocks import answer_blocks, answer_fallback, escape, sections
from bot.slack.common import chat_key, keyword_only, message_time, plain_text, with_progress
from bot.slack.handoff import client_of
from bot.slack.texts import t
from core.language import detect_language

if TYPE_CHECKING:
    from core.models import Reply
    from core.service import Core


def reply_content(reply: Reply, *, command: str) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for a core reply: Block Kit for answers, sections otherwise."""
    if reply.answer is not None:
        return answer_fallback(reply.answer), answer_blocks(reply.answer, command=command)
    return escape(reply.text), sections(escape(reply.text))


def register_messages(app: AsyncApp, core: Core, *, command: str, progress_after: float) -> None:
    async def converse(
        event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        channel = event["channel"]
        thread_ts = event.get("thread_ts") or event["ts"]
        text = plain_text(event.get("text") or "", bot_user_id=context.bot_user_id)
        lang = detect_language(text) if text else "en"
        if not text:  # a bare mention: say what the bot is for instead of storing nothing
            hint = t("empty_mention", lang, cmd=command)
            await client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=hint)
            return

        placeholder: str | None = None

        async def show_progress() -> None:
            nonlocal placeholder
            working = await client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=t("working", lang)
            )
            placeholder = working.get("ts")

        author = event.get("user") or "unknown"
        # issue 8: who the client is, for a hand-off card (only a core with hand-off takes it)
        extra = (
            {"client": client_of(author, context.team_id, channel)}
            if getattr(core, "handoff", None)
            else {}
        )
        reply = await with_progress(
            core.handle_message(
                chat_key(context),
                author=author,
                text=text,
                # the ts is unique per channel: Slack's event retries then store nothing twice
                message_id=event["ts"],
                ts=message_time(event["ts"]),
                **extra,
            ),
            after=progress_after,
            notify=show_progress,
        )
        if reply.ingest is not None and reply.ingest.duplicate and placeholder is None:
            return  # a redelivered event (Slack retries): the first delivery already answered
        fallback, blocks = reply_content(reply, command=command)
        if placeholder is not None:  # turn "working on it" into the answer, in place
            await client.chat_update(channel=channel, ts=placeholder, text=fallback, blocks=blocks)
        else:
            await client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, text=fallback, blocks=blocks
            )

    async def on_mention(
        *, event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        if str(event.get("channel", "")).startswith("D"):
            return  # DMs are handled as message.im; answering the mention too would reply twice
        await converse(event, context, client)

    async def on_message(
        *, event: dict[str, Any], context: AsyncBoltContext, client: AsyncWebClient
    ) -> None:
        # Only people's own new messages in DMs: channel messages arrive as app_mention, and
        # edits, deletions, joins and other bots' posts (subtype / bot_id) are not content.
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return
        await converse(event, context, client)

    app.event("app_mention")(keyword_only(on_mention))
    app.event("message")(keyword_only(on_message))
