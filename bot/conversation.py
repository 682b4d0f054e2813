"""The one rule of who the bot talks to, for every front-end.

A message in a shared space (a Telegram group, a Slack channel) that does not address the bot
(no mention, no reply to it, no command) is overheard: remembered like everything said there,
buying interest in it still reaches the managers, and the bot says nothing. Everything else (a
private chat, a DM, a mention, a reply to the bot) is a conversation: questions are answered,
statements remembered, and the reply is shown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from bot.texts import t
from core.contract import CoreApi
from core.models import ClientInfo, Reply


def is_overheard(*, shared: bool, addressed: bool) -> bool:
    return shared and not addressed


async def client_for(
    core: CoreApi, describe: Callable[[], Awaitable[ClientInfo]]
) -> ClientInfo | None:
    """Who the client is, for a hand-off card: asked only of a core with a hand-off (it may
    cost a platform call)."""
    return await describe() if core.handoff is not None else None


@dataclass(frozen=True)
class Heard:
    """A message as every front-end hands it to the core."""

    chat: str
    author: str
    text: str
    message_id: str  # unique in its chat: a redelivered message is not stored twice
    ts: datetime | None  # None: the core stamps it with its clock
    client: ClientInfo | None = None  # for a hand-off card


def with_follow_up(reply: Reply) -> Reply:
    """The reply as the client sees it: when it raised a hand-off, a line in the client's
    language says a person will follow up (in the text, and in the answer Slack renders)."""
    if reply.handoff is None:
        return reply
    line = t("lead.follow_up", reply.language)
    update: dict[str, object] = {"text": f"{reply.text}\n\n{line}".strip()}
    if reply.answer is not None:
        answer = f"{reply.answer.answer}\n\n{line}".strip()
        update["answer"] = reply.answer.model_copy(update={"answer": answer})
    return reply.model_copy(update=update)


async def hear(core: CoreApi, heard: Heard, *, overheard: bool) -> Reply | None:
    """Hand the message to the core by the rule above; the reply to show, None when overheard."""
    h = heard
    if overheard:
        await core.observe(
            h.chat, author=h.author, text=h.text, message_id=h.message_id, ts=h.ts, client=h.client
        )
        return None
    reply = await core.handle_message(
        h.chat, author=h.author, text=h.text, message_id=h.message_id, ts=h.ts, client=h.client
    )
    return with_follow_up(reply)
