"""The LLM path after a crash (issue 12): a message stored before its extraction finished is
extracted when it comes back, not skipped as "already stored"."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import tests.llm.fake_anthropic as fa
from core import durable
from core.embedding import HashEmbedder
from core.inbound import ChatRecord
from core.llm.schema import TOOL_NAME
from core.pipeline.ingest import Checked
from core.rows import Extraction
from core.service import Core, CoreConfig
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology
from tests.llm.conftest import MakeLlm
from tests.llm.test_extract import triple

TEXT = "checkout needs payments"


def llm_core(data: Path, ontology: Ontology, make_llm: MakeLlm) -> Core:
    emb = HashEmbedder()
    pool = StorePool(data, dim=emb.dim, model_name=emb.model_name)
    log = SqliteInboundLog(data / "inbound.sqlite3")
    llm = make_llm(timeout_s=1.0, max_retries=0)
    return Core(
        pool=pool, embedder=emb, ontology=ontology, config=CoreConfig(), llm=llm, inbound=log
    )


async def test_a_message_whose_extraction_a_crash_cut_short_is_extracted_at_start(
    tmp_path: Path, ontology: Ontology, make_llm: MakeLlm, fake: fa.FakeAnthropic
) -> None:
    core = llm_core(tmp_path, ontology, make_llm)
    ts = datetime(2026, 5, 1, tzinfo=UTC)
    assert core.inbound is not None
    # what a kill between storing the message and its LLM extraction leaves behind
    core.inbound.begin(ChatRecord("c", "m1", "message", "ann", TEXT, ts, "", done=False))
    emb = core.embedder.embed([TEXT])[0]
    said = Checked("m1", "ann", TEXT, ts, emb)
    await core.pool.run("c", lambda s: core._ingest.store_message(s, said, Extraction.PENDING))
    await core.close()

    core = llm_core(tmp_path, ontology, make_llm)
    fake.queue(
        fa.tool_use(
            TOOL_NAME,
            {"triples": [triple("checkout", "service", "DEPENDS_ON", "payments", "service", 0.9)]},
        )
    )
    assert await durable.recover(core) == 1
    facts = await core.facts("c")
    assert [(f.sentence(), f.sources) for f in facts] == [("checkout DEPENDS_ON payments", ["m1"])]
    assert (await core.stats("c"))["messages"] == 1
    again = await core.remember("c", author="ann", text=TEXT, message_id="m1")
    assert again.duplicate  # extracted now: a later repeat is a plain duplicate
    await core.close()
