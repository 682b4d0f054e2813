"""The LLM path through the real Core: extraction into memory and review, grounded answers,
fallback to the offline path on overload, and the retry job that finishes the work later."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

import tests.llm.fake_anthropic as fa
from core.embedding import HashEmbedder
from core.llm.schema import TOOL_NAME
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology
from tests.llm.conftest import MakeLlm
from tests.llm.test_extract import triple


@pytest.fixture
async def llm_core(tmp_path: Path, ontology: Ontology, make_llm: MakeLlm) -> Any:
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    llm = make_llm(timeout_s=1.0, max_retries=1)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig(), llm=llm)
    yield core
    await pool.close()


def extraction(*items: dict[str, Any]) -> fa.Reply:
    return fa.tool_use(TOOL_NAME, {"triples": list(items)})


TOPIC = fa.text("Payments platform")  # a chat's first message founds a world: its name comes first


async def test_llm_triples_are_validated_then_stored_or_queued(
    llm_core: Core, fake: fa.FakeAnthropic
) -> None:
    fake.queue(
        TOPIC,
        extraction(
            triple("checkout", "service", "DEPENDS_ON", "payments", "service", 0.9),
            triple("checkout", "service", "LOVES", "payments", "service", 0.9),  # phantom
            triple("payments", "service", "USES", "Redis", "service", 0.5),  # review
        ),
    )
    result = await llm_core.remember("c", author="ann", text="checkout needs payments; maybe Redis")
    assert [f.predicate for f in result.stored] == ["DEPENDS_ON"]
    assert result.stored[0].sources == [result.message_id]
    assert [p.triple.object for p in result.pending] == ["Redis"]
    assert [f.predicate for f in await llm_core.facts("c")] == ["DEPENDS_ON"]
    # the extraction request used the extract model and knew nothing yet of this world
    assert fake.requests[-1].body["model"] == "claude-haiku-test"


async def test_answer_uses_the_llm_and_keeps_only_retrieved_citations(
    llm_core: Core, fake: fa.FakeAnthropic
) -> None:
    fake.queue(
        TOPIC, extraction(triple("checkout", "service", "DEPENDS_ON", "payments", "service", 0.9))
    )
    await llm_core.remember("c", author="ann", text="checkout depends on payments")
    fake.queue(fa.text("Checkout depends on payments [f:INVENTED]."))
    answer = await llm_core.ask("c", "Что нужно checkout?")
    assert answer.model == "claude-sonnet-test"
    assert answer.answer.startswith("Checkout depends on payments")
    request = fake.requests[-1].body
    assert "Russian" in str(request)
    trace = await llm_core.why("c")
    assert trace is not None and trace.model == "claude-sonnet-test"


async def test_overload_falls_back_offline_then_the_retry_job_succeeds(
    llm_core: Core, fake: fa.FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    fake.default = fa.overloaded()
    with caplog.at_level(logging.WARNING):
        result = await llm_core.remember("c", author="ann", text="checkout depends on payments")
    # stored at once by the offline extractor; nothing lost
    assert [f.object for f in result.stored] == ["payments"]
    assert "offline path" in caplog.text
    answer = await llm_core.ask("c", "What does checkout depend on?")  # LLM down: extractive
    assert answer.model == "extractive" and answer.paths == [["checkout", "payments"]]

    fake.default = fa.text("ok")
    fake.queue(extraction(triple("checkout", "service", "USES", "Kafka", "service", 0.95)))
    assert await llm_core.retry_failed_extractions("c") == 1
    objects = {f.object for f in await llm_core.facts("c")}
    assert objects == {"payments", "Kafka"}
    assert await llm_core.retry_failed_extractions("c") == 0  # done once, not again


async def test_a_merged_world_is_renamed_by_the_llm(
    tmp_path: Path, ontology: Ontology, make_llm: MakeLlm, fake: fa.FakeAnthropic
) -> None:
    from core.worlds import WorldParams

    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    every_message_alone = WorldParams(base=0.99, step=0.0, merge_similarity=-1.0)
    config = CoreConfig(world_params=every_message_alone)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=config, llm=make_llm())
    try:
        fake.queue(fa.text("Cakes"), extraction())
        await core.remember("c", author="ann", text="the chocolate cake needs more sugar")
        fake.queue(fa.text("Bread"), extraction())
        await core.remember("c", author="ann", text="the sourdough bread needs a hot oven")
        assert sorted(w.topic for w in await core.worlds("c")) == ["Bread", "Cakes"]
        fake.queue(fa.text("Baking at home"))
        assert len(await core.merge_worlds("c")) == 1
        live = [w for w in await core.worlds("c") if not w.merged_into]
        assert [w.topic for w in live] == ["Baking at home"]
        asked = fake.requests[-1].body["messages"][0]["content"]
        assert "chocolate cake" in asked and "sourdough bread" in asked
    finally:
        await pool.close()


async def test_a_reply_reaches_the_model_with_the_team_question_it_answers(
    tmp_path: Path, ontology: Ontology, make_llm: MakeLlm, fake: fa.FakeAnthropic
) -> None:
    """ "диагностика 2500" alone does not say what costs 2500: an evidence message that
    replies to a team question is given to the model with that question (core/replies.py)."""
    from datetime import UTC, datetime, timedelta

    from core.config import WorldMode

    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    config = CoreConfig(world_mode=WorldMode.SINGLE)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=config, llm=make_llm())
    t0 = datetime(2026, 11, 1, 9, tzinfo=UTC)
    try:
        fake.queue(fa.text("Car"), extraction())
        await core.remember("c", author="Ana", text="сколько они сказали будет стоить?", ts=t0)
        fake.queue(extraction())
        later = t0 + timedelta(minutes=1)
        await core.remember("c", author="Igor", text="диагностика 2500", ts=later)
        fake.queue(fa.text("2500 [m:x]."))
        await core.ask("c", "сколько стоит диагностика?")
        content = fake.requests[-1].body["messages"][0]["content"]
        data = json.loads(content.split("<data>")[1].split("</data>")[0])
        said = [e["said"] for e in data["evidence"]]
        assert 'Igor (2026-11-01), replying to Ana: "сколько они сказали будет стоить?": ' in (
            "\n".join(said)
        ), said
    finally:
        await pool.close()
