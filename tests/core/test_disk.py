"""Disk grows with the data, not with checkpoints (issue 14): sizes of a real Kùzu shard in
tmp_path. A fresh shard's rel tables are seeded by COPY (core/store/shard.py's _seed), so their
CSR headers are not laid out uncompressed at a full node group's capacity; repeated checkpoints
and re-opens without writes add nothing."""

from __future__ import annotations

from pathlib import Path

from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology

CHAT = "telegram:42"
MB = 1 << 20


def make(data: Path, ontology: Ontology, idle: float = 0) -> Core:
    emb = HashEmbedder()
    pool = StorePool(data, dim=emb.dim, model_name=emb.model_name, idle_checkpoint_s=idle)
    return Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())


def pool_of(core: Core) -> StorePool:
    assert isinstance(core.pool, StorePool)
    return core.pool


async def say(core: Core, start: int, n: int) -> None:
    """n messages, each with a fact and two mentions (both rel tables grow)."""
    for i in range(start, start + n):
        await core.remember(CHAT, author="ann", text=f"service{i} depends on service{i + 1}")


def size(core: Core) -> int:
    return sum(f.stat().st_size for f in pool_of(core).path(CHAT).glob("graph.kz*"))


async def test_checkpoints_without_writes_do_not_grow_a_shard(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make(tmp_path, ontology)
    await say(core, 0, 200)
    await core.pool.release(CHAT)
    grown = size(core)
    # measured on kuzu 0.11.3: 8.5 MB seeded, of which ~5 MB are the three node tables'
    # primary-key indexes; 23.8 MB without the seed (uncompressed CSR headers, re-laid)
    assert grown < 12 * MB
    for _ in range(5):
        await core.pool.release(CHAT)
        await core.close()
        core = make(tmp_path, ontology)
        await core.stats(CHAT)  # opens the shard again
    await core.pool.release(CHAT)
    assert size(core) == grown
    await core.close()
