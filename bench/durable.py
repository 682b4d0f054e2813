"""What the durable inbound log costs per message (issue 12).

    python -m bench.durable [--messages 300] [--rounds 3]

Ingests the same chat messages into two cores on the offline path, one without the log and one
with it (SQLite WAL, synchronous=FULL: a fsync per commit, two commits per message), message by
message in turns so machine noise hits both alike; prints medians and the ratio.
Also the log alone: begin + finish of one message, and recording a Telegram batch of 20
updates (one commit), on this machine's disk.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.common import offline_embedder, scratch_dir, summary
from bench.crash import chat_lines
from core.inbound import ChatRecord
from core.ports import Embedder
from core.service import Core, CoreConfig
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import load_ontology


def make_core(root: Path, embedder: Embedder, *, durable: bool) -> Core:
    pool = StorePool(root, dim=embedder.dim, model_name=embedder.model_name)
    inbound = SqliteInboundLog(root / "inbound.sqlite3") if durable else None
    return Core(
        pool=pool,
        embedder=embedder,
        ontology=load_ontology(),
        config=CoreConfig(),
        inbound=inbound,
    )


async def ingest_ms(embedder: Embedder, *, n: int, seed: int) -> tuple[list[float], list[float]]:
    """Per-message ingest times (ms) of the same messages into two cores, one without the log
    and one with it, message by message in turns, so machine noise hits both alike."""
    plain = make_core(scratch_dir(), embedder, durable=False)
    logged = make_core(scratch_dir(), embedder, durable=True)
    times: tuple[list[float], list[float]] = ([], [])
    for i, line in enumerate(chat_lines(n, seed)):
        pair = (plain, logged) if i % 2 else (logged, plain)  # who goes first alternates too
        for core in pair:
            t0 = time.perf_counter()
            await core.remember(
                "bench", author=line["author"], text=line["text"], message_id=line["id"]
            )
            times[core is logged].append((time.perf_counter() - t0) * 1000)
    await plain.close()
    await logged.close()
    return times[0][5:], times[1][5:]  # the first messages open the chat


def log_alone(n: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory(prefix="graphmem-bench-log-") as tmp:
        log = SqliteInboundLog(Path(tmp) / "inbound.sqlite3")
        ts = datetime.now(UTC)
        record_ms, batch_ms = [], []
        for i in range(n):
            t0 = time.perf_counter()
            log.begin(ChatRecord("bench", f"m{i}", "message", "ann", "some text", ts, "", False))
            log.finish("bench", f"m{i}")
            record_ms.append((time.perf_counter() - t0) * 1000)
        for b in range(max(n // 10, 10)):
            items = [(f"{b}-{i}", '{"update_id": 1, "message": {}}') for i in range(20)]
            t0 = time.perf_counter()
            log.record_deliveries("telegram", items)
            batch_ms.append((time.perf_counter() - t0) * 1000)
        log.close()
    return record_ms, batch_ms


async def main_async(messages: int, rounds: int) -> None:
    embedder = offline_embedder()
    embedder.embed(["warm up"])
    plain: list[float] = []
    logged: list[float] = []
    for r in range(rounds):
        a, b = await ingest_ms(embedder, n=messages, seed=r)
        plain += a
        logged += b
    print(summary("ingest per message, offline path, no log", plain))
    print(summary("ingest per message, offline path, with the inbound log", logged))
    p50_plain, p50_logged = statistics.median(plain), statistics.median(logged)
    print(
        f"log cost per message: {p50_logged - p50_plain:+.2f} ms p50 "
        f"({p50_logged / p50_plain:.2f}x the ingest without it)"
    )
    record_ms, batch_ms = log_alone(messages)
    print(summary("log alone: record + mark done, one message (2 commits)", record_ms))
    print(summary("log alone: record a Telegram batch of 20 updates (1 commit)", batch_ms))


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.durable")
    p.add_argument("--messages", type=int, default=300)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    asyncio.run(main_async(args.messages, args.rounds))


if __name__ == "__main__":
    main()
