"""Hostile and repeated requests (issue 12): nothing unverified is acted on, nothing twice.

Everything goes over real HTTP into the real Bolt app; the fake Slack records every outbound
call the bot makes (Web API methods and response_url posts), so "no outbound call" is checked
on what actually left the process.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import urlencode

import aiohttp
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.slack.app import build_slack_app
from bot.slack.verify import SeenDeliveries, delivery_key, parse_payload, signature_ok
from tests.slack.conftest import SECRET, SlackHttp, signed_headers, slack_settings
from tests.slack.fake_slack_api import BOT_USER_ID, TEAM_ID, FakeSlack
from tests.slack.test_messages import Events


async def raw_post(url: str, body: bytes, headers: dict[str, str]) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, data=body, headers=headers) as r,
    ):
        return r.status


def hostile_command(fake: FakeSlack) -> str:
    """A /kb command whose response_url and channel are the attacker's choice."""
    return urlencode(
        {
            "team_id": TEAM_ID,
            "channel_id": "CVICTIM",
            "user_id": "U666",
            "command": "/kb",
            "text": "ask anything",
            "response_url": fake.response_url("attacker"),
            "trigger_id": "9.9.9",
        }
    )


async def nothing_left_the_bot(fake: FakeSlack) -> None:
    await asyncio.sleep(0.5)  # Bolt answers after acking: give a wrong reply time to show up
    assert fake.calls == []
    assert fake.responses == []


async def test_non_numeric_timestamp_gets_401_and_no_outbound_call(
    slack: SlackHttp, fake_slack: FakeSlack
) -> None:
    body = hostile_command(fake_slack)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Slack-Signature": "v0=00",
        "X-Slack-Request-Timestamp": "abc",
    }
    assert await raw_post(slack.url, body.encode(), headers) == 401
    await nothing_left_the_bot(fake_slack)


async def test_malformed_event_headers_get_401(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    event = {"type": "event_callback", "team_id": TEAM_ID, "event_id": "EvX"}
    event["event"] = {
        "type": "message",
        "channel": "CVICTIM",
        "user": "U6",
        "text": "hi",
        "ts": "1",
    }
    body = json.dumps(event).encode()
    cases: list[dict[str, str]] = [
        {},  # no signature at all
        {"X-Slack-Request-Timestamp": "", "X-Slack-Signature": ""},
        {"X-Slack-Request-Timestamp": "1e9", "X-Slack-Signature": "v0=00"},
        {"X-Slack-Request-Timestamp": "٣٣٣", "X-Slack-Signature": "v0=00"},  # non-ASCII digits
        {"X-Slack-Request-Timestamp": "9" * 40, "X-Slack-Signature": "v0=00"},
        {**signed_headers(body.decode()), "X-Slack-Signature": "v1=whatever"},
    ]
    for headers in cases:
        status = await raw_post(slack.url, body, {"Content-Type": "application/json", **headers})
        assert status == 401, headers
    await nothing_left_the_bot(fake_slack)


async def test_signed_but_malformed_bodies_get_400(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    for body, content_type in [
        ('{"type": "event_callback", ', "application/json"),
        ("payload=%7Bnot-json", "application/x-www-form-urlencoded"),
        ("[1, 2, 3]", "application/json"),
    ]:
        assert await slack.post(body, content_type) == (400, "malformed body")
    not_utf8 = b"\xff\xfe{}"
    stamp = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + not_utf8, hashlib.sha256)
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
    }
    assert await raw_post(slack.url, not_utf8, headers) == 400
    await nothing_left_the_bot(fake_slack)


async def test_error_handler_does_not_answer_a_request_bolt_could_not_verify(
    core: Any, fake_slack: FakeSlack
) -> None:
    """Defence in depth: the hostile request dispatched straight into Bolt (no HTTP check)."""
    app = build_slack_app(core, slack_settings(fake_slack))
    body = hostile_command(fake_slack)
    request = AsyncBoltRequest(
        body=body,
        headers={
            "content-type": "application/x-www-form-urlencoded",
            "x-slack-signature": "v0=00",
            "x-slack-request-timestamp": "abc",
        },
    )
    response = await app.async_dispatch(request)
    assert response.status >= 400
    await nothing_left_the_bot(fake_slack)


async def test_a_retried_event_is_answered_once(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    event = Events().dm("what do you know about checkout?")
    body = json.dumps(
        {
            "team_id": TEAM_ID,
            "api_app_id": "A1",
            "event": event,
            "type": "event_callback",
            "event_id": "EvRetried",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
        }
    )
    assert await slack.post(body, "application/json") == (200, "")
    await fake_slack.wait_for(lambda: fake_slack.api("chat.postMessage"))
    for retry in ("1", "2"):  # Slack's retries carry the same event_id (and a new signature)
        headers = {"Content-Type": "application/json", "X-Slack-Retry-Num": retry}
        headers.update(signed_headers(body))
        assert await raw_post(slack.url, body.encode(), headers) == 200
    await asyncio.sleep(1.0)
    replies = [c for c in fake_slack.api("chat.postMessage") if c.get("channel") == "D1"]
    assert len(replies) == 1


async def test_a_replayed_command_is_answered_once(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    body, key = slack.command_body("help")
    for _ in range(3):
        status, _ = await slack.post(body, "application/x-www-form-urlencoded")
        assert status == 200
    await fake_slack.wait_for(lambda: fake_slack.responses_to(key))
    await asyncio.sleep(1.0)
    assert len(fake_slack.responses_to(key)) == 1


def test_signature_check_is_total() -> None:
    now = 1_700_000_000.0
    body = b'{"a": 1}'
    stamp = str(int(now))
    good = "v0=" + hmac.new(b"s", f"v0:{stamp}:".encode() + body, hashlib.sha256).hexdigest()
    ok = {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": good}
    assert signature_ok("s", ok, body, now=lambda: now)
    assert not signature_ok("s", ok, body + b" ", now=lambda: now)
    assert not signature_ok("", ok, body, now=lambda: now)  # no secret: never valid
    assert not signature_ok("s", ok, body, now=lambda: now + 301)  # replay window
    assert not signature_ok("s", {**ok, "X-Slack-Signature": "v0=é"}, body, now=lambda: now)


def test_payload_parsing_and_delivery_keys() -> None:
    assert parse_payload('{"event_id": "Ev1"}', "application/json") == {"event_id": "Ev1"}
    assert parse_payload("not json", "application/json") is None
    assert parse_payload("[" * 100_000, "application/json") is None  # deep nesting
    form = parse_payload("command=%2Fkb&trigger_id=1.2", "application/x-www-form-urlencoded")
    assert form is not None and delivery_key(form) == "trigger:1.2"
    assert delivery_key({"event_id": "Ev1", "trigger_id": "x"}) == "event:Ev1"
    assert delivery_key({"type": "url_verification", "challenge": "c"}) is None


def test_seen_deliveries_forget_after_ttl_and_stay_bounded() -> None:
    seen = SeenDeliveries(ttl_s=10, max_keys=3)
    assert seen.first_time("a", now=0) and not seen.first_time("a", now=5)
    assert seen.first_time("a", now=20)  # expired: a late retry is handled again
    for key in "bcde":
        assert seen.first_time(key, now=21)
    assert seen.first_time("b", now=22)  # evicted to stay within max_keys
