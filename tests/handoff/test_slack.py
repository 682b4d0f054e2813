"""Issue 8 through the real Slack front-end (Bolt over signed HTTP) against the fake Slack."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import pytest

from bot.jobs import handoff_job
from bot.settings import Settings
from bot.slack.app import build_slack_app
from bot.slack.handoff import ACTION_CLOSE, ACTION_TAKE
from bot.slack.runner import EVENTS_PATH, start_http
from bot.texts import t
from core.service import Core
from tests.handoff.conftest import ManualClock, SlackWithMembers, handoff_settings
from tests.slack.conftest import SECRET, SlackHttp, all_text, buttons, slack_settings
from tests.slack.fake_slack_api import BOT_USER_ID, TEAM_ID, at_least
from tests.slack.test_overheard import channel_message, eventually, messages_in

LEADS = "CLEADS"
INTEREST = "Quanto custa o plano anual? Quero comprar para 20 pessoas"
_ts = itertools.count(100)


@pytest.fixture
async def slack(hcore: Core, slack_api: SlackWithMembers) -> AsyncIterator[SlackHttp]:
    slack_api.members[LEADS] = ["UA", "UB"]
    app = build_slack_app(
        hcore, slack_settings(slack_api), handoff=handoff_settings(slack_channel=LEADS)
    )
    runner = await start_http(app, signing_secret=SECRET, host="127.0.0.1", port=0)
    yield SlackHttp(f"http://127.0.0.1:{runner.addresses[0][1]}{EVENTS_PATH}", slack_api)
    await runner.cleanup()


async def dm(slack: SlackHttp, text: str, *, user: str = "UCLIENT") -> dict[str, Any]:
    """The client writes to the bot in a DM; returns the bot's reply there."""
    fake = slack.fake
    before = len([p for p in fake.api("chat.postMessage") if p.get("channel") == "D1"])
    ts = f"1700000{next(_ts)}.000100"
    event = {
        "type": "message",
        "channel": "D1",
        "channel_type": "im",
        "user": user,
        "text": text,
        "ts": ts,
    }
    assert await slack.event(event) == 200
    replies = await fake.wait_for(
        lambda: at_least(
            before + 1, [p for p in fake.api("chat.postMessage") if p.get("channel") == "D1"]
        )
    )
    return replies[-1]


def cards(fake: SlackWithMembers) -> list[dict[str, Any]]:
    return [p for p in fake.api("chat.postMessage") if p.get("channel") == LEADS]


def blocks_of(params: dict[str, Any]) -> dict[str, Any]:
    blocks = params.get("blocks")
    return {
        "text": params.get("text"),
        "blocks": json.loads(blocks) if isinstance(blocks, str) else blocks,
    }


def press(card: dict[str, Any], action_id: str = ACTION_TAKE) -> dict[str, Any]:
    (button,) = [b for b in buttons(blocks_of(card)) if b["action_id"] == action_id]
    return {
        "type": "button",
        "action_id": action_id,
        "block_id": button["block_id"],
        "value": button["value"],
        "text": button["text"],
    }


def button_ids(message: dict[str, Any]) -> list[str]:
    return [b["action_id"] for b in buttons(blocks_of(message))]


async def leads_command(slack: SlackHttp, user: str) -> dict[str, Any]:
    key = f"leads-{user}-{next(_ts)}"
    form = {
        "token": "legacy",
        "team_id": TEAM_ID,
        "team_domain": "test",
        "channel_id": "C9",
        "channel_name": "x",
        "user_id": user,
        "user_name": user,
        "command": "/leads",
        "text": "",
        "api_app_id": "A1",
        "response_url": slack.fake.response_url(key),
        "trigger_id": f"1.2.{key}",
    }
    status, _ = await slack.post(urlencode(form), "application/x-www-form-urlencoded")
    assert status == 200
    (answer,) = await slack.fake.wait_for(lambda: slack.fake.responses_to(key))
    return answer


async def test_card_in_the_leads_channel_then_updated_not_duplicated(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core, clock: ManualClock
) -> None:
    await dm(slack, "Acme Corp is located in Lisbon.")
    reply = await dm(slack, INTEREST)
    assert t("lead.follow_up", "pt") in all_text(blocks_of(reply))
    (card,) = cards(slack_api)
    text = all_text(blocks_of(card))
    assert "Lead h_" in text
    assert "UCLIENT" in text
    assert "Company: Acme Corp" in text
    assert "Acme Corp LOCATED_IN Lisbon" in text
    assert "price, buy" in text
    assert press(card)["value"].startswith("h_")
    assert button_ids(card) == [ACTION_TAKE, ACTION_CLOSE]

    clock.advance(minutes=5)
    await dm(slack, "Can you send me the contract draft?")
    assert len(cards(slack_api)) == 1
    (update,) = slack_api.api("chat.update")
    assert update["channel"] == LEADS
    assert "contract" in all_text(blocks_of(update))


async def test_take_in_slack_first_wins_others_refused(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    await dm(slack, INTEREST)
    (card,) = cards(slack_api)
    (mine,) = await slack.action(press(card), channel=LEADS, user="UA")
    assert mine["text"] == "The lead is yours."
    (update,) = slack_api.api("chat.update")
    shown = blocks_of(update)
    assert "Taken by <@UA>" in all_text(shown)
    assert button_ids(update) == [ACTION_CLOSE]  # a taken lead can still be closed

    (late,) = await slack.action(press(card), channel=LEADS, user="UB")
    assert late["text"] == "Sorry, <@UA> already took this lead."
    assert late["response_type"] == "ephemeral"
    (stranger,) = await slack.action(press(card), channel=LEADS, user="UX")
    assert "managers only" in stranger["text"]
    assert len(slack_api.api("chat.update")) == 1
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert lead.taken_by == "slack:UA"


async def test_a_500_from_slack_is_retried_until_delivered(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    slack_api.down.add(LEADS)  # the leads channel answers 500; the client's DM works
    await dm(slack, INTEREST)
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert lead.notified == {}
    await handoff_job(hcore, Settings())
    assert (await hcore.handoff.leads())[0].notified == {}
    assert len([p for p in slack_api.calls if p.params.get("channel") == LEADS]) == 2
    slack_api.down.clear()
    report = await handoff_job(hcore, Settings())
    assert report["handoff_delivered"] == 1
    (lead,) = await hcore.handoff.leads()
    assert list(lead.notified) == [f"slack:{LEADS}"]
    assert len(cards(slack_api)) == 3  # two refused with 500, then delivered


async def test_leads_command_only_for_channel_members(
    slack: SlackHttp, slack_api: SlackWithMembers
) -> None:
    await dm(slack, INTEREST)
    refused = await leads_command(slack, "UCLIENT")
    assert "managers only" in refused["text"]
    assert "UCLIENT" not in refused["text"]
    listing = await leads_command(slack, "UB")
    assert "UCLIENT" in listing["text"]
    assert "open" in listing["text"]
    assert BOT_USER_ID != "UB"


# ------------------------------------------------------------------ names (users.info)
async def test_the_card_names_the_client_looked_up_once(
    slack: SlackHttp, slack_api: SlackWithMembers
) -> None:
    slack_api.add_user("UCLIENT", "Ana Silva", "ana")
    await dm(slack, "Acme Corp is located in Lisbon.")
    await dm(slack, INTEREST)
    (card,) = cards(slack_api)
    assert "Ana Silva (@ana)" in all_text(blocks_of(card))
    assert [p["user"] for p in slack_api.api("users.info")] == ["UCLIENT"]  # cached after


async def test_a_failing_users_info_still_raises_the_handoff_with_the_id(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    slack_api.add_user("UCLIENT", "Ana Silva", "ana")
    slack_api.fail_next("users.info", 500)
    await dm(slack, INTEREST)
    await dm(slack, "Acme Corp is located in Lisbon.")
    assert len(slack_api.api("users.info")) == 1  # not asked again on every message
    (card,) = cards(slack_api)
    text = all_text(blocks_of(card))
    assert "Lead h_" in text
    assert "UCLIENT" in text
    assert "Ana Silva" not in text
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert lead.client.user_id == "UCLIENT"


# ------------------------------------------------------------------ overheard in channels
async def test_buying_interest_overheard_in_a_channel_reaches_the_managers_only(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    slack_api.add_user("U7", "Bruno Costa")
    message = channel_message("we want to buy 50 licenses, what is the price?", channel="CSALES")
    assert await slack.event(message) == 200
    (card,) = await slack_api.wait_for(lambda: cards(slack_api))
    text = all_text(blocks_of(card))
    assert "Bruno Costa" in text
    assert "buy" in text
    # the card is posted from inside observe: once it is there, the listener is done
    assert [p for p in slack_api.api("chat.postMessage") if p["channel"] != LEADS] == []
    assert await messages_in(hcore, f"slack:{TEAM_ID}:CSALES") == 1


async def test_the_managers_talk_in_the_leads_channel_is_not_overheard(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    talk = channel_message("they want to buy 50 licenses, what is the price?", channel=LEADS)
    assert await slack.event(talk) == 200
    assert await slack.event(channel_message("acme is located in lisbon", channel="CSALES")) == 200
    await eventually(lambda: _remembered(hcore, "CSALES"))
    await dm(slack, "hello there")  # and a marker through the whole app
    assert await messages_in(hcore, f"slack:{TEAM_ID}:{LEADS}") == 0
    assert cards(slack_api) == []


async def _remembered(core: Core, channel: str) -> bool:
    return await messages_in(core, f"slack:{TEAM_ID}:{channel}") > 0


# ------------------------------------------------------------------ closing
async def test_close_updates_every_copy_of_the_card_and_removes_its_buttons(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core, clock: ManualClock
) -> None:
    slack_api.add_user("UA", "Maria Souza")
    await dm(slack, INTEREST)
    clock.advance(minutes=31)  # untaken: the job re-sends the card
    await handoff_job(hcore, Settings())
    first, reminder = cards(slack_api)
    (done,) = await slack.action(press(reminder, ACTION_CLOSE), channel=LEADS, user="UA")
    assert done["response_type"] == "ephemeral"
    assert done["text"] == f"Lead {press(first)['value']} closed."
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads(include_closed=True)
    copies = lead.notified[f"slack:{LEADS}"]  # the ts Slack gave each card
    updates = slack_api.api("chat.update")
    assert len(copies) == 2
    assert sorted(u["ts"] for u in updates) == sorted(copies)
    for update in updates:
        shown = blocks_of(update)
        assert "closed by Maria Souza" in all_text(shown)
        assert "Closed by <@UA>" in all_text(shown)
        assert not buttons(shown)
    assert (lead.status, lead.closed_by, lead.closed_by_name) == (
        "closed",
        "slack:UA",
        "Maria Souza",
    )


async def test_close_is_for_managers_and_a_second_close_is_told_so(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    await dm(slack, INTEREST)
    (card,) = cards(slack_api)
    (stranger,) = await slack.action(press(card, ACTION_CLOSE), channel=LEADS, user="UX")
    assert "managers only" in stranger["text"]
    assert slack_api.api("chat.update") == []
    assert hcore.handoff is not None
    assert [h.status for h in await hcore.handoff.leads()] == ["open"]

    (taken,) = await slack.action(press(card), channel=LEADS, user="UA")
    assert taken["text"] == "The lead is yours."
    (closed,) = await slack.action(press(card, ACTION_CLOSE), channel=LEADS, user="UA")
    assert closed["text"].endswith("closed.")
    (again,) = await slack.action(press(card, ACTION_CLOSE), channel=LEADS, user="UB")
    assert again["text"] == "This lead is already closed."
    assert again["response_type"] == "ephemeral"
    assert len(slack_api.api("chat.update")) == 2  # taken, then closed: not a third time


async def test_kb_close_by_id_for_managers(
    slack: SlackHttp, slack_api: SlackWithMembers, hcore: Core
) -> None:
    await dm(slack, INTEREST)
    (card,) = cards(slack_api)
    lead_id = press(card)["value"]
    (refused,) = await slack.command(f"close {lead_id}", user="UCLIENT")
    assert "managers only" in refused["text"]
    (usage,) = await slack.command("close", user="UA")
    assert "/kb close <lead id>" in usage["text"]
    (unknown,) = await slack.command("close h_000000000000", user="UA")
    assert unknown["text"] == "This lead no longer exists."
    assert slack_api.api("chat.update") == []

    (done,) = await slack.command(f"close {lead_id}", user="UA")
    assert done["text"] == f"Lead {lead_id} closed."
    assert done["response_type"] == "ephemeral"
    (update,) = slack_api.api("chat.update")
    assert "closed by" in all_text(blocks_of(update))
    assert not buttons(blocks_of(update))
    (again,) = await slack.command(f"close {lead_id}", user="UB")
    assert again["text"] == "This lead is already closed."
    listing = await leads_command(slack, "UB")
    assert lead_id not in listing["text"]  # /leads lists open and taken leads
    assert "/kb close" in all_text(listing)
