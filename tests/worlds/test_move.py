"""Moving messages between worlds (the regrouping job's step) when an entity stays behind: the
destination gets its own entity of that name and the moved fact is re-created between the new
end points, in one transaction; nothing is lost on either side."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from core.embedding import HashEmbedder
from core.models import TripleIn
from core.ports import GraphStore
from core.rows import WorldRow
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology
from tests.conftest import name_tables


async def test_a_moved_fact_whose_subject_stays_is_recreated_in_the_destination(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    try:
        stay = await core.remember("c", author="a", text="checkout depends on payments")
        move = await core.remember("c", author="a", text="checkout depends on billing")
        assert stay.world == move.world
        await core.ask("c", "what does checkout depend on?")  # builds the name index
        now = datetime(2026, 3, 2, tzinfo=UTC)

        def run(store: GraphStore) -> dict[str, int]:
            store.upsert_world(WorldRow("w2", "", np.zeros(emb.dim, np.float32), 1, now, now, ""))
            return store.move_messages([move.message_id], "w2", now)

        await pool.run("c", run)

        live, fresh = await pool.run("c", name_tables)
        assert live == fresh  # billing is found in w2 now, and only there
        data = await core.export("c")
        world_of = {m["id"]: m["world"] for m in data["messages"]}
        assert world_of == {stay.message_id: stay.world, move.message_id: "w2"}
        facts = {(f["subject"], f["object"]): f for f in data["facts"]}
        assert set(facts) == {("checkout", "payments"), ("checkout", "billing")}
        assert facts["checkout", "billing"]["sources"] == [move.message_id]
        checkouts = {e["world"]: e["id"] for e in data["entities"] if e["name"] == "checkout"}
        assert set(checkouts) == {stay.world, "w2"}  # one per world, the old one stays
        moved = await core.facts("c")
        assert {f.world for f in moved if f.object == "billing"} == {"w2"}
        assert {f.world for f in moved if f.object == "payments"} == {stay.world}
    finally:
        await core.close()


async def test_messages_leaving_two_worlds_bring_a_name_they_share_once(
    tmp_path: Path, ontology: Ontology
) -> None:
    """Two worlds both know "checkout"; the job moves a message of each to a third world: the
    third world gets one checkout (two made the name ambiguous there, and every later fact
    about it was refused: 575 lines of a 10,000-message import)."""
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    try:
        one = await core.remember("c", author="a", text="checkout depends on payments")
        two = await core.remember("c", author="a", text="checkout depends on billing")
        await core.ask("c", "what does checkout depend on?")  # builds the name index
        now = datetime(2026, 3, 2, tzinfo=UTC)

        def split_then_gather(store: GraphStore) -> None:
            for wid in ("w2", "w3"):
                row = WorldRow(wid, "", np.zeros(emb.dim, np.float32), 1, now, now, "")
                store.upsert_world(row)
            store.move_messages([two.message_id], "w2", now)  # checkout in both worlds now
            store.move_messages([one.message_id, two.message_id], "w3", now)

        await pool.run("c", split_then_gather)
        live, fresh = await pool.run("c", name_tables)
        assert live == fresh
        data = await core.export("c")
        checkouts = [e for e in data["entities"] if e["name"] == "checkout" and e["world"] == "w3"]
        assert len(checkouts) == 1
        mentioning = await pool.run("c", lambda s: s.mentions_of([checkouts[0]["id"]]))
        assert sorted(mentioning) == sorted([one.message_id, two.message_id])
        counts = await pool.run(
            "c", lambda s: [s.mention_count(m) for m in (one.message_id, two.message_id)]
        )
        assert counts == [2, 2]  # checkout and its object each, once
        facts = {(f["subject"], f["object"]): f["world"] for f in data["facts"]}
        assert facts == {("checkout", "payments"): "w3", ("checkout", "billing"): "w3"}
        later = await core.remember_triple(
            "c",
            TripleIn(
                subject="checkout",
                subject_kind="service",
                predicate="DEPENDS_ON",
                object="ledger",
                object_kind="service",
            ),
        )
        assert later.stored and not later.rejected
    finally:
        await core.close()
