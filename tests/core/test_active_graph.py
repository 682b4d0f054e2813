"""The in-memory adjacency (ActiveGraph) must always equal what Kùzu holds.

After each kind of write the live store's view is compared with a store reopened from disk,
which builds its adjacency from the database alone.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import numpy.typing as npt

from core.config import WorldMode
from core.embedding import HashEmbedder
from core.identity import NameRules
from core.models import FactView, TripleIn
from core.rows import Edge
from core.service import Core
from core.store.kuzu_store import ChatStore
from ontology import Ontology
from tests.conftest import build_core, name_tables

ACME_GLOBEX = TripleIn(
    subject="Acme",
    subject_kind="company",
    predicate="BELONGS_TO",
    object="Globex",
    object_kind="company",
)


def snapshot(
    store: ChatStore,
) -> tuple[
    set[tuple[str, str, str, str, float, tuple[str, ...], str]],
    dict[str, list[str]],
    dict[str, list[str]],
    set[str],
    dict[str, list[str]],
    dict[str, tuple[str, str, str] | None],
    dict[str, set[str]],
]:
    graph = store.active_graph()
    facts = {
        (f.id, f.src, f.dst, f.predicate, round(f.confidence, 6), tuple(f.sources), f.world)
        for f in graph.by_id.values()
    }
    mentions = {e: store.mentions_of([e]) for e in store.entities}
    sources = {e: store.fact_sources([e]) for e in store.entities}  # any status, in memory
    outdated = {e: sorted(store.outdated_sources([e])) for e in store.entities}
    replaced = dict(graph.superseded)  # what "not any more" answers read
    predicates = store.world_predicates()  # from the graph; then from Kùzu, as after a regroup
    store._graph = None
    assert store.world_predicates() == predicates
    store._graph = graph
    return facts, mentions, sources, read_edges(store), outdated, replaced, predicates


def read_edges(store: ChatStore) -> set[str]:
    """The edges reads hand out, as questions see them (the store keeps them for the next
    read: each write that changes a fact in place must make it hand out a new one)."""
    edges = store.edges_from(list(store.entities))
    return {
        f"{e.src} {e.dst} {e.fact_id} {e.predicate} {e.confidence:.6f} "
        f"{e.fact.model_dump_json(exclude={'confidence'})}"
        for e in edges
    }


async def assert_in_step(core: Core, tmp_path: Path, chat: str) -> None:
    live = await core.pool.run(chat, snapshot)
    await core.pool.close()  # the next run reopens the chat from disk
    fresh = await core.pool.run(chat, snapshot)
    assert live == fresh


async def test_active_graph_follows_every_write(tmp_path: Path, ontology: Ontology) -> None:
    core = build_core(tmp_path, HashEmbedder(), ontology)
    chat = "c"
    await core.ask(chat, "anything?")  # loads the (empty) graph before the writes below
    await core.remember(chat, author="a", text="checkout depends on payments")
    await core.remember(chat, author="a", text="payments depends on antifraud")
    await assert_in_step(core, tmp_path, chat)

    await core.ask(chat, "what does checkout depend on?")  # graph loaded again
    await core.pool.run(chat, read_edges)
    await core.remember(chat, author="b", text="checkout depends on payments")  # re-confirm
    one = TripleIn(
        subject="Acme",
        subject_kind="company",
        predicate="BELONGS_TO",
        object="Globex",
        object_kind="company",
    )
    await core.remember_triple(chat, one)
    await core.ask(chat, "what does Acme belong to?")
    await core.remember_triple(chat, one.model_copy(update={"object": "Initech"}))  # supersede
    await assert_in_step(core, tmp_path, chat)

    history = await core.pool.run(
        chat, lambda s: [s.fact_sources([e]) for e, ent in s.entities.items() if ent.name == "Acme"]
    )
    assert [len(h) for h in history] == [2]  # the superseded fact's message is evidence too
    outdated = await core.pool.run(
        chat,
        lambda s: [s.outdated_sources([e]) for e, ent in s.entities.items() if ent.name == "Acme"],
    )
    assert [len(o) for o in outdated] == [1]  # the first value's message: history now

    await core.ask(chat, "what does checkout depend on?")
    await core.forget_entity(chat, "antifraud")  # DETACH DELETE
    await assert_in_step(core, tmp_path, chat)

    await core.ask(chat, "what does checkout depend on?")
    closed = await core.decay(chat, half_life=timedelta(seconds=1), floor=0.99)  # close all
    assert closed > 0
    answer = await core.ask(chat, "what does checkout depend on?")
    assert answer.facts == []  # closed facts left the read path at once
    await assert_in_step(core, tmp_path, chat)
    await core.close()


class ThreeTopics:
    """Orthogonal vectors by a word of the text, so routing puts each topic in its own world."""

    model_name = "three-topics"
    dim = 8

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i, 2 if "Globex" in text else 1 if "ledger" in text else 0] = 1.0
        return out


async def test_active_graph_follows_world_merges(tmp_path: Path, ontology: Ontology) -> None:
    """A merge without unification moves the facts' world in memory (the graph is kept); one
    that unifies same-named entities re-points their facts and mentions in memory too. Both
    must leave what a reload gives."""
    core = build_core(tmp_path, ThreeTopics(), ontology, world_mode=WorldMode.ADAPTIVE)
    chat = "c"
    for text in ("checkout depends on payments", "payments depends on ledger"):
        await core.remember(chat, author="a", text=text)
    await core.remember_triple(chat, ACME_GLOBEX)

    def merge(store: ChatStore, src_name: str, dst_name: str) -> dict[str, int]:
        worlds = {e.name: e.world for e in store.entities.values()}
        assert len({*worlds.values()}) == 3, "each topic in a world of its own"
        src, dst = worlds[src_name], worlds[dst_name]
        read_edges(store)  # loaded and read: the merge must keep it right or drop it
        return store.merge_worlds(src, dst, store.worlds[dst].centroid, datetime.now(UTC))

    rules = NameRules(ontology.legal_forms)
    await core.pool.run(chat, lambda s: s.use_name_rules(rules))  # kept current from here
    moved = await core.pool.run(chat, lambda s: merge(s, "Acme", "checkout"))
    assert (moved["unified"], moved["moved_entities"]) == (0, 2)
    assert await core.pool.run(chat, lambda s: s._graph is not None)  # kept, in step
    live, fresh = await core.pool.run(chat, name_tables)
    assert live == fresh
    await assert_in_step(core, tmp_path, chat)

    def unify(store: ChatStore) -> dict[str, int]:
        ledger = next(e.world for e in store.entities.values() if e.name == "ledger")
        into = next(e.world for e in store.entities.values() if e.name == "checkout")
        read_edges(store)
        return store.merge_worlds(ledger, into, store.worlds[into].centroid, datetime.now(UTC))

    await core.pool.run(chat, lambda s: s.use_name_rules(rules))  # the reload dropped it
    unified = await core.pool.run(chat, unify)
    assert unified["unified"] == 1  # "payments" of both worlds is one entity now
    assert await core.pool.run(chat, lambda s: s._graph is not None)  # kept, in step
    live, fresh = await core.pool.run(chat, name_tables)
    assert live == fresh
    await assert_in_step(core, tmp_path, chat)
    await core.close()


async def test_reading_edges_builds_no_fact_views(tmp_path: Path, ontology: Ontology) -> None:
    """A question about a hub walks all of its edges and keeps a few: reading an edge builds
    no FactView (the pydantic views were most of such a question's time at 10k facts); the
    view asked for says what the fact says."""
    core = build_core(tmp_path, HashEmbedder(), ontology)
    chat = "c"
    for i in range(30):
        located = TripleIn(
            subject=f"svc{i}",
            subject_kind="service",
            predicate="LOCATED_IN",
            object="Lisbon",
            object_kind="place",
        )
        await core.remember_triple(chat, located)

    def views() -> int:
        return sum(isinstance(o, FactView) for o in gc.get_objects())

    def read(store: ChatStore) -> tuple[list[Edge], int]:
        hub = next(e for e, ent in store.entities.items() if ent.name == "Lisbon")
        store.active_graph()
        gc.collect()
        before = views()
        edges = store.edges_to([hub])
        return edges, views() - before

    edges, built = await core.pool.run(chat, read)
    assert len(edges) == 30
    assert built == 0
    fact = edges[0].fact
    assert (fact.object, fact.predicate, fact.status) == ("Lisbon", "LOCATED_IN", "active")
    assert fact.subject.startswith("svc")
    await core.close()
