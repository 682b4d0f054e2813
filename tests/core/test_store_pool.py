"""The store pool: a quiet shard's writes move from the WAL (and Kùzu's memory) into the
database file, one timer per shard, harmless after eviction or close; chats share a few shard
databases with one writer each; the number of shards is fixed until the chats are moved."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.kuzu_store import ChatStore
from core.store.pool import StorePool
from ontology import Ontology


def wal(pool: StorePool, chat: str) -> Path:
    return pool.path(chat) / "graph.kz.wal"


def entries(path: Path) -> list[str]:
    return [p.name for p in path.iterdir()]


def make(tmp_path: Path, ontology: Ontology, idle: float, max_open: int = 8) -> Core:
    emb = HashEmbedder()
    pool = StorePool(
        tmp_path, dim=emb.dim, model_name=emb.model_name, max_open=max_open, idle_checkpoint_s=idle
    )
    return Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())


async def test_a_quiet_chat_is_checkpointed(tmp_path: Path, ontology: Ontology) -> None:
    core = make(tmp_path, ontology, idle=0.2)
    await core.remember("c", author="a", text="checkout depends on payments")
    assert wal(core.pool, "c").exists()
    assert await core.pool.run("c", lambda s: s.dirty)
    for _ in range(50):
        await asyncio.sleep(0.1)
        if not wal(core.pool, "c").exists():
            break
    assert not wal(core.pool, "c").exists()
    assert not await core.pool.run("c", lambda s: s.dirty)
    await core.close()
    again = make(tmp_path, ontology, idle=0.2)
    assert [f.object for f in await again.facts("c")] == ["payments"]
    await again.close()


async def test_one_timer_per_shard_and_disabled_at_zero(tmp_path: Path, ontology: Ontology) -> None:
    core = make(tmp_path / "a", ontology, idle=60)
    for i in range(5):
        await core.remember("c", author="a", text=f"s{i} depends on s{i + 1}")
    await core.remember("d", author="a", text="x depends on y")
    pool = core.pool
    assert isinstance(pool, StorePool)
    shards = sorted({pool.shard_index("c"), pool.shard_index("d")})
    assert sorted(pool._idle) == shards  # re-armed, not piled up
    await core.close()
    assert not pool._idle
    off = make(tmp_path / "b", ontology, idle=0)
    await off.remember("c", author="a", text="checkout depends on payments")
    assert not off.pool._idle  # type: ignore[attr-defined]
    await off.close()


async def test_timer_of_an_evicted_chat_is_harmless(tmp_path: Path, ontology: Ontology) -> None:
    emb = HashEmbedder()
    pool = StorePool(
        tmp_path, dim=emb.dim, model_name=emb.model_name, max_cached=1, idle_checkpoint_s=0.1
    )
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    await core.remember("c", author="a", text="checkout depends on payments")
    await core.remember("d", author="a", text="x depends on y")  # c's indexes are dropped
    assert list(pool._open) == ["d"]
    for _ in range(50):  # a shard's first checkpoints take up to ~0.4 s (measured)
        await asyncio.sleep(0.1)
        if not wal(pool, "c").exists() and not wal(pool, "d").exists():
            break
    assert not wal(pool, "c").exists() and not wal(pool, "d").exists()
    assert [f.object for f in await core.facts("c")] == ["payments"]  # reloaded from disk
    await core.close()


async def test_released_chats_keep_their_indexes_and_evicted_ones_come_back(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    pool = StorePool(
        tmp_path, dim=emb.dim, model_name=emb.model_name, max_cached=2, idle_checkpoint_s=0
    )
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    await core.remember("c", author="a", text="checkout depends on payments")
    store_c = await pool.run("c", lambda s: s)
    await pool.release("c")  # the shard is checkpointed, the chat's indexes kept
    assert not wal(pool, "c").exists()
    assert "checkout" in {e.name for e in store_c.entities.values()}
    await core.remember("c", author="a", text="payments depends on antifraud")
    assert await pool.run("c", lambda s: s) is store_c  # not rebuilt
    answer = await core.ask("c", "What does checkout depend on?")
    assert ["checkout", "payments", "antifraud"] in answer.paths

    await core.remember("d", author="a", text="x depends on y")
    await core.remember("e", author="a", text="p depends on q")  # beyond max_cached: c goes
    assert list(pool._open) == ["d", "e"]
    for chat, obj in (("c", "payments"), ("d", "y"), ("e", "q")):
        assert obj in {f.object for f in await core.facts(chat)}  # all on disk, any state
    assert pool.attached <= pool.shards
    await core.close()


async def test_chats_busy_at_once_share_the_shards_one_writer_each(
    tmp_path: Path, ontology: Ontology
) -> None:
    """12 chats writing at once: never more databases open than shards, never two operations
    inside one shard at the same time (Kùzu 0.11 fails a second concurrent write transaction),
    and chats of different shards do overlap."""
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=2)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    inside: dict[int, int] = {0: 0, 1: 0}
    most = {0: 0, 1: 0}
    overlap: list[int] = []

    def hold(store: ChatStore) -> None:
        index = pool.shard_index(store.chat)
        inside[index] += 1
        most[index] = max(most[index], inside[index])
        overlap.append(sum(inside.values()))
        time.sleep(0.02)  # a Kùzu call of some length, so operations overlap
        inside[index] -= 1

    async def chat_user(chat: str) -> None:
        for n in range(3):
            await core.remember(chat, author="a", text=f"{chat}{n} depends on {chat}x")
            await pool.run(chat, hold)

    chats = [f"c{k}" for k in range(12)]
    assert {pool.shard_index(c) for c in chats} == {0, 1}
    await asyncio.gather(*(chat_user(c) for c in chats))
    assert most == {0: 1, 1: 1} and max(overlap) == 2
    assert pool.attached == 2
    for chat in chats:
        assert len(await core.facts(chat)) == 3
    await core.close()


async def test_another_number_of_shards_is_refused_until_the_chats_move(
    tmp_path: Path, ontology: Ontology
) -> None:
    from core.errors import StoreError
    from core.store.transfer import reshard

    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=2)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    chats = [f"chat{k}" for k in range(6)]
    for chat in chats:
        await core.remember(chat, author="a", text=f"{chat} depends on payments")
    before = {chat: dict(await core.export(chat), exported_at=None) for chat in chats}
    await core.close()
    with pytest.raises(StoreError, match="reshard"):
        StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=3)
    assert reshard(tmp_path, 3) == 6
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=3)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    assert pool.chats() == sorted(chats)
    assert {pool.shard_index(c) for c in chats} == {0, 1, 2}
    for chat in chats:
        assert dict(await core.export(chat), exported_at=None) == before[chat]
    assert any(name.startswith("shards.before-") for name in entries(tmp_path))  # kept
    await core.close()
