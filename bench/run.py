"""Benchmarks for the offline path. `make bench` (or `python -m bench.run --quick`).

Prints ingest latency, retrieval latency at 1k / 10k / 100k facts in one chat beside its floor
(the query embedding plus a bare exact scan of the chat's entity vectors), resident memory after
100 chats x 50 messages, and 50 concurrent chats. Medians are what to compare: the machine is
shared and noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bench.common import offline_embedder, rss_mb, scratch_dir, summary
from core.language import name_key
from core.service import Core, CoreConfig
from core.store.kuzu_store import WorldRow
from core.store.memory import tune_allocator
from core.store.pool import StorePool
from ontology import load_ontology


def make_core(root: Path, embedder, max_open: int = 16) -> Core:  # type: ignore[no-untyped-def]
    pool = StorePool(root, dim=embedder.dim, model_name=embedder.model_name, max_open=max_open)
    return Core(pool=pool, embedder=embedder, ontology=load_ontology(), config=CoreConfig())


async def bench_ingest(embedder, n: int) -> None:  # type: ignore[no-untyped-def]
    core = make_core(scratch_dir(), embedder)
    times = []
    for i in range(n):
        text = (
            f"service{i} depends on service{i + 1}"
            if i % 2
            else f"note {i}: lunch at noon, nothing else"
        )
        t0 = time.perf_counter()
        await core.remember("bench", author="u", text=text)
        times.append((time.perf_counter() - t0) * 1000)
    await core.close()
    print(summary("ingest per message (offline path)", times[5:]))


async def bench_retrieval(embedder, sizes: list[int], questions: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    for n_facts in sizes:
        root = scratch_dir()
        core = make_core(root, embedder)
        n_ent = max(n_facts // 2, 10)
        names = [f"svc{i}" for i in range(n_ent)]
        facts = []
        for _ in range(n_facts):
            a = rng.randrange(n_ent)
            b = min(n_ent - 1, a + 1 + int(rng.expovariate(1 / 20)))
            facts.append((f"e{a}", "DEPENDS_ON", f"e{b}", 0.9))
        asked = [int(facts[rng.randrange(n_facts)][0][1:]) for _ in range(questions)]
        # the entities questions name get real embeddings; the rest are random unit vectors
        vecs = rng_vectors(n_ent, embedder.dim, seed=n_facts)
        named = sorted(set(asked))
        for i, v in zip(named, embedder.embed([names[i] for i in named]), strict=True):
            vecs[i] = v
        ents = [(f"e{i}", "service", names[i], name_key(names[i]), vecs[i]) for i in range(n_ent)]
        t0 = time.perf_counter()

        def load(store, ents=ents, facts=facts, vecs=vecs):  # type: ignore[no-untyped-def]
            now = datetime.now(UTC)
            store.upsert_world(WorldRow("w0000000", "services", vecs[0], 1, now, now, ""))
            store.bulk_insert(ents, facts, world="w0000000", now=now)

        await core.pool.run("big", load)
        build = time.perf_counter() - t0
        await core.close()
        core = make_core(root, embedder)  # reopen: load the chat's vectors as a restart would
        t0 = time.perf_counter()
        await core.stats("big")
        reopen = time.perf_counter() - t0
        total, emb_ms, scan_ms = [], [], []
        for i in asked:
            q = f"What does {names[i]} depend on?"
            t0 = time.perf_counter()
            qv = embedder.embed([q])[0]
            emb_ms.append((time.perf_counter() - t0) * 1000)
            matrix = await core.pool.run("big", lambda s: s.entity_vectors.matrix)
            t0 = time.perf_counter()
            sims = matrix @ qv
            np.argpartition(-sims, 5)[:5]
            scan_ms.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            answer = await core.ask("big", q)
            total.append((time.perf_counter() - t0) * 1000)
            assert answer.facts, q
        attach_ms = []  # the pool's way back for a chat whose handle it closed (indexes kept)
        for _ in range(10):
            await core.pool.run("big", lambda s: s.detach())
            t0 = time.perf_counter()
            await core.pool.run("big", lambda s: s.attach())
            attach_ms.append((time.perf_counter() - t0) * 1000)
        await core.close()
        floor = statistics.median(emb_ms) + statistics.median(scan_ms)
        print(
            f"--- {n_facts} facts, {n_ent} entities (bulk build {build:.1f} s, reopen {reopen:.2f} s, "
            f"re-attach p50 {statistics.median(attach_ms):.1f} ms)"
        )
        print(summary("  query embedding", emb_ms))
        print(summary("  bare exact vector scan", scan_ms))
        print(summary("  ask (retrieval + trace write)", total))
        print(
            f"  ratio ask p50 / floor p50 (embedding + scan): {statistics.median(total) / floor:.2f}x"
        )


def rng_vectors(n: int, dim: int, seed: int) -> np.ndarray:  # type: ignore[type-arg]
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


async def bench_memory(chats: int, messages: int, max_open: int) -> None:
    embedder = offline_embedder()
    base = rss_mb()
    core = make_core(scratch_dir(), embedder, max_open=max_open)
    for c in range(chats):
        for m in range(messages):
            await core.remember(
                f"chat{c}", author="u", text=f"service{m} depends on service{m + 1} in team {c}"
            )
    print(
        f"RSS with model loaded: {base:.0f} MB before; {rss_mb():.0f} MB after {chats} chats x "
        f"{messages} messages with at most {max_open} chat databases open (target <= 600 MB)"
    )
    await core.close()


async def bench_concurrency(embedder, chats: int, per_chat: int, max_open: int = 64) -> None:  # type: ignore[no-untyped-def]
    core = make_core(scratch_dir(), embedder, max_open=max_open)
    errors: list[BaseException] = []

    async def talk(c: int) -> None:
        for j in range(per_chat):
            try:
                if j % 4 == 3:
                    await core.ask(f"chat{c}", f"What does s{j - 1} depend on?")
                else:
                    await core.remember(f"chat{c}", author="u", text=f"s{j} depends on s{j + 1}")
            except Exception as exc:  # counted, not hidden
                errors.append(exc)

    t0 = time.perf_counter()
    await asyncio.gather(*(talk(c) for c in range(chats)))
    wall = time.perf_counter() - t0
    peak = rss_mb()  # every busy chat's handle may still be open here
    expected = per_chat - per_chat // 4
    wrong = 0
    for c in range(chats):
        s = await core.stats(f"chat{c}")
        wrong += s["messages"] != expected or s["facts"] != expected
    await core.close()
    ops = chats * per_chat
    print(
        f"concurrency: {chats} chats x {per_chat} ops, at most {max_open} open, in {wall:.1f} s "
        f"= {ops / wall:.0f} ops/s; RSS {peak:.0f} MB at the end; errors {len(errors)}; "
        f"chats with wrong counts {wrong}"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes (a minute)")
    ap.add_argument(
        "--memory-only",
        type=int,
        default=0,
        metavar="MAX_OPEN",
        help="only the memory figure, with this many open chat databases",
    )
    ap.add_argument(
        "--concurrency-only", action="store_true", help="only the concurrent-chats figures"
    )
    args = ap.parse_args()
    if args.memory_only:
        await bench_memory(100, 50, args.memory_only)
        return
    embedder = offline_embedder()
    if args.concurrency_only:
        await concurrency(embedder, args.quick)
        return
    await bench_ingest(embedder, 100 if args.quick else 300)
    await bench_retrieval(
        embedder, [1000, 10000] if args.quick else [1000, 10000, 100000], 30 if args.quick else 60
    )
    # memory in a fresh process, so the big graphs above do not count
    for max_open in (4, 8):  # the default LRU size, and twice that
        await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "bench.run", "--memory-only", str(max_open)],
            check=True,
        )
    await concurrency(embedder, args.quick)


async def concurrency(embedder, quick: bool) -> None:  # type: ignore[no-untyped-def]
    # the default LRU (4) under a burst of more busy chats than it holds, against all open
    for max_open in (4, 64):
        await bench_concurrency(embedder, 20, 40, max_open)
    await bench_concurrency(embedder, 10 if quick else 50, 40 if quick else 200, 4)


if __name__ == "__main__":
    tune_allocator()  # as the bot does at start-up
    asyncio.run(main())
