"""A core on the hash embedder with the durable inbound log, and what the durability tests
compare: the chat they write to, a store torn as a kill leaves it, facts as sentences."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology

CHAT = "telegram:42"


def make_core(
    data: Path, ontology: Ontology, *, idle_checkpoint_s: float = 2.0, **config: Any
) -> Core:
    emb = HashEmbedder()
    pool = StorePool(
        data, dim=emb.dim, model_name=emb.model_name, idle_checkpoint_s=idle_checkpoint_s
    )
    log = SqliteInboundLog(data / "inbound.sqlite3")
    return Core(
        pool=pool, embedder=emb, ontology=ontology, config=CoreConfig(**config), inbound=log
    )


async def torn_and_reopened(
    core: Core, data: Path, ontology: Ontology, tear: Any, ids: Sequence[str]
) -> Core:
    """What a kill during a batch's commit leaves (`tear` on the store: kuzu 0.11.3 brings the
    nodes back from the WAL, not the COPYed edges), the records of `ids` not done, and the
    chat opened again by a new core, as the next start finds it."""
    await core.pool.run(CHAT, tear)
    await core.close()
    with sqlite3.connect(data / "inbound.sqlite3") as db:
        db.execute(f"UPDATE record SET done = 0 WHERE id IN ({', '.join('?' * len(ids))})", ids)
    return make_core(data, ontology)


def sentences(facts: list) -> set[tuple[str, str]]:  # type: ignore[type-arg]
    return {(f.sentence(), f.status) for f in facts}
