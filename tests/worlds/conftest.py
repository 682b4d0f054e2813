"""World tests: a Core in adaptive mode with the offline multilingual USE model and a clock
the test moves (no sleeping)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.ports import Embedder
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology
from tests.doubles import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def adaptive_core(
    data_dir: Path, embedder: Embedder, ontology: Ontology, clock: ManualClock, **config: object
) -> Core:
    pool = StorePool(data_dir, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    cfg = CoreConfig(world_mode="adaptive", **config)  # type: ignore[arg-type]
    return Core(pool=pool, embedder=embedder, ontology=ontology, config=cfg, clock=clock)


@pytest.fixture
async def world_core(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder, clock: ManualClock
) -> AsyncIterator[Core]:
    c = adaptive_core(tmp_path / "data", use_embedder, ontology, clock)
    yield c
    await c.close()
