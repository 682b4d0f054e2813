"""The store pool's idle checkpoint: a quiet chat's writes move from the WAL (and Kùzu's
memory) into the database file, one timer per chat, harmless after eviction or close."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.kuzu_store import ChatStore
from core.store.pool import StorePool
from ontology import Ontology


def wal(pool: StorePool, chat: str) -> Path:
    return pool.path(chat) / "graph.kz.wal"


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


async def test_one_timer_per_chat_and_disabled_at_zero(tmp_path: Path, ontology: Ontology) -> None:
    core = make(tmp_path / "a", ontology, idle=60)
    for i in range(5):
        await core.remember("c", author="a", text=f"s{i} depends on s{i + 1}")
    await core.remember("d", author="a", text="x depends on y")
    assert sorted(core.pool._idle) == ["c", "d"]  # re-armed, not piled up
    await core.close()
    assert not core.pool._idle
    off = make(tmp_path / "b", ontology, idle=0)
    await off.remember("c", author="a", text="checkout depends on payments")
    assert not off.pool._idle
    await off.close()


async def test_timer_of_an_evicted_chat_is_harmless(tmp_path: Path, ontology: Ontology) -> None:
    core = make(tmp_path, ontology, idle=0.1, max_open=1)
    await core.remember("c", author="a", text="checkout depends on payments")
    await core.remember("d", author="a", text="x depends on y")  # evicts c (closed, checkpointed)
    await asyncio.sleep(0.4)
    assert not wal(core.pool, "c").exists() and not wal(core.pool, "d").exists()
    assert [f.object for f in await core.facts("c")] == ["payments"]
    await core.close()


async def test_detached_chats_keep_their_indexes_and_come_back(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    pool = StorePool(
        tmp_path,
        dim=emb.dim,
        model_name=emb.model_name,
        max_open=1,
        max_cached=2,
        idle_checkpoint_s=0,  # a strict bound: no grace for chats in use
    )
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    await core.remember("c", author="a", text="checkout depends on payments")
    store_c = await pool.run("c", lambda s: s)
    await core.remember("d", author="a", text="x depends on y")  # c's handle is detached
    assert pool.attached == 1 and not store_c.attached
    assert not wal(pool, "c").exists()  # checkpointed before closing
    assert "checkout" in {e.name for e in store_c.entities.values()}  # indexes kept

    await core.remember("c", author="a", text="payments depends on antifraud")  # re-attached
    assert store_c.attached and await pool.run("c", lambda s: s) is store_c  # not rebuilt
    answer = await core.ask("c", "What does checkout depend on?")
    assert ["checkout", "payments", "antifraud"] in answer.paths

    await core.remember("e", author="a", text="p depends on q")  # beyond max_cached: d goes
    assert list(pool._open) == ["c", "e"] and pool.attached == 1
    for chat, obj in (("c", "payments"), ("d", "y"), ("e", "q")):
        assert obj in {f.object for f in await core.facts(chat)}  # all on disk, any state
    await core.close()


async def test_a_burst_keeps_busy_handles_until_they_go_quiet(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    pool = StorePool(
        tmp_path,
        dim=emb.dim,
        model_name=emb.model_name,
        max_open=1,
        max_open_burst=3,
        idle_checkpoint_s=1.0,
    )
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    for chat in ("c", "d", "e"):  # busy at once: no handle is closed under them
        await core.remember(chat, author="a", text=f"{chat}1 depends on {chat}2")
    assert pool.attached == 3
    await core.remember("f", author="a", text="f1 depends on f2")  # beyond the burst cap
    assert pool.attached == 3
    for _ in range(100):  # quiet now: back to max_open
        if pool.attached == 1:
            break
        await asyncio.sleep(0.1)
    assert pool.attached == 1
    for chat in ("c", "d", "e", "f"):
        assert [f.object for f in await core.facts(chat)] == [f"{chat}2"]
        assert not wal(pool, chat).exists() or chat == "f"  # detached ones were checkpointed
    await core.close()


async def test_chats_busy_at_once_never_open_more_handles_than_the_burst(
    tmp_path: Path, ontology: Ontology
) -> None:
    """The bound holds when a handle opens, not only after the operation: 12 chats writing
    at once (each write holds its handle a while) never have more than 3 databases open."""
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, max_open=1, max_open_burst=3)
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())
    seen: list[int] = []

    def open_handles(store: ChatStore) -> None:
        time.sleep(0.02)  # a Kùzu call of some length, so operations overlap
        seen.append(sum(s.attached for s in list(pool._open.values())))

    async def chat_user(chat: str) -> None:
        for n in range(3):
            await core.remember(chat, author="a", text=f"{chat}{n} depends on {chat}x")
            await pool.run(chat, open_handles)

    await asyncio.gather(*(chat_user(f"c{k}") for k in range(12)))
    assert len(seen) == 36 and max(seen) <= 3
    for k in range(12):
        assert len(await core.facts(f"c{k}")) == 3
    await core.close()
