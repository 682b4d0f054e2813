"""Shared fixtures: a real Core on a real Kùzu database in tmp_path.

`core` uses the deterministic HashEmbedder (fast, for front-end and unit tests); `real_core`
uses the real offline fastembed model (all-MiniLM-L6-v2 int8 assembled from PyPI packages).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.embedding import HashEmbedder
from core.ports import Embedder
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


def build_core(data_dir: Path, embedder: Embedder, ontology: Ontology, **config: object) -> Core:
    pool = StorePool(data_dir, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    return Core(pool=pool, embedder=embedder, ontology=ontology, config=CoreConfig(**config))  # type: ignore[arg-type]


@pytest.fixture
async def core(tmp_path: Path, ontology: Ontology) -> AsyncIterator[Core]:
    c = build_core(tmp_path / "data", HashEmbedder(), ontology)
    yield c
    await c.close()


@pytest.fixture
async def real_core(
    tmp_path: Path, ontology: Ontology, real_embedder: Embedder
) -> AsyncIterator[Core]:
    c = build_core(tmp_path / "data", real_embedder, ontology)
    yield c
    await c.close()
