"""The client-question set (bench/answers.py) through the LLM path, against the fake Messages API.

The fake plays a minimal grounded model: it answers with the evidence message that shares the
most words with the question and cites it, one fact, and an id that is not in the data. What
is checked is the LLM path's contract, question by question: the model is called whenever there
is evidence of either kind, in the question's language, with the facts and the evidence
messages (author and date included); only citations of data it was given survive; and the data
it gets holds the expected answer for most questions (what the model needs to answer right).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tests.llm.fake_anthropic as fa
from bench.answers import load_questions, make_core, tell_knowledge_base
from core.language import key_tokens
from core.llm.prompts import language_name
from core.ports import Embedder
from core.quote import REPLACED
from tests.llm.conftest import MakeLlm

_DATA = re.compile(r"<data>\n(.*?)\n</data>", re.S)
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)


def _payload(body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    turn = body["messages"][0]["content"]
    data = json.loads(_DATA.search(turn).group(1))  # type: ignore[union-attr]
    question = json.loads(_QUESTION.search(turn).group(1))["text"]  # type: ignore[union-attr]
    return data, question


def stand_in_model(body: dict[str, Any]) -> fa.Reply:
    data, question = _payload(body)
    words = set(key_tokens(question))
    said = max(
        data["evidence"],
        key=lambda m: len(words & set(key_tokens(m["said"]))),
        default=None,
    )
    parts = []
    if said is not None:
        parts.append(f"{said['said']} [m:{said['message']}]")
    if data["facts"]:
        f = data["facts"][0]
        parts.append(f"{f['subject']} {f['predicate']} {f['object']} [f:{f['id']}]")
    return fa.text(" ".join(parts) + " [m:INVENTED] [f:INVENTED]")


async def test_every_client_question_goes_to_the_llm_with_facts_and_messages(
    tmp_path: Path, real_embedder: Embedder, make_llm: MakeLlm, fake: fa.FakeAnthropic
) -> None:
    offline = make_core(tmp_path, real_embedder)  # the team's messages, extracted offline
    await tell_knowledge_base(offline)
    await offline.close()
    core = make_core(tmp_path, real_embedder, llm=make_llm())
    fake.responder = stand_in_model
    questions = load_questions()
    holds_value = 0
    try:
        for q in questions:
            before = len(fake.requests)
            answer = await core.ask("lumio-clients", q.question)
            assert len(fake.requests) == before + 1, q.question  # called: evidence exists
            body = fake.requests[-1].body
            data, asked = _payload(body)
            assert asked == q.question
            assert language_name(q.lang) in body["messages"][0]["content"], q.question
            assert data["evidence"], q.question
            # every evidence message carries its author and date: "Ana Souza (2026-11-02): ..."
            assert all(re.match(r".+ \(\d{4}-\d{2}-\d{2}\): ", m["said"]) for m in data["evidence"])
            assert answer.model == "claude-sonnet-test"
            assert "INVENTED" not in answer.answer and "[m:" in answer.answer
            sent = json.dumps(data, ensure_ascii=False).casefold()
            holds_value += any(e.casefold() in sent for e in q.expect) or q.match == "start"
    finally:
        await core.close()
    # the model gets what it needs to answer: the expected value is in the data it was sent
    assert holds_value / len(questions) >= 0.9, holds_value


async def test_the_model_is_told_which_evidence_a_later_message_replaced(
    tmp_path: Path, real_embedder: Embedder, make_llm: MakeLlm, fake: fa.FakeAnthropic
) -> None:
    """ "Ann works at Acme", then "Ann works at Globex": both messages are evidence for "where
    does Ann work?", and the model is told the first one no longer holds."""
    offline = make_core(tmp_path, real_embedder)
    await offline.remember(
        "c", author="Bob", text="Ann works at Acme", ts=datetime(2026, 11, 2, tzinfo=UTC)
    )
    await offline.remember(
        "c", author="Bob", text="Ann works at Globex", ts=datetime(2026, 11, 5, tzinfo=UTC)
    )
    await offline.close()
    core = make_core(tmp_path, real_embedder, llm=make_llm())
    fake.responder = stand_in_model
    await core.ask("c", "where does Ann work?")
    await core.close()
    data, _ = _payload(fake.requests[-1].body)
    marked = {m["said"].split(": ", 1)[1]: m["said"].endswith(REPLACED) for m in data["evidence"]}
    assert marked == {f"Ann works at Acme{REPLACED}": True, "Ann works at Globex": False}
    assert REPLACED.strip() in fake.requests[-1].body["system"][0]["text"]
