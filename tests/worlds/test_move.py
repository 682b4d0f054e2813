"""Moving messages between worlds (the regrouping job's step) when an entity stays behind: the
destination gets its own entity of that name and the moved fact is re-created between the new
end points, in one transaction; nothing is lost on either side."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.crash import chat_lines
from core.embedding import HashEmbedder
from core.models import ImportItem, IngestResult, TripleIn
from core.ports import Embedder, GraphStore
from core.rows import WorldRow
from core.service import Core, CoreConfig
from core.store.active_graph import ActiveFact, ActiveGraph
from core.store.pool import StorePool
from core.store.regroup import drop_entities
from ontology import Ontology
from tests.conftest import build_core, graph_tables, name_tables

EMB = HashEmbedder()
NOW = datetime(2026, 3, 2, tzinfo=UTC)


async def _two_checkout_facts(
    data: Path, ontology: Ontology
) -> tuple[Core, IngestResult, IngestResult]:
    """A chat of two messages about checkout, in one world, its name index built."""
    pool = StorePool(data, dim=EMB.dim, model_name=EMB.model_name)
    core = Core(pool=pool, embedder=EMB, ontology=ontology, config=CoreConfig())
    one = await core.remember("c", author="a", text="checkout depends on payments")
    two = await core.remember("c", author="a", text="checkout depends on billing")
    assert one.world == two.world
    await core.ask("c", "what does checkout depend on?")  # builds the name index
    return core, one, two


def _world(store: GraphStore, wid: str) -> None:
    store.upsert_world(WorldRow(wid, "", np.zeros(EMB.dim, np.float32), 1, NOW, NOW, ""))


async def test_a_moved_fact_whose_subject_stays_is_recreated_in_the_destination(
    tmp_path: Path, ontology: Ontology
) -> None:
    core, stay, move = await _two_checkout_facts(tmp_path, ontology)
    pool = core.pool
    try:

        def run(store: GraphStore) -> dict[str, int]:
            _world(store, "w2")
            return store.move_messages([move.message_id], "w2", NOW)

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
    core, one, two = await _two_checkout_facts(tmp_path, ontology)
    pool = core.pool
    try:

        def split_then_gather(store: GraphStore) -> None:
            _world(store, "w2")
            _world(store, "w3")
            store.move_messages([two.message_id], "w2", NOW)  # checkout in both worlds now
            store.move_messages([one.message_id, two.message_id], "w3", NOW)

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


def _entity_indexes(store: GraphStore) -> dict[str, object]:
    """The chat's entity indexes as comparable values."""
    vectors = store.entity_vectors
    return {
        "entities": {
            e.id: (e.kind, e.name, e.key, e.world, e.ident, tuple(e.aliases))
            for e in store.entities.values()
        },
        "by_key": dict(store.by_key),
        "key_worlds": {k: set(v) for k, v in store.key_worlds.items() if v},
        "by_kind": {k: set(v) for k, v in store.by_kind.items() if v},
        "by_ident": dict(store.by_ident),
        "vectors": {i: vectors.vector(i).tobytes() for i in vectors.ids},  # type: ignore[union-attr]
        "unembedded": sorted(store.unembedded.get("e", [])),
    }


def _read_again(store: GraphStore) -> dict[str, object]:
    """The same indexes loaded from the database from scratch."""
    from core.store.kuzu_store import ChatStore

    assert isinstance(store, ChatStore)
    store.entities.clear()
    store.by_key.clear()
    store.key_worlds.clear()
    store.by_ident.clear()
    store.by_kind.clear()
    store.entity_vectors.remove(set(store.entity_vectors.ids))
    store._load_entities()
    return _entity_indexes(store)


async def test_a_move_leaves_the_entity_indexes_as_the_database_reads_them(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A move updates the indexes from what it changed (an entity moved, a copy made, an
    orphan deleted), not by reading every entity again: the result is what a fresh read
    gives."""
    core, one, two = await _two_checkout_facts(tmp_path, ontology)
    try:

        def moves(store: GraphStore) -> list[tuple[dict[str, object], dict[str, object]]]:
            _world(store, "w2")
            _world(store, "w3")
            out = []
            for ids, dst in (([two.message_id], "w2"), ([one.message_id, two.message_id], "w3")):
                before = set(store.entities)
                store.move_messages(ids, dst, NOW)
                assert set(store.entities) != before  # copies made, orphans deleted
                out.append((_entity_indexes(store), _read_again(store)))
                out.append(graph_tables(store))
            return out

        for live, fresh in await core.pool.run("c", moves):
            assert live == fresh
        live_names, fresh_names = await core.pool.run("c", name_tables)
        assert live_names == fresh_names
    finally:
        await core.close()


async def test_an_import_keeps_the_single_values_the_same_lines_sent_one_by_one_keep(
    tmp_path: Path, ontology: Ontology, real_embedder: Embedder
) -> None:
    """The chat bench/crash.py writes with seed 212 (40 lines, English MiniLM): imported with
    `python -m bot ingest`'s path it kept both "Initech belongs to Vandelay" and "Initech
    belongs to Romashka" active in one world, where the lines sent one by one keep the newer:
    a regrouping move copied the Romashka fact onto the Initech its new world knew, and the
    move's fold could not read the copy back (kuzu 0.11.3 after an import's COPY); the fold is
    now done again once the move has committed (WorldMover.consolidate_joined)."""
    rows = chat_lines(40, 212)
    live = build_core(tmp_path / "live", real_embedder, ontology, world_mode="adaptive")
    for r in rows:
        await live.remember("c", author=r["author"], text=r["text"], message_id=r["id"], ts=_ts(r))
    want = _facts(await live.export("c"))
    live_graph, fresh_graph = await live.pool.run("c", graph_tables)
    assert live_graph == fresh_graph  # kept in step through the job's moves
    await live.close()
    imported = build_core(tmp_path / "import", real_embedder, ontology, world_mode="adaptive")
    items = [
        ImportItem(author=r["author"], text=r["text"], message_id=r["id"], ts=_ts(r)) for r in rows
    ]
    await imported.remember_many("c", items)
    got = _facts(await imported.export("c"))
    live_graph, fresh_graph = await imported.pool.run("c", graph_tables)
    assert live_graph == fresh_graph
    await imported.close()
    assert got == want
    single = [f for f in want if f[1] == "BELONGS_TO" and f[0] == "Initech" and f[3] == "active"]
    assert len(single) == 1  # the case the test was written for is in the chat


def _ts(row: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(row["ts"])


def _facts(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (f["subject"], f["predicate"], f["object"], f["status"], tuple(f["sources"]))
        for f in data["facts"]
    )


async def test_a_move_repoints_each_mention_once_whether_many_or_one_message_joins_an_entity(
    tmp_path: Path, ontology: Ontology
) -> None:
    """Four messages about checkout leave a world where a fifth stays: the four re-point their
    checkout mentions to the destination's copy together (one statement for the entity they
    join), each its own object's mention alone; every message mentions what it did, once,
    and the staying message keeps the old checkout."""
    pool = StorePool(tmp_path, dim=EMB.dim, model_name=EMB.model_name)
    core = Core(pool=pool, embedder=EMB, ontology=ontology, config=CoreConfig())
    try:
        objects = ["payments", "billing", "ledger", "antifraud", "search"]
        sent = [
            await core.remember("c", author="a", text=f"checkout depends on {o}") for o in objects
        ]
        assert len({r.world for r in sent}) == 1
        moving = [r.message_id for r in sent[1:]]

        def move_and_read(store: GraphStore) -> list[tuple[str, str, str, str]]:
            _world(store, "w2")
            store.active_graph()  # loaded before: the move keeps it in step
            store.move_messages(moving, "w2", NOW)
            rows = store._rows(  # type: ignore[attr-defined]
                "MATCH (m:Message)-[r:MENTIONS]->(e:Entity) WHERE r.chat = $chat "
                "RETURN m.id, m.world, e.name, e.world"
            )
            return sorted((str(a), str(b), str(c), str(d)) for a, b, c, d in rows)

        pairs = await pool.run("c", move_and_read)
        src = sent[0].world
        expected = sorted(
            [(sent[0].message_id, src, n, src) for n in ("checkout", "payments")]
            + [
                (m, "w2", n, "w2")
                for m, o in zip(moving, objects[1:], strict=True)
                for n in ("checkout", o)
            ]
        )
        assert pairs == expected
        live, fresh = await pool.run("c", name_tables)
        assert live == fresh
        live_graph, fresh_graph = await pool.run("c", graph_tables)
        assert live_graph == fresh_graph and live_graph["mentions"]
    finally:
        await core.close()


async def test_a_name_said_again_where_its_entity_moved_from_gets_an_entity_of_that_world(
    tmp_path: Path, ontology: Ontology
) -> None:
    """An entity's id is made from its world and name; a move takes the entity to another
    world with its id. The name said again in the first world must get an entity there, not
    the moved one (reused, the id joined that world's new facts to the other world's
    entity)."""
    core, stay, move = await _two_checkout_facts(tmp_path, ontology)
    try:

        def to_w2(store: GraphStore) -> None:
            _world(store, "w2")
            store.move_messages([move.message_id], "w2", NOW)

        await core.pool.run("c", to_w2)
        again = await core.remember("c", author="a", text="billing depends on ledger")
        assert again.world == stay.world
        data = await core.export("c")
        billing = {e["world"] for e in data["entities"] if e["name"] == "billing"}
        assert billing == {stay.world, "w2"}
        rows = await core.pool.run(
            "c",
            lambda s: s._rows(  # type: ignore[attr-defined]
                "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE f.chat = $chat "
                "RETURN a.name, a.world, f.world, b.name, b.world"
            ),
        )
        assert len(rows) == 3
        for a, a_world, world, b, b_world in rows:
            assert a_world == world == b_world, (a, b)
    finally:
        await core.close()


def test_entities_a_move_deletes_take_every_fact_and_mention_still_on_them() -> None:
    """DETACH DELETE of an orphan removes the facts no message moved (a fact without sources,
    from a graph import; one outside the worlds the move read): the in-memory graph drops
    them, active or closed, from both ends, as a fresh read would not find them."""
    graph = ActiveGraph()
    at = datetime(2026, 1, 1, tzinfo=UTC)
    graph.add(ActiveFact("f1", "orphan", "ledger", "DEPENDS_ON", 1.0, at, [], "w1"))
    graph.add(ActiveFact("f2", "ledger", "kept", "USES", 1.0, at, ["m1"], "w1"))
    graph.record("f3", "kept", "orphan", at, ["m2"])  # closed, ends known from the move's read
    graph.superseded["f3"] = ("kept", "orphan", "USES")
    graph.record("f4", "other", "orphan", at, ["m3"])  # closed, in a world the move did not read
    graph.mention("m4", "orphan")
    graph.mention("m1", "ledger")
    drop_entities(graph, ["orphan"], {"f3": ("kept", "orphan")})
    assert set(graph.by_id) == {"f2"}
    assert {e: set(f) for e, f in graph.out.items() if f} == {"ledger": {"f2"}}
    assert {e: set(f) for e, f in graph.inn.items() if f} == {"kept": {"f2"}}
    assert set(graph.provenance) == {"f2"} and not graph.superseded
    assert {e: set(t) for e, t in graph.touching.items() if t} == {
        "ledger": {"f2"},
        "kept": {"f2"},
    }
    assert graph.mentions == {"ledger": {"m1": None}}


async def test_a_fact_no_message_states_leaves_the_graph_with_the_entity_a_move_deletes(
    tmp_path: Path, ontology: Ontology
) -> None:
    """checkout's second message moves to w2 (checkout gets a copy there), then its first: the
    old checkout is left to nothing and deleted with a fact a graph import gave it (no source
    message); the in-memory graph loses that fact too, as a fresh read does."""
    core, one, two = await _two_checkout_facts(tmp_path, ontology)
    try:

        def moves(store: GraphStore) -> tuple[dict[str, Any], dict[str, Any]]:
            _world(store, "w2")
            store.move_messages([two.message_id], "w2", NOW)
            old = store.by_key[(one.world, "checkout")]
            payments = store.by_key[(one.world, "payment")]  # the key is the lemma
            store.bulk_insert([], [(old, "USES", payments, 1.0)], world=one.world, now=NOW)
            assert any(f.src == old for f in store.active_graph().by_id.values())
            store.move_messages([one.message_id], "w2", NOW)
            assert old not in store.entities  # deleted, with the fact
            return graph_tables(store)

        live, fresh = await core.pool.run("c", moves)
        assert live == fresh
    finally:
        await core.close()
