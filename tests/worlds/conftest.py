"""World tests: a Core in adaptive mode with the offline multilingual USE model and a clock
the test moves (no sleeping)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

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


CODE = [
    "The billing service is built with Python and Django",
    "O serviço de pagamentos usa Python e Kafka",
    "Сервис отчётов использует Python и Postgres",
    "We deploy the Python code to Kubernetes every Friday",
    "Our CI pipeline runs the Python unit tests on every commit",
    "The Python linter fails on the new payments module",
    "O deploy do código Python quebrou o build de novo",
]


SNAKE = [
    "Monty is a ball python, he eats one mouse a week",
    "My python uses a heat lamp in his terrarium",
    "Meu píton come ratos congelados uma vez por semana",
    "Моя змея питон живёт в террариуме и ест мышей",
    "The python shed its skin yesterday, the terrarium needs cleaning",
    "The reptile vet says my python snake is healthy",
]


async def tell_hourly(core: Core, chat: str, clock: ManualClock, texts: list[str]) -> list[str]:
    worlds = []
    for text in texts:
        clock.advance(hours=1)  # past the continuity window: content alone decides
        worlds.append((await core.remember(chat, author="ana", text=text)).world)
    return worlds


def partition(data: dict[str, Any]) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for m in data["messages"]:
        groups.setdefault(m["world"], set()).add(m["text"])
    return {frozenset(g) for g in groups.values()}
