"""@-mentions in channels and DMs, signed events over HTTP; replies land in threads."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from tests.slack.conftest import SlackHttp, all_text, serve
from tests.slack.fake_slack_api import BOT_USER_ID, FakeSlack, at_least

PATH = "checkout → payments → antifraud → encryption at rest"
STATEMENTS = (
    "checkout depends on payments",
    "payments depends on antifraud",
    "antifraud requires encryption at rest",
)
QUESTION = "which policy applies to checkout?"


class Events:
    """Builds message events with increasing timestamps."""

    def __init__(self) -> None:
        self.n = 0

    def ts(self) -> str:
        self.n += 1
        return f"1700000100.{self.n:06d}"

    def mention(self, text: str, *, channel: str = "C1", **extra: Any) -> dict[str, Any]:
        ts = self.ts()
        return {
            "type": "app_mention",
            "user": "U1",
            "text": f"<@{BOT_USER_ID}> {text}",
            "ts": ts,
            "event_ts": ts,
            "channel": channel,
            **extra,
        }

    def dm(self, text: str, *, channel: str = "D1", **extra: Any) -> dict[str, Any]:
        ts = self.ts()
        return {
            "type": "message",
            "channel_type": "im",
            "user": "U1",
            "text": text,
            "ts": ts,
            "event_ts": ts,
            "channel": channel,
            **extra,
        }


async def send(slack: SlackHttp, fake: FakeSlack, event: dict[str, Any]) -> dict[str, Any]:
    """Deliver `event` and wait for the bot's new post in the thread of that message (a thread
    already holds the replies to the messages before it: waiting for any post there let the
    next message race this one, and CI once asked the question before the last statement was
    stored)."""

    def in_thread() -> list[dict[str, Any]]:
        return [p for p in fake.api("chat.postMessage") if p.get("thread_ts") == thread]

    thread = event.get("thread_ts") or event["ts"]
    before = len(in_thread())
    assert await slack.event(event) == 200
    posts = await fake.wait_for(lambda: (got := in_thread())[before:] and got)
    return posts[-1]


async def test_mentions_remember_and_answer_in_thread(
    slack: SlackHttp, fake_slack: FakeSlack
) -> None:
    events = Events()
    for statement in STATEMENTS:
        reply = await send(slack, fake_slack, events.mention(statement))
        assert reply["channel"] == "C1"
    question = events.mention(QUESTION)
    answer = await send(slack, fake_slack, question)
    assert answer["thread_ts"] == question["ts"]
    assert PATH in answer["text"]
    assert any(
        b["type"] == "context" and PATH in b["elements"][0]["text"] for b in answer["blocks"]
    )
    # the Web API calls used the bot token, against the configured base URL
    assert {c.authorization for c in fake_slack.calls} == {"Bearer xoxb-test-token"}


async def test_thread_messages_belong_to_their_channel(
    slack: SlackHttp, fake_slack: FakeSlack
) -> None:
    events = Events()
    root = events.ts()
    for statement in STATEMENTS:
        await send(slack, fake_slack, events.mention(statement, thread_ts=root))
    answer = await send(slack, fake_slack, events.mention(QUESTION))  # top level, same channel
    assert PATH in answer["text"]


async def test_direct_messages_are_their_own_chat(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    events = Events()
    for statement in STATEMENTS:
        await send(slack, fake_slack, events.dm(statement))
    answer = await send(slack, fake_slack, events.dm(QUESTION))
    assert answer["channel"] == "D1"
    assert PATH in answer["text"]
    elsewhere = await send(slack, fake_slack, events.mention(QUESTION, channel="C9"))
    assert "encryption" not in all_text(elsewhere)


async def test_edits_and_bots_are_ignored(
    slack: SlackHttp, fake_slack: FakeSlack, core: Any
) -> None:
    events = Events()
    channel = {"channel_type": "channel", "channel": "C1"}
    ignored = [
        events.dm("checkout depends on payments", subtype="message_changed"),
        events.dm("checkout depends on payments", bot_id="B2"),
        {**events.dm("checkout depends on payments", subtype="message_changed"), **channel},
        {**events.dm("checkout depends on payments", bot_id="B2"), **channel},
        {**events.dm("checkout depends on payments", user=BOT_USER_ID), **channel},
    ]
    for event in ignored:
        assert await slack.event(event) == 200
    marker = events.dm("hello there")  # processed after the ignored ones
    await send(slack, fake_slack, marker)
    assert [p["thread_ts"] for p in fake_slack.api("chat.postMessage")] == [marker["ts"]]
    assert (await core.stats("slack:T1:C1"))["messages"] == 0
    assert (await core.stats("slack:T1:D1"))["messages"] == 1  # the marker only


async def test_bare_mention_gets_a_hint(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    event = Events().mention("")
    reply = await send(slack, fake_slack, event)
    assert "/kb help" in reply["text"]


async def test_slow_answer_updates_a_progress_message(core: Any, fake_slack: FakeSlack) -> None:
    http, runner = await serve(core, fake_slack, progress_after=0)
    try:
        event = Events().mention(QUESTION)
        working = await send(http, fake_slack, event)
        assert ":hourglass" in working["text"]
        (update,) = await fake_slack.wait_for(lambda: fake_slack.api("chat.update"))
        assert update["channel"] == "C1"
        assert update["text"]
        assert ":hourglass" not in update["text"]
    finally:
        await runner.cleanup()


async def test_rate_limited_reply_is_retried(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    fake_slack.fail_next("chat.postMessage", 429)
    event = Events().mention("checkout depends on payments")
    assert await slack.event(event) == 200
    posts = await fake_slack.wait_for(lambda: at_least(2, fake_slack.api("chat.postMessage")))
    assert posts[0] == posts[1]  # the same reply, sent again after the 429


async def test_failure_apologises_and_logs_the_chat_not_the_text(
    slack: SlackHttp,
    fake_slack: FakeSlack,
    core: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("store exploded")

    monkeypatch.setattr(core, "handle_message", broken)
    secret_text = "the launch code is 0000"
    with caplog.at_level(logging.DEBUG, logger="bot.slack"):
        reply = await send(slack, fake_slack, Events().mention(secret_text))
    assert "Sorry" in reply["text"]
    assert "store exploded" not in reply["text"]
    (record,) = [r for r in caplog.records if r.name == "bot.slack" and r.exc_info]
    assert "slack:T1:C1" in record.getMessage()
    assert record.exc_info is not None
    assert "store exploded" in str(record.exc_info[1])
    assert all(secret_text not in r.getMessage() for r in caplog.records)
    assert "xoxb" not in caplog.text
    assert "test-signing-secret" not in caplog.text


async def test_a_redelivered_statement_is_answered_once(
    slack: SlackHttp, fake_slack: FakeSlack
) -> None:
    events = Events()
    statement = events.mention("checkout depends on payments")
    await send(slack, fake_slack, statement)
    assert await slack.event(statement) == 200  # Slack's retry of the same message
    await send(slack, fake_slack, events.mention("payments depends on antifraud"))
    threads = [p["thread_ts"] for p in fake_slack.api("chat.postMessage")]
    assert threads.count(statement["ts"]) == 1
