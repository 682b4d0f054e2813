"""Extraction: a forced, schema-constrained tool call; output validated against the ontology."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from core.errors import LlmUnavailable
from core.llm.anthropic_llm import AnthropicLlm
from core.llm.schema import TOOL_NAME
from core.models import REVIEW_THRESHOLD, TripleIn
from ontology import Ontology
from tests.llm import fake_anthropic as fa
from tests.llm.conftest import MakeLlm
from tests.llm.fake_anthropic import FakeAnthropic

TEXT = "checkout depends on payments; maybe payments also uses Redis"


def triple(s: str, sk: str, p: str, o: str, ok: str, c: float, **extra: Any) -> dict[str, Any]:
    return {
        "subject": s,
        "subject_kind": sk,
        "predicate": p,
        "object": o,
        "object_kind": ok,
        "confidence": c,
        "subject_ident": None,
        "object_ident": None,
        **extra,
    }


async def extract(llm: AnthropicLlm, text: str = TEXT) -> list[TripleIn]:
    return await llm.extract(
        text=text,
        author="alice",
        world_topic="payments platform",
        known_entities=["checkout", "payments", "antifraud"],
    )


async def test_message_yields_validated_triples(
    fake: FakeAnthropic, make_llm: MakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    fake.queue(
        fa.tool_use(
            TOOL_NAME,
            {
                "triples": [
                    triple("checkout", "service", "DEPENDS_ON", "payments", "service", 0.95),
                    triple("payments", "service", "USES", "Redis", "concept", 0.5),
                    # a phantom predicate (not in the manifest) must never come back
                    triple("checkout", "service", "LOVES", "payments", "service", 0.9),
                    # a real predicate with kinds its domain does not allow
                    triple("alice", "person", "DEPENDS_ON", "payments", "service", 0.9),
                    # an unknown kind
                    triple("payments", "galaxy", "USES", "Redis", "concept", 0.9),
                    # wrong shapes: confidence out of range, as a string, missing subject
                    triple("checkout", "service", "USES", "Kafka", "concept", 1.7),
                    triple("checkout", "service", "USES", "Kafka", "concept", "high"),  # type: ignore[arg-type]
                    {"predicate": "USES", "object": "Kafka"},
                    "not an object",
                ]
            },
        )
    )
    caplog.set_level(logging.WARNING, logger="core.llm")
    got = await extract(make_llm())
    assert [(t.subject, t.predicate, t.object, t.confidence) for t in got] == [
        ("checkout", "DEPENDS_ON", "payments", 0.95),
        ("payments", "USES", "Redis", 0.5),
    ]
    low = got[1]
    assert low.confidence == 0.5 < REVIEW_THRESHOLD  # the core sends it to review
    assert all(t.predicate != "LOVES" for t in got)
    dropped = [r for r in caplog.records if "dropped LLM triple" in r.getMessage()]
    assert len(dropped) == 7
    assert any("LOVES" in r.getMessage() for r in dropped)


async def test_request_is_forced_cached_and_carries_context(
    fake: FakeAnthropic, make_llm: MakeLlm, ontology: Ontology
) -> None:
    fake.queue(fa.tool_use(TOOL_NAME, {"triples": []}))
    assert await extract(make_llm()) == []
    body = fake.requests[0].body
    assert body["model"] == "claude-haiku-test"  # the cheaper model extracts
    assert body["tool_choice"] == {
        "type": "tool",
        "name": TOOL_NAME,
        "disable_parallel_tool_use": True,
    }
    system = body["system"]
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    assert "DEPENDS_ON" in system[-1]["text"]  # the ontology is in the cached prompt
    (tool,) = body["tools"]
    assert tool["name"] == TOOL_NAME
    assert tool["strict"] is True
    item = tool["input_schema"]["properties"]["triples"]["items"]
    assert set(item["properties"]["predicate"]["enum"]) == set(ontology.predicates)
    assert set(item["properties"]["subject_kind"]["enum"]) == set(ontology.kinds)
    assert set(item["properties"]["object_kind"]["enum"]) == set(ontology.kinds)
    assert item["properties"]["confidence"]["type"] == "number"
    assert "0.0 to 1.0" in item["properties"]["confidence"]["description"]
    assert {"subject_ident", "object_ident"} <= set(item["properties"])
    (turn,) = body["messages"]
    assert turn["role"] == "user"
    user = turn["content"]
    assert "payments platform" in user
    for name in ("checkout", "payments", "antifraud"):
        assert json.dumps(name) in user.split("</context>")[0]
    message = user.split("<message>")[1].split("</message>")[0]
    assert json.loads(message) == {"author": "alice", "text": TEXT}


async def test_identifiers_and_case_are_normalised(fake: FakeAnthropic, make_llm: MakeLlm) -> None:
    fake.queue(
        fa.tool_use(
            TOOL_NAME,
            {
                "triples": [
                    triple(
                        "Ana",
                        "Person",
                        "decides_for",
                        "Acme",
                        "company",
                        1,
                        subject_ident=" ana@acme.com ",
                        object_ident="",
                    ),
                    # the same fact twice is one fact
                    triple("Ana", "person", "DECIDES_FOR", "acme", "company", 0.9),
                ]
            },
        )
    )
    (got,) = await extract(make_llm(), "Ana (ana@acme.com) decide pela Acme")
    assert (got.subject_kind, got.predicate, got.confidence) == ("person", "DECIDES_FOR", 1.0)
    assert (got.subject_ident, got.object_ident) == ("ana@acme.com", None)


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(fa.garbage(), id="html-garbage"),
        pytest.param(fa.truncated_json(), id="truncated-json-body"),
        pytest.param(fa.Reply(body={"unexpected": True}), id="json-not-a-message"),
        pytest.param(fa.text("Sure! Here are the facts: ..."), id="no-tool-call"),
        pytest.param(fa.tool_use(TOOL_NAME, "just a string"), id="tool-input-not-object"),
        pytest.param(fa.tool_use(TOOL_NAME, {"facts": []}), id="tool-input-wrong-key"),
        pytest.param(
            fa.tool_use(
                TOOL_NAME,
                {"triples": [triple("a", "service", "DEPENDS_ON", "b", "service", 0.9)]},
                stop_reason="max_tokens",
            ),
            id="cut-at-max-tokens",
        ),
        pytest.param(fa.text("no", stop_reason="refusal"), id="refusal"),
    ],
)
async def test_malformed_output_raises_unavailable(
    fake: FakeAnthropic, make_llm: MakeLlm, reply: fa.Reply
) -> None:
    fake.default = reply
    with pytest.raises(LlmUnavailable):
        await extract(make_llm())
    assert len(fake.requests) == 1  # malformed output is not retried: the caller falls back
