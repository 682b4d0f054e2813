"""Forget confirmation and review buttons, pressed through block_actions payloads."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.blocks import (
    ACTION_FORGET_CANCEL,
    ACTION_FORGET_CONFIRM,
    ACTION_REVIEW_APPROVE,
    ACTION_REVIEW_REJECT,
)
from core.models import TripleIn
from tests.slack.conftest import SlackHttp, all_text, buttons
from tests.slack.fake_slack_api import FakeSlack

CHAT = "slack:T1:C1"


@pytest.fixture(autouse=True)
def admin(fake_slack: FakeSlack) -> None:
    """U1, who types the commands here, is a workspace admin (may erase in a channel)."""
    fake_slack.add_user("U1", "Alice", admin=True)


def press(button: dict[str, Any]) -> dict[str, Any]:
    """The action Slack sends when `button` (as rendered by the bot) is pressed."""
    return {
        "type": "button",
        "action_id": button["action_id"],
        "block_id": button["block_id"],
        "value": button["value"],
        "text": button["text"],
    }


def named(message: dict[str, Any], action_id: str) -> list[dict[str, Any]]:
    return [b for b in buttons(message) if b["action_id"] == action_id]


def review_item(message: dict[str, Any], needle: str) -> dict[str, dict[str, Any]]:
    """The buttons (by action id) under the pending fact whose text contains `needle`."""
    text = ""
    for block in message["blocks"]:
        if block["type"] == "section":
            text = block["text"]["text"]
        elif block["type"] == "actions" and needle in text:
            return {e["action_id"]: {**e, "block_id": block["block_id"]} for e in block["elements"]}
    raise AssertionError(f"no review item mentions {needle!r}")


async def entity_names(core: Any, chat: str) -> set[str]:
    return {name for f in await core.facts(chat) for name in (f.subject, f.object)}


async def test_forget_entity_after_confirmation(slack: SlackHttp, core: Any) -> None:
    await slack.final("remember checkout depends on payments")
    await slack.final("remember checkout depends on payments", channel="C2")
    (unknown,) = await slack.command("forget paymints")  # nothing names it: no button
    assert "paymints" in unknown["text"] and not unknown.get("blocks")
    (confirm,) = await slack.command("forget payments")
    assert confirm["response_type"] == "ephemeral"
    assert "1 facts and 1 messages" in confirm["text"]  # what the click would take
    assert "payments" in await entity_names(core, CHAT)  # nothing erased before the click

    (forget,) = named(confirm, ACTION_FORGET_CONFIRM)
    (done,) = await slack.action(press(forget))
    assert done["replace_original"] is True
    assert "payments" in done["text"]
    assert "payments" not in await entity_names(core, CHAT)
    assert "payments" in await entity_names(core, "slack:T1:C2")  # other channel untouched


async def test_forget_cancel_keeps_everything(slack: SlackHttp, core: Any) -> None:
    await slack.final("remember checkout depends on payments")
    (confirm,) = await slack.command("forget all")
    (cancel,) = named(confirm, ACTION_FORGET_CANCEL)
    (done,) = await slack.action(press(cancel))
    assert done["replace_original"] is True
    assert "payments" in await entity_names(core, CHAT)


async def test_forget_all_erases_only_this_channel(slack: SlackHttp, core: Any) -> None:
    await slack.final("remember checkout depends on payments")
    await slack.final("remember checkout depends on payments", channel="C2")
    (confirm,) = await slack.command("forget all")
    (forget,) = named(confirm, ACTION_FORGET_CONFIRM)
    await slack.action(press(forget))
    assert await core.facts(CHAT) == []
    assert await core.facts("slack:T1:C2") != []


async def test_forget_button_acts_on_the_channel_it_is_pressed_in(
    slack: SlackHttp, core: Any
) -> None:
    await slack.final("remember checkout depends on payments")
    await slack.final("remember checkout depends on payments", channel="C2")
    (confirm,) = await slack.command("forget payments", channel="C2")
    (forget,) = named(confirm, ACTION_FORGET_CONFIRM)
    await slack.action(press(forget), channel="C2")
    assert "payments" in await entity_names(core, CHAT)
    assert "payments" not in await entity_names(core, "slack:T1:C2")


def doubtful(obj: str) -> TripleIn:
    return TripleIn(
        subject="checkout",
        subject_kind="service",
        predicate="DEPENDS_ON",
        object=obj,
        object_kind="service",
        confidence=0.4,  # below the review threshold: queued, not remembered
    )


async def test_review_approve_and_reject(slack: SlackHttp, core: Any) -> None:
    await core.remember_triple(CHAT, doubtful("billing"))
    await core.remember_triple(CHAT, doubtful("ledger"))
    assert len(await core.pending(CHAT)) == 2

    (queue,) = await slack.command("review")
    assert queue["response_type"] == "ephemeral"
    approvals = named(queue, ACTION_REVIEW_APPROVE)
    rejections = named(queue, ACTION_REVIEW_REJECT)
    assert len(approvals) == len(rejections) == 2
    assert "billing" in all_text(queue)

    approve = review_item(queue, "billing")[ACTION_REVIEW_APPROVE]

    (after_approve,) = await slack.action(press(approve))
    assert after_approve["replace_original"] is True
    assert "billing" in await entity_names(core, CHAT)
    remaining = named(after_approve, ACTION_REVIEW_REJECT)
    assert len(remaining) == 1

    (after_reject,) = await slack.action(press(remaining[0]))
    assert named(after_reject, ACTION_REVIEW_REJECT) == []
    assert await core.pending(CHAT) == []
    assert "ledger" not in await entity_names(core, CHAT)

    (again,) = await slack.action(press(remaining[0]))  # a stale button: already reviewed
    assert "already" in all_text(again)


async def test_in_a_channel_only_a_workspace_admin_erases(
    slack: SlackHttp, core: Any, fake_slack: FakeSlack
) -> None:
    """A member (a client in a shared channel among them) cannot make the bot forget; in a
    direct message anyone can; an admin who lost the right before pressing is refused."""
    fake_slack.add_user("U2", "Bob")
    await slack.final("remember checkout depends on payments")
    for what in ("forget payments", "forget all"):
        (refused,) = await slack.command(what, user="U2")
        assert "Only workspace admins" in refused["text"] and not refused.get("blocks")
    assert "payments" in await entity_names(core, CHAT)

    (confirm,) = await slack.command("forget payments")  # U1, an admin, asks ...
    fake_slack.add_user("U1", "Alice", admin=False)  # ... and is one no more
    (forget,) = named(confirm, ACTION_FORGET_CONFIRM)
    (done,) = await slack.action(press(forget))
    assert "Only workspace admins" in done["text"]
    assert "payments" in await entity_names(core, CHAT)

    await slack.final("remember checkout depends on payments", channel="D9", user="U2")
    (confirm,) = await slack.command("forget payments", channel="D9", user="U2")
    (forget,) = named(confirm, ACTION_FORGET_CONFIRM)
    await slack.action(press(forget), channel="D9", user="U2")
    assert "payments" not in await entity_names(core, "slack:T1:D9")
