"""The one rule of who the bot talks to, for every front-end.

A message in a shared space (a Telegram group, a Slack channel) that does not address the bot
(no mention, no reply to it, no command) is overheard: remembered like everything said there,
buying interest in it still reaches the managers, and the bot says nothing. Everything else (a
private chat, a DM, a mention, a reply to the bot) is a conversation: questions are answered,
statements remembered, and the reply is shown.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.texts import t
from core.contract import CoreApi
from core.models import ClientInfo, IncomingMessage, Reply


def is_overheard(*, shared: bool, addressed: bool) -> bool:
    return shared and not addressed


async def client_for(
    core: CoreApi, describe: Callable[[], Awaitable[ClientInfo]]
) -> ClientInfo | None:
    """Who the client is, for a hand-off card: asked only of a core with a hand-off (it may
    cost a platform call)."""
    return await describe() if core.handoff is not None else None


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


async def hear(
    core: CoreApi, chat: str, message: IncomingMessage, *, overheard: bool
) -> Reply | None:
    """Hand the message to the core by the rule above; the reply to show, None when overheard."""
    if overheard:
        await core.observe(chat, message)
        return None
    return with_follow_up(await core.handle_message(chat, message))
