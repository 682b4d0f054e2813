"""The slash command over real, signed HTTP into the real Bolt app; replies to the fake Slack."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.slack.conftest import SlackHttp, all_text, serve
from tests.slack.fake_slack_api import FakeSlack, at_least

PATH = "checkout → payments → antifraud → encryption at rest"
STATEMENTS = (
    "checkout depends on payments",
    "payments depends on antifraud",
    "antifraud requires encryption at rest",
)
QUESTION = "which policy applies to checkout?"


async def teach(slack: SlackHttp, **where: str) -> None:
    for statement in STATEMENTS:
        await slack.final(f"remember {statement}", **where)


async def test_badly_signed_request_is_rejected(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    body, key = slack.command_body("help")
    status, _ = await slack.post(body, "application/x-www-form-urlencoded", secret="wrong")
    assert status == 401
    assert fake_slack.responses_to(key) == []


async def test_stale_request_is_rejected(slack: SlackHttp, fake_slack: FakeSlack) -> None:
    body, key = slack.command_body("help")
    stale = int(time.time()) - 6 * 60  # Slack's replay window is five minutes
    status, _ = await slack.post(body, "application/x-www-form-urlencoded", ts=stale)
    assert status == 401
    assert fake_slack.responses_to(key) == []


async def test_ask_answers_with_the_path(slack: SlackHttp) -> None:
    await teach(slack)
    answer = await slack.final(f"ask {QUESTION}")
    assert answer["response_type"] == "in_channel"
    assert PATH in answer["text"]  # the plain-text fallback
    blocks = answer["blocks"]
    answer_at = next(i for i, b in enumerate(blocks) if b["type"] == "section")
    path_blocks = [b for b in blocks[answer_at + 1 :] if b["type"] == "context"]
    assert any(PATH in e["text"] for b in path_blocks for e in b["elements"])


async def test_memory_is_isolated_per_channel_and_workspace(slack: SlackHttp) -> None:
    await teach(slack, channel="C1")
    here = await slack.final(f"ask {QUESTION}", channel="C1")
    other_channel = await slack.final(f"ask {QUESTION}", channel="C2")
    other_team = await slack.final(f"ask {QUESTION}", channel="C1", team="T2")
    assert PATH in all_text(here)
    for answer in (other_channel, other_team):
        text = all_text(answer)
        assert "payments" not in text
        assert "encryption" not in text


async def test_remember_reply_is_public_and_quotes_the_author(slack: SlackHttp) -> None:
    reply = await slack.final("remember checkout depends on payments", user="U42")
    assert reply["response_type"] == "in_channel"
    assert "<@U42>" in all_text(reply)


async def test_remember_takes_the_pipe_triple_syntax(slack: SlackHttp) -> None:
    reply = await slack.final("remember Acme Ltda | company | BELONGS_TO | Acme Holding | company")
    assert "Acme Ltda BELONGS_TO Acme Holding" in all_text(reply)
    facts = await slack.final("facts Acme Ltda")
    assert "Acme Holding" in all_text(facts)
    (usage,) = await slack.command("remember Acme | company | BELONGS_TO")
    assert usage["response_type"] == "ephemeral"
    assert "| kind |" in usage["text"]


async def test_help_and_unknown_subcommand(slack: SlackHttp) -> None:
    (help_reply,) = await slack.command("help")
    assert help_reply["response_type"] == "ephemeral"
    for sub in ("ask", "remember", "why", "worlds", "facts", "forget", "review"):
        assert f"/kb {sub}" in help_reply["text"]
    (unknown,) = await slack.command("frobnicate now")
    assert "frobnicate" in unknown["text"]
    assert "/kb ask" in unknown["text"]
    (empty,) = await slack.command("")
    assert "/kb ask" in empty["text"]


async def test_why_worlds_and_facts(slack: SlackHttp) -> None:
    (no_trace,) = await slack.command("why")
    assert no_trace["response_type"] == "ephemeral"
    await teach(slack)
    await slack.final(f"ask {QUESTION}")
    why = await slack.final("why")
    assert "checkout" in all_text(why)
    worlds = await slack.final("worlds")
    assert worlds["response_type"] == "ephemeral"
    assert worlds["text"]
    facts = await slack.final("facts payments")
    assert "antifraud" in all_text(facts)


async def test_slow_answers_show_progress_first(core: Any, fake_slack: FakeSlack) -> None:
    http, runner = await serve(core, fake_slack, progress_after=0)
    try:
        body, key = http.command_body(f"ask {QUESTION}")
        status, text = await http.post(body, "application/x-www-form-urlencoded")
        assert status == 200
        assert text == ""  # acked at once, empty: the answer comes on the response_url
        replies = await fake_slack.wait_for(lambda: at_least(2, fake_slack.responses_to(key)))
        assert ":hourglass" in replies[0]["text"]
        assert replies[0]["response_type"] == "ephemeral"
        assert replies[-1]["response_type"] == "in_channel"
    finally:
        await runner.cleanup()


async def test_usage_for_missing_arguments(slack: SlackHttp) -> None:
    for sub in ("ask", "remember", "forget"):
        (reply,) = await slack.command(sub)
        assert f"/kb {sub}" in reply["text"]
        assert reply["response_type"] == "ephemeral"


async def test_why_with_an_unknown_trace_id(slack: SlackHttp) -> None:
    (reply,) = await slack.command("why t_nope")
    assert "t_nope" in reply["text"]


async def test_request_url_verification_challenge(slack: SlackHttp) -> None:
    # Slack checks the Request URL with a signed challenge before sending any event
    body = json.dumps({"token": "legacy", "challenge": "abc123", "type": "url_verification"})
    status, text = await slack.post(body, "application/json")
    assert status == 200
    assert "abc123" in text


async def test_a_command_with_no_words_answers_in_the_channels_language(slack: SlackHttp) -> None:
    """ "/kb worlds" has no words to tell a language by: it answered in English in a channel
    that speaks Portuguese; it now follows the channel's recent messages."""
    for statement in ("o checkout depende de pagamentos", "pagamentos depende do antifraude"):
        await slack.final(f"remember {statement}", channel="CPT")
    worlds = await slack.final("worlds", channel="CPT")
    assert "maturidade" in all_text(worlds), all_text(worlds)
    (empty,) = await slack.command("worlds", channel="CNEW")  # nothing said: English, no chat
    assert "No worlds yet" in all_text(empty), all_text(empty)
