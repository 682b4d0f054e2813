"""Disk grows with the data, not with checkpoints (issue 14): sizes of a real Kùzu shard in
tmp_path. A fresh shard's rel tables are seeded by COPY (core/store/shard.py's _seed), so their
CSR headers are not laid out uncompressed at a full node group's capacity; repeated checkpoints
and re-opens without writes add nothing; a quiet shard grown well beyond its data is compacted,
whole, and a compaction killed half-way loses nothing."""

from __future__ import annotations

from pathlib import Path

from core.service import Core
from core.store.shard import COMPACT_RATIO, COMPACT_SLACK, ShardDb, chat_tag, read_json
from core.store.transfer import dump_chat, load_chat
from ontology import Ontology
from tests.conftest import hash_core, pool_of

CHAT = "telegram:42"
MB = 1 << 20


def make(data: Path, ontology: Ontology, idle: float = 0) -> Core:
    return hash_core(data, ontology, idle_checkpoint_s=idle)


async def say(core: Core, start: int, n: int) -> None:
    """n messages, each with a fact and two mentions (both rel tables grow)."""
    for i in range(start, start + n):
        await core.remember(CHAT, author="ann", text=f"service{i} depends on service{i + 1}")


def size(core: Core) -> int:
    return sum(f.stat().st_size for f in pool_of(core).path(CHAT).glob("graph.kz*"))


def file_bytes(core: Core) -> int:
    return (pool_of(core).path(CHAT) / "graph.kz").stat().st_size


async def test_checkpoints_without_writes_do_not_grow_a_shard(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make(tmp_path, ontology)
    await say(core, 0, 200)
    await core.pool.release(CHAT)
    grown = size(core)
    # measured on kuzu 0.11.3: 7.9 MB seeded (8.8 MB with schema 3's string keys and FLOAT[]
    # vectors), most of it the three node tables' primary-key indexes; 23.8 MB without the
    # seed (uncompressed CSR headers, re-laid)
    assert grown < 10 * MB
    for _ in range(5):
        await core.pool.release(CHAT)
        await core.close()
        core = make(tmp_path, ontology)
        await core.stats(CHAT)  # opens the shard again
    await core.pool.release(CHAT)
    assert size(core) == grown
    await core.close()


async def test_a_quiet_shard_grown_beyond_its_data_is_compacted_and_stays_whole(
    tmp_path: Path, ontology: Ontology
) -> None:
    # quiet only where the test waits: a message on a loaded machine can take longer than a
    # short timer, and a compaction in the middle of `say` made the first check fail
    core = make(tmp_path, ontology, idle=1.0)
    pool = pool_of(core)

    def compacted() -> int:
        return int(read_json(pool.path(CHAT) / "compacted.json", {"bytes": 0})["bytes"])

    await say(core, 0, 200)
    await pool.settled()  # quiet: checkpointed, and compacted (a shard never compacted)
    first = compacted()
    assert first == file_bytes(core)
    facts = {f.sentence() for f in await core.facts(CHAT, limit=1000)}
    n = 200
    while compacted() == first:  # grows until due (COMPACT_RATIO), quiet after each 100
        assert file_bytes(core) <= first * COMPACT_RATIO + COMPACT_SLACK
        await say(core, n, 100)
        n += 100
        await pool.settled()
        assert n <= 800, "never compacted again"
    assert compacted() == file_bytes(core)
    assert (compacted() - first) / (n - 200) < 8 * 1024  # bytes per message, compacted
    assert facts <= {f.sentence() for f in await core.facts(CHAT, limit=1000)}  # cached chat
    assert await core.stats(CHAT) == {"messages": n, "entities": n + 1, "facts": n, "pending": 0}
    await core.close()
    again = make(tmp_path, ontology)
    assert (await again.stats(CHAT))["facts"] == n
    await again.close()


async def test_a_compaction_killed_half_way_loses_nothing(
    tmp_path: Path, ontology: Ontology
) -> None:
    """The states a kill during ShardDb.compact can leave: the new file half-written beside
    the old one, or the old file moved aside before the new one was moved in."""
    core = make(tmp_path / "data", ontology)
    await say(core, 0, 5)
    path = pool_of(core).path(CHAT)
    await core.close()
    shard = ShardDb(path, buffer_pool_bytes=64 << 20)
    before = dump_chat(shard, chat_tag(CHAT))
    assert len(before["Message"]) == 5
    shard.close()
    work = path / "compact.tmp"
    (work / "export").mkdir(parents=True)
    (work / "graph.kz").write_bytes(b"half an import")
    shard = ShardDb(path, buffer_pool_bytes=64 << 20)  # killed before the swap
    assert dump_chat(shard, chat_tag(CHAT)) == before and not work.exists()
    shard.close()

    compacted = ShardDb(tmp_path / "copy", buffer_pool_bytes=64 << 20)
    load_chat(compacted, before)
    compacted.compact()
    compacted.close()
    (work / "old").mkdir(parents=True)
    (path / "graph.kz").rename(work / "old" / "graph.kz")
    (tmp_path / "copy" / "graph.kz").rename(work / "graph.kz")
    shard = ShardDb(path, buffer_pool_bytes=64 << 20)  # killed between the renames
    assert dump_chat(shard, chat_tag(CHAT)) == before and not work.exists()
    shard.close()
