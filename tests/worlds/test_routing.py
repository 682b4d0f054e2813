"""Issue 3: topic routing on the labelled stream, Java the language vs Java the island,
re-embedding on a model switch, routing latency at 1,000 worlds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.worlds import ROUTING_LATENCY_PARAMS, load_stream, run_stream
from core.embedding import HashEmbedder
from core.ports import Embedder
from core.service import Core
from core.store.kuzu_store import ChatStore, WorldRow
from core.worlds import params_for, question_worlds, route
from ontology import Ontology
from tests.worlds.conftest import ManualClock, adaptive_core

PROGRAMMING = [
    "Our billing service is built with Java and the Spring framework",
    "The payments service runs on Java and uses Kafka for events",
    "Java is a programming language with a garbage collector",
    "The Java compiler fails on the new generics code in the checkout module",
    "We should add unit tests before refactoring the Java code",
]
TRAVEL = [
    "Next month we fly to Indonesia for a holiday: Jakarta, Yogyakarta and Bali",
    "Java is an island in Indonesia with many volcanoes",
    "Jakarta is located in Java, the capital is huge",
    "Mount Bromo is located in Java, near Surabaya",
    "The ferry from Java to Bali takes about an hour",
]


async def test_fixture_routing_meets_target_with_offline_multilingual_model(
    use_embedder: Embedder,
) -> None:
    rows = load_stream()
    assert len(rows) >= 200
    assert len({r["topic"] for r in rows}) >= 8
    assert {r["lang"] for r in rows} == {"en", "pt", "ru"}
    m = await run_stream(use_embedder, params_for(use_embedder), rows)
    # floors of the figures measured with the calibrated defaults (live routing; the tuned
    # per-model constants this replaced scored higher here only because they were tuned here)
    assert m["cluster"] >= 0.9, m
    assert m["purity"] >= 0.8, m
    assert m["worlds_per_topic"] <= 2.5, m


async def test_java_language_and_island_live_in_two_worlds(
    world_core: Core, clock: ManualClock
) -> None:
    chat = "tg:java"
    for text in PROGRAMMING:
        clock.advance(minutes=1)
        await world_core.remember(chat, author="ana", text=text)
    clock.advance(hours=3)  # a new conversation, past the continuity window
    for text in TRAVEL:
        clock.advance(minutes=1)
        await world_core.remember(chat, author="bob", text=text)

    worlds = [w for w in await world_core.worlds(chat) if not w.merged_into]
    assert len(worlds) == 2
    data = await world_core.export(chat)
    javas = [e for e in data["entities"] if e["name"] == "Java"]
    assert len(javas) == 2
    assert len({e["world"] for e in javas}) == 2
    msg_world = {m["text"]: m["world"] for m in data["messages"]}
    assert len({msg_world[t] for t in PROGRAMMING}) == 1
    assert len({msg_world[t] for t in TRAVEL}) == 1
    assert msg_world[PROGRAMMING[0]] != msg_world[TRAVEL[0]]

    answer = await world_core.ask(chat, "Which service uses Java?")
    assert answer.worlds == [msg_world[PROGRAMMING[0]]]
    assert answer.facts
    assert all(f.world == msg_world[PROGRAMMING[0]] for f in answer.facts)
    text = answer.answer.lower()
    assert "billing service" in text
    assert "island" not in text
    assert "indonesia" not in text


async def test_new_world_gets_keyword_topic_and_questions_search_several_when_unsure(
    world_core: Core, clock: ManualClock
) -> None:
    chat = "tg:topics"
    r1 = await world_core.remember(chat, author="a", text="The chocolate cake recipe needs flour")
    clock.advance(hours=2)
    r2 = await world_core.remember(
        chat, author="a", text="Liverpool scored a late goal in the derby"
    )
    assert r1.world_born
    assert r2.world_born
    assert r1.world != r2.world
    topics = {w.id: w.topic for w in await world_core.worlds(chat)}
    assert "chocolate" in topics[r1.world]
    assert "liverpool" in topics[r2.world]
    vague = await world_core.ask(chat, "What happened?")
    assert set(vague.worlds) == {r1.world, r2.world}  # unsure: the best few, not nothing


async def test_switching_model_reembeds_and_recomputes_centroids(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    clock = ManualClock()
    first = adaptive_core(tmp_path / "d", HashEmbedder(), ontology, clock)
    await first.remember("c", author="a", text="The chocolate cake recipe needs flour and eggs")
    await first.close()
    second = adaptive_core(tmp_path / "d", use_embedder, ontology, clock)
    try:
        clock.advance(minutes=1)
        r = await second.remember("c", author="a", text="Bake the cake at 180 degrees")
        assert not r.world_born  # routed by a centroid rebuilt from the message, not zeroed

        def check(store: ChatStore) -> None:
            assert store.dim == use_embedder.dim
            for w in store.worlds.values():
                assert w.centroid.shape == (use_embedder.dim,)
                assert np.linalg.norm(w.centroid) > 0

        await second.pool.run("c", check)
    finally:
        await second.close()


def test_routing_among_1000_worlds_finds_the_nearest(tmp_path: Path) -> None:
    """Routing and question routing at 1,000 worlds pick the world a message is close to (its
    latency is measured by `python -m bench.worlds`, not here: a timed test fails on a loaded
    machine)."""
    dim = 512
    rng = np.random.default_rng(1)
    store = ChatStore(tmp_path / "c", dim=dim, model_name="latency")
    now = datetime(2026, 3, 2, tzinfo=UTC)
    try:
        for i in range(1000):
            v = rng.standard_normal(dim).astype(np.float32)
            w = WorldRow(f"w{i:05d}", "t", v / np.linalg.norm(v), 3, now, now, "", messages=3)
            store.worlds[w.id] = w
            store._sync_world_vector(w)
        params = ROUTING_LATENCY_PARAMS
        for k in (0, 417, 999):
            target = store.worlds[f"w{k:05d}"].centroid
            noise = rng.standard_normal(dim).astype(np.float32) * 0.02
            q = (target + noise) / np.linalg.norm(target + noise)
            routed = route(store, q, params, mode="adaptive", text="java island", now=now)
            assert not routed.born and routed.world.id == f"w{k:05d}"
            assert question_worlds(store, q, params, mode="adaptive", text="java island") == [
                f"w{k:05d}"
            ]
        far = rng.standard_normal(dim).astype(np.float32)
        far /= np.linalg.norm(far)
        assert route(store, far, params, mode="adaptive", text="x", now=now).born
    finally:
        store.close()


async def test_a_newborn_merged_at_once_is_folded_as_birth_absorb_and_merge_would(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder, clock: ManualClock
) -> None:
    """store_message puts a message whose newborn world would be merged at once straight into
    the world it would merge into (core.worlds.newborn_merges_into). On imported facts the
    worlds, their members, centroids and counts equal those of the long way (birth, absorb,
    merge_touched), and the shortcut is taken."""
    import json

    import core.pipeline.ingest as ingest
    from bench.bulk import fact_lines
    from core.models import TripleIn

    triples = [json.loads(line) for line in fact_lines(3000)[:400]]  # a CRM export's facts
    taken: list[str] = []

    async def feed(core: Core, chat: str) -> dict[frozenset[str], tuple[int, int, list[float]]]:
        for t in triples:
            fact = TripleIn(**{k: v for k, v in t.items() if k != "id"})
            await core.remember_triple(chat, fact, message_id=t["id"])

        def state(store: ChatStore) -> dict[frozenset[str], tuple[int, int, list[float]]]:
            members: dict[str, set[str]] = {}
            for m in store.messages(sorted(store.message_ids)):
                members.setdefault(m.world, set()).add(m.id)
            return {
                frozenset(ids): (
                    store.worlds[w].access_count,
                    store.worlds[w].messages,
                    [round(float(x), 5) for x in store.worlds[w].centroid[:8]],
                )
                for w, ids in members.items()
            }

        return await core.pool.run(chat, state)

    real = ingest.newborn_merges_into

    def counted(*args: object) -> object:
        into = real(*args)  # type: ignore[arg-type]
        if into is not None:
            taken.append(into.id)
        return into

    core = adaptive_core(tmp_path / "a", use_embedder, ontology, clock)
    ingest.newborn_merges_into = counted  # type: ignore[assignment]
    try:
        short = await feed(core, "c")
        ingest.newborn_merges_into = lambda *a: None  # type: ignore[assignment,misc]
        long = await feed(core, "d")
    finally:
        ingest.newborn_merges_into = real
        await core.close()
    assert taken, "no newborn was merged at once on this stream"
    assert short == long
