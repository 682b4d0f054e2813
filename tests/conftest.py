"""Shared fixtures: a real Core on a real Kùzu database in tmp_path.

`core` uses the deterministic HashEmbedder (fast, for front-end and unit tests); `real_core`
uses the real offline fastembed model (all-MiniLM-L6-v2 int8 assembled from PyPI packages).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from core.embedding import HashEmbedder
from core.identity import NameIndex
from core.ports import Embedder, GraphStore
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology, load_ontology


@pytest.fixture(scope="session")
def ontology() -> Ontology:
    return load_ontology()


@pytest.fixture(scope="session")
def real_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from core.embedding.fastembed import BUNDLED_MODEL, FastEmbedEmbedder, bundled_minilm_dir

    model_dir = bundled_minilm_dir(tmp_path_factory.mktemp("models"))
    return FastEmbedEmbedder(BUNDLED_MODEL, local_dir=model_dir, threads=1)


@pytest.fixture(scope="session")
def use_embedder() -> Embedder:
    """The offline multilingual model the bot runs without a fastembed cache."""
    from core.embedding.use import UseEmbedder

    return UseEmbedder(threads=1)


def build_core(data_dir: Path, embedder: Embedder, ontology: Ontology, **config: object) -> Core:
    pool = StorePool(data_dir, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    return Core(pool=pool, embedder=embedder, ontology=ontology, config=CoreConfig(**config))  # type: ignore[arg-type]


def hash_core(data_dir: Path, ontology: Ontology, **pool_options: Any) -> Core:
    """A Core with the HashEmbedder on a StorePool given these options (shards, timers)."""
    emb = HashEmbedder()
    pool = StorePool(data_dir, dim=emb.dim, model_name=emb.model_name, **pool_options)
    return Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())


def name_tables(store: GraphStore) -> tuple[dict[str, Any], dict[str, Any]]:
    """The live name index against one built from the entities as they are now."""
    assert store.names is not None
    fresh = NameIndex(store.names.rules)
    for ent in store.entities.values():
        fresh.add(ent.id, ent.world, [ent.name, *ent.aliases])

    def tables(index: NameIndex) -> dict[str, Any]:
        out: dict[str, Any] = {
            lv: {k: set(v) for k, v in t.items()} for lv, t in index.tables.items()
        }
        out["held"] = index._held  # the keys find looks up at all, per level
        return out

    return tables(store.names), tables(fresh)


def graph_tables(store: GraphStore) -> tuple[dict[str, Any], dict[str, Any]]:
    """The chat's in-memory graph as it was kept in step, against one read from the database
    now (each as plain tables, entries left empty dropped)."""
    from core.store.kuzu_store import ChatStore

    assert isinstance(store, ChatStore)
    live = store.active_graph()
    store._graph = None
    try:
        fresh = store.active_graph()
    finally:
        store._graph = live

    def tables(g: Any) -> dict[str, Any]:
        def sets(d: dict[str, Any]) -> dict[str, set[str]]:
            return {k: set(v) for k, v in d.items() if v}

        facts = {
            f.id: (f.src, f.dst, f.predicate, f.confidence, f.valid_from, f.sources, f.world)
            for f in g.by_id.values()
        }
        return {
            "facts": facts,
            "out": sets(g.out),
            "inn": sets(g.inn),
            "mentions": sets(g.mentions),
            "provenance": g.provenance,
            "touching": sets(g.touching),
            "superseded": g.superseded,
        }

    return tables(live), tables(fresh)


def pool_of(core: Core) -> StorePool:
    assert isinstance(core.pool, StorePool)
    return core.pool


@pytest.fixture
async def core(tmp_path: Path, ontology: Ontology) -> AsyncIterator[Core]:
    c = build_core(tmp_path / "data", HashEmbedder(), ontology)
    yield c
    await c.close()


@pytest.fixture
async def use_core(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> AsyncIterator[Core]:
    """A Core on the bot's offline multilingual model (USE), default settings."""
    c = build_core(tmp_path / "data", use_embedder, ontology)
    yield c
    await c.close()


@pytest.fixture
async def real_core(
    tmp_path: Path, ontology: Ontology, real_embedder: Embedder
) -> AsyncIterator[Core]:
    c = build_core(tmp_path / "data", real_embedder, ontology)
    yield c
    await c.close()
