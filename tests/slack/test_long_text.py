"""Long answers arrive whole: split across blocks and messages, in order, within Slack's limits.

The answer comes from the real AnthropicLlm talking to the fake Messages API, so the text is
exactly what a model sent; it then goes through the real Bolt app to the fake Slack.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import tests.llm.fake_anthropic as fa
from bot.slack.blocks import MAX_BLOCKS, MESSAGE_TEXT_BUDGET, TEXT_LIMIT, escape
from core.embedding import HashEmbedder
from core.llm.anthropic_llm import AnthropicLlm
from core.models import TripleIn
from core.service import Core
from core.store.pool import StorePool
from ontology import Ontology
from tests.slack.conftest import SlackHttp, serve
from tests.slack.fake_slack_api import FakeSlack

QUESTION = "what does checkout depend on?"
DM_TS = "1700000200.000001"


@pytest.fixture
async def anthropic() -> AsyncIterator[fa.FakeAnthropic]:
    server = fa.FakeAnthropic()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def llm_core(
    tmp_path: Path, ontology: Ontology, anthropic: fa.FakeAnthropic
) -> AsyncIterator[Core]:
    llm = AnthropicLlm(
        api_key="test",
        ontology=ontology,
        answer_model="claude-sonnet-test",
        extract_model="claude-haiku-test",
        max_tokens=512,
        timeout_s=5.0,
        max_retries=0,
        base_url=anthropic.url,
        calls_per_minute=600,
    )
    emb = HashEmbedder()
    pool = StorePool(tmp_path / "data", dim=emb.dim, model_name=emb.model_name, max_open=8)
    core = Core(pool=pool, embedder=emb, ontology=ontology, llm=llm)
    yield core
    await core.close()
    await llm.aclose()


@pytest.fixture
async def slack(llm_core: Core, fake_slack: FakeSlack) -> AsyncIterator[SlackHttp]:
    http, runner = await serve(llm_core, fake_slack)
    yield http
    await runner.cleanup()


async def teach(core: Core, chat: str) -> None:
    fact = TripleIn(
        subject="checkout",
        subject_kind="service",
        predicate="DEPENDS_ON",
        object="payments",
        object_kind="service",
    )
    await core.remember_triple(chat, fact)


def one_long_line() -> str:
    words = " ".join(f"Step {i} of the R&D <checkout> flow calls payments." for i in range(400))
    return words[:10_000].rstrip()


def many_lines() -> str:
    return "\n".join(
        f"• service {i:03d} depends on payments & antifraud, audited." for i in range(400)
    )


def texts_of(message: dict[str, Any]) -> list[str]:
    """Every text Slack counts against a message's limits: sections and context elements."""
    out: list[str] = []
    for block in message.get("blocks") or []:
        if block["type"] == "section":
            out.append(block["text"]["text"])
        out.extend(e["text"] for e in block.get("elements", []) if e.get("type") == "mrkdwn")
    return out


def section_text(messages: list[dict[str, Any]], sep: str) -> str:
    return sep.join(
        b["text"]["text"] for m in messages for b in m.get("blocks") or [] if b["type"] == "section"
    )


def assert_within_limits(messages: list[dict[str, Any]]) -> None:
    for message in messages:
        assert message["text"]  # every message has its own notification text
        assert 0 < len(message["blocks"]) <= MAX_BLOCKS
        texts = texts_of(message)
        assert all(0 < len(x) <= TEXT_LIMIT for x in texts)
        assert sum(map(len, texts)) <= MESSAGE_TEXT_BUDGET


def finished(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` once the answer's last block (the trace hint) is among them, else []."""
    return messages if any("/kb why" in x for m in messages for x in texts_of(m)) else []


async def dm_answer(
    slack: SlackHttp, fake: FakeSlack, core: Core, anthropic: fa.FakeAnthropic, answer: str
) -> list[dict[str, Any]]:
    """Ask in a DM; return every message the bot posted in that thread, once the last is in."""
    await teach(core, "slack:T1:D1")
    anthropic.default = fa.text(answer)
    assert await slack.event(dm(QUESTION)) == 200
    return await fake.wait_for(lambda: finished(thread(fake)))


def dm(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "channel_type": "im",
        "channel": "D1",
        "user": "U1",
        "text": text,
        "ts": DM_TS,
    }


def thread(fake: FakeSlack) -> list[dict[str, Any]]:
    return [p for p in fake.api("chat.postMessage") if p.get("thread_ts") == DM_TS]


async def test_a_10000_character_line_arrives_whole_in_the_thread(
    slack: SlackHttp, fake_slack: FakeSlack, llm_core: Core, anthropic: fa.FakeAnthropic
) -> None:
    answer = one_long_line()
    assert len(answer) == 10_000
    messages = await dm_answer(slack, fake_slack, llm_core, anthropic, answer)
    assert len(messages) >= 2  # more than one message holds: follow-ups in the same thread
    assert {m["channel"] for m in messages} == {"D1"}
    assert_within_limits(messages)
    assert section_text(messages, " ") == escape(answer)


async def test_many_lines_arrive_whole_and_in_order(
    slack: SlackHttp, fake_slack: FakeSlack, llm_core: Core, anthropic: fa.FakeAnthropic
) -> None:
    answer = many_lines()
    messages = await dm_answer(slack, fake_slack, llm_core, anthropic, answer)
    assert len(messages) >= 3
    assert_within_limits(messages)
    assert section_text(messages, "\n").split("\n") == escape(answer).split("\n")


async def test_a_slow_long_answer_fills_the_progress_note_then_follows_up(
    llm_core: Core, fake_slack: FakeSlack, anthropic: fa.FakeAnthropic
) -> None:
    await teach(llm_core, "slack:T1:D1")
    answer = many_lines()
    anthropic.default = fa.text(answer)
    http, runner = await serve(llm_core, fake_slack, progress_after=0)
    try:
        assert await http.event(dm(QUESTION)) == 200

        def answered() -> list[dict[str, Any]]:
            return finished(fake_slack.api("chat.update") + thread(fake_slack))

        await fake_slack.wait_for(answered)
    finally:
        await runner.cleanup()
    working, *follow_ups = thread(fake_slack)
    assert ":hourglass" in working["text"]
    (first,) = fake_slack.api("chat.update")  # the note became the answer's first message
    assert first["channel"] == "D1"
    messages = [first, *follow_ups]
    assert len(messages) >= 3
    assert_within_limits(messages)
    assert section_text(messages, "\n").split("\n") == escape(answer).split("\n")


async def test_a_long_command_answer_arrives_whole_on_the_response_url(
    slack: SlackHttp, fake_slack: FakeSlack, llm_core: Core, anthropic: fa.FakeAnthropic
) -> None:
    await teach(llm_core, "slack:T1:C1")
    answer = many_lines()
    anthropic.default = fa.text(answer)
    body, key = slack.command_body(f"ask {QUESTION}")
    status, _ = await slack.post(body, "application/x-www-form-urlencoded")
    assert status == 200

    def answered() -> list[dict[str, Any]]:
        replies = [r for r in fake_slack.responses_to(key) if ":hourglass" not in r["text"]]
        return replies if any("/kb why" in x for r in replies for x in texts_of(r)) else []

    replies = await fake_slack.wait_for(answered)
    assert 2 <= len(replies) <= 4  # a response_url takes five messages
    assert {r["response_type"] for r in replies} == {"in_channel"}
    assert_within_limits(replies)
    assert section_text(replies, "\n").split("\n") == escape(answer).split("\n")
    assert QUESTION in texts_of(replies[0])[0]  # "<@U1> asked: ..." comes first
