"""Channel messages not addressed to the bot: remembered like a Telegram group's, never answered.

Slack delivers every channel message as a `message` event (message.channels / message.groups);
one that mentions the bot also comes as `app_mention` and is answered there, once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from tests.slack.conftest import SlackHttp
from tests.slack.fake_slack_api import BOT_USER_ID, FakeSlack

CHAT = "slack:T1:C1"
_n = iter(range(1, 10_000))


def channel_message(text: str, *, channel: str = "C1", kind: str = "channel") -> dict[str, Any]:
    ts = f"1700000300.{next(_n):06d}"
    return {
        "type": "message",
        "channel_type": kind,
        "channel": channel,
        "user": "U7",
        "text": text,
        "ts": ts,
        "event_ts": ts,
    }


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> None:
    """Wait until `check()` holds: overheard messages leave no trace at the fake Slack."""
    async with asyncio.timeout(within):
        while not await check():  # noqa: ASYNC110 - the core has no event to wait on
            await asyncio.sleep(0.02)


async def messages_in(core: Any, chat: str) -> int:
    return int((await core.stats(chat))["messages"])


async def _has(core: Any, chat: str, n: int) -> bool:
    return await messages_in(core, chat) >= n


async def posted_after_a_marker(slack: SlackHttp, fake: FakeSlack) -> list[dict[str, Any]]:
    """Everything the bot posted, once a DM sent last has been answered."""
    marker = {**channel_message("hello there", channel="D9", kind="im")}
    assert await slack.event(marker) == 200
    await fake.wait_for(
        lambda: [p for p in fake.api("chat.postMessage") if p.get("thread_ts") == marker["ts"]]
    )
    return [p for p in fake.api("chat.postMessage") if p["channel"] != "D9"]


async def test_an_unaddressed_channel_message_is_remembered_silently(
    slack: SlackHttp, fake_slack: FakeSlack, core: Any
) -> None:
    assert await slack.event(channel_message("checkout depends on payments")) == 200
    await eventually(lambda: _has(core, CHAT, 1))
    facts = await core.facts(CHAT)
    assert [(f.subject, f.predicate, f.object) for f in facts] == [
        ("checkout", "DEPENDS_ON", "payments")
    ]
    assert await posted_after_a_marker(slack, fake_slack) == []


async def test_private_channels_and_questions_are_remembered_not_answered(
    slack: SlackHttp, fake_slack: FakeSlack, core: Any
) -> None:
    await slack.event(
        channel_message("which policy applies to checkout?", channel="G1", kind="group")
    )
    await eventually(lambda: _has(core, "slack:T1:G1", 1))
    assert await posted_after_a_marker(slack, fake_slack) == []


async def test_a_mention_is_answered_once_not_also_overheard(
    slack: SlackHttp, fake_slack: FakeSlack, core: Any
) -> None:
    message = channel_message(f"<@{BOT_USER_ID}> checkout depends on payments")
    # Slack sends both; the message event usually first
    assert await slack.event(message) == 200
    assert await slack.event({**message, "type": "app_mention"}) == 200
    (reply,) = await fake_slack.wait_for(
        lambda: [
            p for p in fake_slack.api("chat.postMessage") if p.get("thread_ts") == message["ts"]
        ]
    )
    assert "checkout DEPENDS_ON payments" in reply["text"]
    assert await posted_after_a_marker(slack, fake_slack) == [reply]
    assert await messages_in(core, CHAT) == 1


async def test_an_overheard_message_too_long_to_remember_is_dropped_quietly(
    slack: SlackHttp, fake_slack: FakeSlack, core: Any
) -> None:
    await slack.event(channel_message("word " * 5000))  # beyond the core's 8000 characters
    await slack.event(channel_message("checkout depends on payments"))
    await eventually(lambda: _has(core, CHAT, 1))
    assert await posted_after_a_marker(slack, fake_slack) == []  # no apology in the channel
    assert await messages_in(core, CHAT) == 1


async def test_a_thread_reply_is_remembered_as_the_reply_to_its_parent(
    slack: SlackHttp, core: Any
) -> None:
    """A reply in a thread answers the thread's parent, whatever the channel said between:
    the front-end passes the parent's ts (IncomingMessage.reply_to) and the chat keeps the
    link (core/replies.py reads it)."""
    asked = {**channel_message("who approves the backup invoices?"), "user": "U2"}
    between = {**channel_message("the van is back"), "user": "U3"}
    reply = {**channel_message("Joana approves them"), "user": "U4", "thread_ts": asked["ts"]}
    for event in (asked, between, reply):
        assert await slack.event(event) == 200
        await eventually(lambda n=event: _stored(core, n["ts"]))
    links = await core.pool.run(CHAT, lambda s: dict(s.recall.replied_to))
    assert links == {reply["ts"]: asked["ts"]}


async def _stored(core: Any, message_id: str) -> bool:
    return bool(await core.pool.run(CHAT, lambda s: message_id in s.message_ids))
