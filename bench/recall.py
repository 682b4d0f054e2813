"""Recall bench (issue 4): evidence retrieval over messages, no LLM. `python -m bench.recall`.

1. The fixture (tests/fixtures/recall_*.jsonl: 312 turns, 12 dated sessions, 72 labelled
   questions) is ingested through the offline path with the real offline model; for every
   question it prints recall@5 and recall@10 (a labelled turn among the first k evidence ids)
   of the project's `evidence` and, in the same run, of a plain vector top-k over the same
   messages with the same model; per question kind too.
2. The time evidence retrieval adds per question at 10,000 messages in one chat (p50), next to
   the plain vector top-k it replaces.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import offline_embedder, scratch_dir, summary
from core.ports import Embedder
from core.service import Core, CoreConfig
from core.store.kuzu_store import ChatStore
from core.store.pool import StorePool
from ontology import load_ontology

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
CHAT = "recall"


class FixedClock:
    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now


def load_fixture() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    def read(name: str) -> list[dict[str, Any]]:
        lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    return read("recall_conversation.jsonl"), read("recall_questions.jsonl")


def make_core(root: Path, embedder: Embedder, now: datetime, **config: Any) -> Core:
    pool = StorePool(root, dim=embedder.dim, model_name=embedder.model_name, max_open=4)
    return Core(
        pool=pool,
        embedder=embedder,
        ontology=load_ontology(),
        config=CoreConfig(**config),
        clock=FixedClock(now),
    )


async def ingest(core: Core, turns: list[dict[str, Any]], chat: str = CHAT) -> None:
    for turn in turns:
        await core.remember(
            chat,
            author=turn["author"],
            text=turn["text"],
            message_id=turn["id"],
            ts=datetime.fromisoformat(turn["ts"]),
        )


async def evaluate(
    core: Core, questions: list[dict[str, Any]], chat: str = CHAT
) -> dict[str, dict[str, list[float]]]:
    """Per system ("project", "vector") and kind ("all", "when", ...): hits@5 and hits@10."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in questions:
        answer = await core.ask(chat, q["question"])
        q_emb = core.embedder.embed([q["question"]])[0]
        plain = await core.pool.run(
            chat, lambda s, v=q_emb: [m for m, _ in s.message_vectors.top_k(v, 10)]
        )
        gold = set(q["answers"])
        for system, ranked in (("project", answer.evidence), ("vector", plain)):
            for k in (5, 10):
                hit = float(bool(gold & set(ranked[:k])))
                out[system][f"all@{k}"].append(hit)
                out[system][f"{q['kind']}@{k}"].append(hit)
    return out


def recall_table(results: dict[str, dict[str, list[float]]]) -> list[str]:
    kinds = ["all", *sorted({k.split("@")[0] for k in results["project"]} - {"all"})]
    head = (
        f"{'questions':<10} {'n':>3}   {'project @5':>10} {'@10':>6}   {'vector @5':>9} {'@10':>6}"
    )
    lines = [head]
    for kind in kinds:
        p, v = results["project"], results["vector"]
        lines.append(
            f"{kind:<10} {len(p[f'{kind}@10']):>3}   {statistics.mean(p[f'{kind}@5']):>10.3f} "
            f"{statistics.mean(p[f'{kind}@10']):>6.3f}   {statistics.mean(v[f'{kind}@5']):>9.3f} "
            f"{statistics.mean(v[f'{kind}@10']):>6.3f}"
        )
    return lines


async def bench_recall(embedder: Embedder, world_mode: str = "adaptive") -> None:
    turns, questions = load_fixture()
    now = datetime.fromisoformat(questions[0]["ask_at"])
    core = make_core(scratch_dir(), embedder, now, world_mode=world_mode)
    t0 = time.perf_counter()
    await ingest(core, turns)
    print(
        f"recall fixture: {len(turns)} turns ingested in {time.perf_counter() - t0:.1f} s, "
        f"{len(questions)} questions, model {embedder.model_name}, no LLM, worlds {world_mode}"
    )
    results = await evaluate(core, questions)
    await core.close()
    for line in recall_table(results):
        print("  " + line)
    p10 = statistics.mean(results["project"]["all@10"])
    v10 = statistics.mean(results["vector"]["all@10"])
    print(f"  recall@10 project - vector = {p10 - v10:+.3f} (target >= +0.10)")


def _bulk_messages(store: ChatStore, turns: list[dict[str, Any]], n: int, dim: int) -> None:
    rng = random.Random(3)
    vecs = np.random.default_rng(3).standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    start = datetime(2023, 1, 1, 9, tzinfo=UTC)
    world = next(iter(store.worlds), "w_bench0")
    for i in range(0, n, 500):
        with store.transaction():
            for j in range(i, min(n, i + 500)):
                turn = turns[rng.randrange(len(turns))]
                store.add_message(
                    message_id=f"b{j}",
                    author=turn["author"],
                    text=f"{turn['text']} #{rng.randrange(5000)}",
                    ts=start + timedelta(minutes=37 * j),
                    world=world,
                    extraction="offline",
                    embedding=vecs[j],
                )


async def bench_latency(embedder: Embedder, n: int, questions_n: int) -> None:
    turns, questions = load_fixture()
    now = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(minutes=37 * n)
    root = scratch_dir()
    core = make_core(root, embedder, now)
    t0 = time.perf_counter()
    await core.pool.run("big", lambda s: _bulk_messages(s, turns, n, embedder.dim))
    build = time.perf_counter() - t0
    await core.close()
    core = make_core(root, embedder, now)
    t0 = time.perf_counter()
    await core.stats("big")  # reopen: vectors and the keyword index load as after a restart
    reopen = time.perf_counter() - t0
    asked = [q["question"] for q in questions][:questions_n]
    hybrid, plain, whole = [], [], []
    for q in asked:
        q_emb = embedder.embed([q])[0]

        def run_hybrid(s: ChatStore, q: str = q, v: Any = q_emb) -> float:
            t = time.perf_counter()
            core._answers.evidence(s, q, v, [], [])
            return (time.perf_counter() - t) * 1000

        def run_plain(s: ChatStore, v: Any = q_emb) -> float:
            t = time.perf_counter()
            ids = [m for m, _ in s.message_vectors.top_k(v, 10)]
            s.messages(ids)
            return (time.perf_counter() - t) * 1000

        hybrid.append(await core.pool.run("big", run_hybrid))
        plain.append(await core.pool.run("big", run_plain))
        t0 = time.perf_counter()
        await core.ask("big", q)
        whole.append((time.perf_counter() - t0) * 1000)
    await core.close()
    print(f"--- {n} messages in one chat (build {build:.1f} s, reopen with index {reopen:.2f} s)")
    print(summary("  evidence: hybrid recall", hybrid))
    print(summary("  evidence: plain vector top-k", plain))
    print(summary("  ask (whole question, no LLM)", whole))
    added = statistics.median(hybrid)
    print(
        f"  evidence retrieval p50 per question: {added:.2f} ms "
        f"({added - statistics.median(plain):+.2f} ms over plain vector top-k; target <= 10 ms)"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--questions", type=int, default=72)
    ap.add_argument("--skip-latency", action="store_true")
    args = ap.parse_args()
    embedder = offline_embedder()
    for mode in ("adaptive", "single"):  # worlds must not cost recall (issue 15)
        await bench_recall(embedder, mode)
    if args.skip_latency:
        return
    await bench_latency(embedder, args.messages, args.questions)


if __name__ == "__main__":
    asyncio.run(main())
