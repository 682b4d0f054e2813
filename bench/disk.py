"""Disk growth of chats written through the core (issue 14, target 3): bytes per message at
quarters of the way, and growth from checkpoints alone. Run by `python -m bench.bulk` (its
`--disk-*` options; `--skip disk` leaves it out)."""

from __future__ import annotations

from bench.chatter import PEOPLE, stream
from bench.common import du_kb, in_process_embedder, scratch_dir


async def bench_disk(n: int, chats: int = 1, pause: bool = True, embedder: str = "minilm") -> None:
    """n messages over `chats` chats (sharing the shard databases), then 10 checkpoints
    without writes: bytes per message, and growth from checkpoints alone. At each quarter
    the writer pauses until its shards are quiet (the pool's idle checkpoint, and its
    compaction when due, as a chat's pause would bring), or with pause=False checkpoints
    the first chat's shard at once."""
    import logging

    from bench.run import make_core
    from core.store.pool import StorePool

    compactions: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            compactions.append(record.getMessage())

    pool_log = logging.getLogger("core.store.pool")
    pool_log.setLevel(logging.INFO)
    pool_log.addHandler(Collect(logging.INFO))
    root = scratch_dir()
    core = make_core(root, in_process_embedder(embedder))
    pool = core.pool
    assert isinstance(pool, StorePool)
    marks = {n // 4, n // 2, n}
    sizes = []
    for i, (text, _) in enumerate(stream(21, n, question_every=0), start=1):
        await core.remember(f"disk{i % chats}", author=PEOPLE[i % len(PEOPLE)], text=text)
        if i in marks:
            if pause:
                await pool.settled()
            else:
                await pool.run("disk0", lambda s: s.checkpoint())
            sizes.append((i, du_kb(root / "shards")))
    for _ in range(10):  # checkpoints and re-opens with no new data
        await pool.run("disk0", lambda s: (s.detach(), s.attach()))
    idle = du_kb(root / "shards")
    await core.close()
    closed = du_kb(root / "shards")
    grow = ", ".join(f"{k} msgs {kb / 1024:.1f} MB" for k, kb in sizes)
    print(
        f"disk, {chats} chat(s), {embedder}, {'quiet pauses' if pause else 'no pauses'}: {grow}; "
        f"{closed / n:.1f} KB per message at {n} (target <= 10); after 10 checkpoints with no "
        f"writes {idle / 1024:.1f} MB, closed {closed / 1024:.1f} MB"
    )
    for line in compactions:
        print(f"  {line}")
