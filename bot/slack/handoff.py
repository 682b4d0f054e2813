"""Hand-off cards in Slack (issue 8): the Notifier, the Take and Close buttons, the /leads
command and `/kb close <lead id>`.

An open card has Take and Close, a taken one Close, a closed one no buttons.

Cards go to one channel, HANDOFF_SLACK_CHANNEL (the managers' room). Who is a manager: the
members of that channel, read with conversations.members (scopes channels:read / groups:read)
and cached for a minute. Membership is the access list people already manage in Slack, so adding
or removing a manager needs no redeploy, and whoever can see the cards can also act on them;
anyone else pressing a button, running /leads or closing a lead is refused, privately. People
are shown by name (users.info, see people.py), falling back to their id.
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

from bot.leads import close_reply, render_card, render_leads, take_reply
from bot.slack.blocks import Block, button, context, escape, sections
from bot.slack.common import respond_in_pages
from bot.slack.people import PeopleCache, Person
from bot.texts import t
from core.handoff import ClientInfo, HandOff

if TYPE_CHECKING:
    from bot.slack.commands import Invocation, Subcommand
    from core.contract import Leads

log = logging.getLogger("bot.slack")

ACTION_TAKE = "handoff_take"
ACTION_CLOSE = "handoff_close"
LEADS_COMMAND = "/leads"
MEMBERS_TTL_S = 60.0


def client_of(
    user: str, team: str | None, channel: str, person: Person | None = None
) -> ClientInfo:
    """The client for a card: their name when Slack told us (see people.py), else their id."""
    link = f"slack://channel?team={team}&id={channel}" if team else None
    if person is None:
        return ClientInfo(name=user, platform="slack", user_id=user, link=link)
    return ClientInfo(
        name=person.name, platform="slack", user_id=user, username=person.handle, link=link
    )


def _who(key: str | None, name: str | None) -> str:
    """A manager on a card: a mention for Slack people (Slack renders their current name)."""
    if key and key.startswith("slack:"):
        return f"<@{key.removeprefix('slack:')}>"
    return escape(name or key or "?")


def _owner(h: HandOff) -> str:
    return _who(h.taken_by, h.taken_by_name)


def _buttons(h: HandOff, lang: str = "en") -> list[dict[str, Any]]:
    close = button(t("lead.close", lang), ACTION_CLOSE, h.id)
    if h.status == "open":
        return [button(t("lead.take", lang), ACTION_TAKE, h.id, "primary"), close]
    return [close] if h.status == "taken" else []


def card_blocks(h: HandOff, lang: str = "en") -> tuple[str, list[Block]]:
    """(fallback text, blocks): the card in the channel's language, who took or closed it,
    and the buttons left."""
    text = escape(render_card(h, lang))
    blocks = sections(text)
    if h.status == "taken":
        blocks.append(context(t("lead.card_taken_by", lang, who=_owner(h))))
    elif h.status == "closed" and (h.closed_by or h.closed_by_name):
        who = _who(h.closed_by, h.closed_by_name)
        blocks.append(context(t("lead.card_closed_by", lang, who=who)))
    if elements := _buttons(h, lang):
        blocks.append({"type": "actions", "block_id": f"handoff:{h.id}", "elements": elements})
    return text, blocks


class SlackNotifier:
    """One card per hand-off in the managers' channel (and one per reminder)."""

    name = "slack"

    def __init__(self, client: AsyncWebClient, channel: str, language: str = "en") -> None:
        self.client = client
        self.channel = channel
        self.language = language  # the leads channel's card language

    def targets(self) -> Sequence[str]:
        return [self.channel]

    async def send(self, target: str, handoff: HandOff) -> str:
        text, blocks = card_blocks(handoff, self.language)
        resp = await self.client.chat_postMessage(channel=target, text=text, blocks=blocks)
        return str(resp["ts"])

    async def update(self, target: str, ref: str, handoff: HandOff) -> None:
        text, blocks = card_blocks(handoff, self.language)
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
    app: AsyncApp,
    service: Leads,
    *,
    channel: str,
    client: AsyncWebClient,
    people: PeopleCache,
    command: str,
    language: str = "en",
) -> dict[str, Subcommand]:
    """Cards, buttons and /leads; returns the subcommands to add to `command` (close)."""
    command_name = command  # on_leads' own `command` parameter is Bolt's payload
    notifier = SlackNotifier(client, channel, language)
    managers = ChannelManagers(client, channel)
    service.add_notifier(notifier)

    async def private(respond: AsyncRespond, text: str) -> None:
        await respond(text=text, response_type="ephemeral", replace_original=False)

    async def presser(body: dict[str, Any], client: AsyncWebClient) -> tuple[str, str]:
        """(user id, name) of whoever pressed a button."""
        user = body["user"]["id"]
        fallback = body["user"].get("name") or body["user"].get("username")
        return user, await people.name(client, user, fallback=fallback)

    async def on_press(
        ack: AsyncAck,
        action: dict[str, Any],
        body: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        """Take or Close on a card, by a manager; every card then shows it too."""
        await ack()
        if not await managers.is_manager(body["user"]["id"]):
            await private(respond, t("lead.slack.managers_only"))
            return
        user, name = await presser(body, client)
        handoff_id, manager = str(action.get("value")), f"slack:{user}"
        if action.get("action_id") == ACTION_TAKE:
            taken = await service.take(handoff_id, manager=manager, name=name)
            text, _ = take_reply(taken, language, _owner)  # the leads channel's language
        else:
            closed = await service.close(handoff_id, manager=manager, name=name)
            text = close_reply(closed, handoff_id, language)
        await private(respond, text)

    async def close_command(inv: Invocation) -> None:
        """`/kb close <lead id>`: for a lead whose card is out of sight."""
        if not await managers.is_manager(inv.user):
            await inv.private(t("lead.slack.managers_only"))
            return
        handoff_id = inv.arg
        if not handoff_id or len(handoff_id) > 64 or " " in handoff_id:
            await inv.private(t("lead.slack.close_usage", "en", cmd=inv.command))
            return
        name = await people.name(inv.client, inv.user)
        outcome = await service.close(handoff_id, manager=f"slack:{inv.user}", name=name)
        await inv.private(escape(close_reply(outcome, handoff_id, language)))

    async def on_leads(ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        if not await managers.is_manager(command["user_id"]):
            await private(respond, t("lead.slack.managers_only"))
            return
        text = escape(render_leads(await service.leads(), language))
        hint = t("lead.slack.leads_hint", language, cmd=command_name)
        blocks = [*sections(text), context(hint)]
        await respond_in_pages(respond, text, blocks, response_type="ephemeral")

    app.action(ACTION_TAKE)(on_press)
    app.action(ACTION_CLOSE)(on_press)
    app.command(LEADS_COMMAND)(on_leads)
    return {"close": close_command}
