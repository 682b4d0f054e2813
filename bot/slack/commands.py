"""The slash command (`/kb` by default) and its subcommands.

Every invocation is acknowledged at once (Slack drops commands not acked within 3 s); the work
runs after the ack and answers through the command's response_url, which works in any channel
or DM, even ones the bot has not joined. Answers and remembered facts are posted in the channel
(the memory is the channel's, so everyone sees what it learnt); listings, confirmations and
review buttons stay ephemeral, visible only to whoever asked.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.render import render_facts, render_ingest, render_pending, render_trace, render_worlds
from bot.slack.blocks import (
    REVIEW_PAGE,
    answer_blocks,
    answer_fallback,
    escape,
    forget_blocks,
    review_blocks,
    text_blocks,
)
from bot.slack.common import respond_in_pages, with_progress
from bot.slack.people import may_erase
from bot.texts import t
from bot.triples import stated
from core.errors import NotFound

if TYPE_CHECKING:
    from core.contract import CoreApi


@dataclass(frozen=True, kw_only=True)
class Invocation:
    """One parsed slash command, with everything a subcommand needs to answer."""

    core: CoreApi
    chat: str
    channel: str  # Slack's id of where it was typed (D...: a direct message)
    user: str
    arg: str
    lang: str
    command: str
    respond: AsyncRespond
    client: AsyncWebClient
    progress_after: float

    async def private(self, text: str, blocks: list[dict[str, Any]] | None = None) -> None:
        await respond_in_pages(self.respond, text, blocks, response_type="ephemeral")

    async def public(self, text: str, blocks: list[dict[str, Any]]) -> None:
        await respond_in_pages(self.respond, text, blocks, response_type="in_channel")

    async def slow(self, work: Awaitable[Any]) -> Any:
        """Run core work, telling the user (privately) when it takes a while."""
        return await with_progress(
            work,
            after=self.progress_after,
            notify=lambda: self.private(t("slack.working", self.lang)),
        )


async def _ask(inv: Invocation) -> None:
    if not inv.arg:
        await inv.private(t("slack.usage_ask", inv.lang, cmd=inv.command))
        return
    answer = await inv.slow(inv.core.ask(inv.chat, inv.arg, author=inv.user))
    preface = t("slack.asked_by", answer.language, user=inv.user, question=escape(inv.arg))
    blocks = answer_blocks(answer, command=inv.command, preface=preface)
    await inv.public(answer_fallback(answer), blocks)


async def _remember(inv: Invocation) -> None:
    storing = stated(inv.core, inv.chat, inv.arg, author=inv.user)
    if storing is None:
        await inv.private(t("slack.usage_remember", inv.lang, cmd=inv.command))
        return
    result = await inv.slow(storing)
    text = render_ingest(result, inv.lang)
    preface = t("slack.told_by", inv.lang, user=inv.user, statement=escape(inv.arg))
    await inv.public(escape(text), text_blocks(text, preface=preface))


async def _why(inv: Invocation) -> None:
    try:
        trace = await inv.core.why(inv.chat, inv.arg or None)
    except NotFound:
        trace = None
    if trace is None:
        missing = t("slack.unknown_trace", inv.lang, trace=escape(inv.arg)) if inv.arg else None
        await inv.private(missing or t("slack.no_trace", inv.lang))
        return
    text = render_trace(trace)
    await inv.private(escape(text), text_blocks(text))


async def _worlds(inv: Invocation) -> None:
    text = render_worlds(await inv.core.worlds(inv.chat), inv.lang)
    await inv.private(escape(text), text_blocks(text))


async def _facts(inv: Invocation) -> None:
    try:
        facts = await inv.core.facts(inv.chat, inv.arg or None)
    except NotFound:
        await inv.private(t("slack.no_facts_about", inv.lang, name=escape(inv.arg)))
        return
    text = render_facts(facts, inv.lang)
    await inv.private(escape(text), text_blocks(text))


MAX_FORGET_NAME = 500


async def _forget(inv: Invocation) -> None:
    """Ask for confirmation with a button; actions.py does the erasing when it is pressed."""
    if not inv.arg:
        await inv.private(t("slack.usage_forget", inv.lang, cmd=inv.command))
        return
    if not await may_erase(inv.client, inv.channel, inv.user):
        await inv.private(t("slack.admins_only", inv.lang))
        return
    name = None if inv.arg.lower() == "all" else inv.arg
    if name is not None and len(name) > MAX_FORGET_NAME:  # nothing has such a name, and a
        # button value holds at most 2,000 characters (Slack answers 400 beyond)
        await inv.private(t("slack.no_facts_about", inv.lang, name=escape(name)))
        return
    would = None
    if name is not None:  # what it would take, or that nothing here names it
        try:
            would = await inv.core.forget_preview(inv.chat, name)
        except NotFound:
            await inv.private(t("slack.no_facts_about", inv.lang, name=escape(name)))
            return
    blocks = forget_blocks(name, inv.lang, would)
    question = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    await inv.private(question, blocks)


async def review_message(
    core: CoreApi, chat: str, lang: str, *, note: str | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """The review queue as (fallback text, blocks with approve/reject buttons)."""
    pending = await core.pending(chat)
    rendered = [render_pending(p) for p in pending[:REVIEW_PAGE]]
    blocks = review_blocks(pending, rendered, lang, note=note)
    header = t("slack.review_header", lang) if pending else t("slack.review_empty", lang)
    text = "\n".join([*([note] if note else []), header, *(escape(r) for r in rendered)])
    return text, blocks


async def _review(inv: Invocation) -> None:
    text, blocks = await review_message(inv.core, inv.chat, inv.lang)
    await inv.private(text, blocks)


async def _help(inv: Invocation) -> None:
    await inv.private(t("slack.help", inv.lang, cmd=inv.command))


Subcommand = Callable[[Invocation], Awaitable[None]]

SUBCOMMANDS: dict[str, Subcommand] = {
    "ask": _ask,
    "remember": _remember,
    "why": _why,
    "worlds": _worlds,
    "facts": _facts,
    "forget": _forget,
    "review": _review,
    "help": _help,
}


def register_commands(
    app: AsyncApp,
    *,
    command: str,
    progress_after: float,
    extra: Mapping[str, Subcommand] | None = None,
) -> None:
    """The slash command; `extra` adds subcommands that exist only in some set-ups (hand-off's
    `close`), left out of the help text. The listener is given `core` and `chat` by the app's
    `provide` middleware (app.py)."""
    subcommands = {**SUBCOMMANDS, **(extra or {})}

    async def on_command(
        ack: AsyncAck,
        command: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
        core: CoreApi,
        chat: str,
    ) -> None:
        await ack()  # first, always: the 3-second deadline covers only this
        sub, _, rest = (command.get("text") or "").strip().partition(" ")
        arg = rest.strip()
        inv = Invocation(
            core=core,
            chat=chat,
            channel=command.get("channel_id") or "",
            user=command["user_id"],
            arg=arg,
            # a command with no words ("/kb worlds") answers in the chat's language
            lang=await core.language(chat, arg),
            command=command_name,
            respond=respond,
            client=client,
            progress_after=progress_after,
        )
        handler = subcommands.get(sub.lower())
        if handler is not None:
            await handler(inv)
        elif sub:
            unknown = t("slack.unknown_subcommand", inv.lang, sub=escape(sub[:40]))
            await inv.private(f"{unknown}\n{t('slack.help', inv.lang, cmd=command_name)}")
        else:
            await _help(inv)

    command_name = command
    app.command(command)(on_command)
