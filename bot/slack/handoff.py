"""Hand-off cards in Slack (issue 8): the Notifier, the "Take" button and the /leads command.

Cards go to one channel, HANDOFF_SLACK_CHANNEL (the managers' room). Who is a manager: the
members of that channel, read with conversations.members (scopes channels:read / groups:read)
and cached for a minute. Membership is the access list people already manage in Slack, so adding
or removing a manager needs no redeploy, and whoever can see the cards can also act on them;
anyone else pressing Take or running /leads is refused, privately.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.ack.async_ack import AsyncAck
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.blocks import Block, button, context, escape, sections
from bot.slack.common import keyword_only
from core.handoff import ClientInfo, HandOff, render_card, render_leads

if TYPE_CHECKING:
    from core.handoff import HandoffService

log = logging.getLogger("bot.slack")

ACTION_TAKE = "handoff_take"
LEADS_COMMAND = "/leads"
MEMBERS_TTL_S = 60.0

TEXTS = {
    "take": "Take",
    "taken_ok": "The lead is yours.",
    "already_taken": "Sorry, {name} already took this lead.",
    "closed": "This lead is closed.",
    "not_found": "This lead no longer exists.",
    "managers_only": "Sorry, leads are for managers only (members of the leads channel).",
}


def client_of(user: str, team: str | None, channel: str) -> ClientInfo:
    link = f"slack://channel?team={team}&id={channel}" if team else None
    return ClientInfo(name=user, platform="slack", user_id=user, link=link)


def _owner(h: HandOff) -> str:
    if h.taken_by and h.taken_by.startswith("slack:"):
        return f"<@{h.taken_by.removeprefix('slack:')}>"
    return escape(h.taken_by_name or h.taken_by or "?")


def card_blocks(h: HandOff) -> tuple[str, list[Block]]:
    """(fallback text, blocks): the card, then Take while open or who took it."""
    text = escape(render_card(h))
    blocks = sections(text)
    if h.status == "open":
        blocks.append(
            {
                "type": "actions",
                "block_id": f"handoff:{h.id}",
                "elements": [button(TEXTS["take"], ACTION_TAKE, h.id, "primary")],
            }
        )
    elif h.status == "taken":
        blocks.append(context(f"Taken by {_owner(h)}"))
    return text, blocks


class SlackNotifier:
    """One card per hand-off in the managers' channel (and one per reminder)."""

    name = "slack"

    def __init__(self, client: AsyncWebClient, channel: str) -> None:
        self.client = client
        self.channel = channel

    def targets(self) -> Sequence[str]:
        return [self.channel]

    async def send(self, target: str, handoff: HandOff) -> str:
        text, blocks = card_blocks(handoff)
        resp = await self.client.chat_postMessage(channel=target, text=text, blocks=blocks)
        return str(resp["ts"])

    async def update(self, target: str, ref: str, handoff: HandOff) -> None:
        text, blocks = card_blocks(handoff)
        await self.client.chat_update(channel=target, ts=ref, text=text, blocks=blocks)


class ChannelManagers:
    """Managers are the members of the leads channel (cached; a failed lookup denies)."""

    def __init__(
        self,
        client: AsyncWebClient,
        channel: str,
        *,
        ttl: float = MEMBERS_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.channel = channel
        self.ttl = ttl
        self.clock = clock
        self._members: frozenset[str] = frozenset()
        self._at: float | None = None

    async def is_manager(self, user: str) -> bool:
        if self._at is None or self.clock() - self._at > self.ttl:
            try:
                members: list[str] = []
                cursor: str | None = None
                while True:
                    data: dict[str, Any] = {"channel": self.channel, "limit": 1000}
                    if cursor:
                        data["cursor"] = cursor
                    # POST, like every other call here (Slack accepts POST on read methods)
                    resp = await self.client.api_call(
                        "conversations.members", http_verb="POST", data=data
                    )
                    members += list(resp.get("members") or [])
                    cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
                    if not cursor:
                        break
            except Exception as exc:
                log.warning(
                    "slack: cannot list the leads channel's members: %s", type(exc).__name__
                )
                return False
            self._members, self._at = frozenset(members), self.clock()
        return user in self._members


def register_handoff(
    app: AsyncApp, service: HandoffService, *, channel: str, client: AsyncWebClient
) -> SlackNotifier:
    notifier = SlackNotifier(client, channel)
    managers = ChannelManagers(client, channel)
    service.add_notifier(notifier)

    async def private(respond: AsyncRespond, text: str) -> None:
        await respond(text=text, response_type="ephemeral", replace_original=False)

    async def on_take(
        *, ack: AsyncAck, action: dict[str, Any], body: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        user = body["user"]["id"]
        if not await managers.is_manager(user):
            await private(respond, TEXTS["managers_only"])
            return
        name = body["user"].get("name") or body["user"].get("username") or user
        outcome = await service.take(str(action.get("value")), manager=f"slack:{user}", name=name)
        if outcome.result == "taken":  # every card (this one included) now says who took it
            await private(respond, TEXTS["taken_ok"])
            return
        h = outcome.handoff
        if outcome.result == "already_taken" and h is not None:
            await private(respond, TEXTS["already_taken"].format(name=_owner(h)))
        else:
            await private(respond, TEXTS[outcome.result])

    async def on_leads(*, ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        if not await managers.is_manager(command["user_id"]):
            await private(respond, TEXTS["managers_only"])
            return
        text = escape(render_leads(await service.leads()))
        await respond(text=text, blocks=sections(text), response_type="ephemeral")

    app.action(ACTION_TAKE)(keyword_only(on_take))
    app.command(LEADS_COMMAND)(keyword_only(on_leads))
    return notifier
