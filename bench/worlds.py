"""World routing on the labelled streams: purity and fragmentation per model and part.

    python -m bench.worlds [--models minilm,use,use-en] [--skip-latency]
                           [--parts tune,heldout,first,en-tune,en-heldout,unseen,w3-tune,unseen4,w4-tune,unseen5,w5-tune]

The parts: the second labelled stream's tuning part (tests/fixtures/worlds2/tune.jsonl) and
held-out part (heldout.jsonl, 299 messages, 12 topics: never tuned on, run only to report),
the first stream (tests/fixtures/worlds_stream.jsonl: 216 messages, 8 topics), all short
en/pt/ru chat messages with ambiguous words across topics, and an English-only stream of the
second one's structure (tests/fixtures/worlds_en: the same 12 topics, 300 messages in each of
its tuning and held-out parts, the held-out part written first and never tuned on), for the
English-only model: the English third of a multilingual part is a sparser chat than any chat
written in English. A third stream (tests/fixtures/worlds3: `unseen`, held-out, and `w3-tune`,
312 messages each) has 12 other topics, closer to each other (home renovation and a
construction site, office IT and phone repair); it was written 2026-12-03, after everything
above was tuned. A fourth (tests/fixtures/worlds4: `unseen4`, 312 messages) is one company's
team chat (a coffee roaster: orders, the online store, the roaster, payroll, the van...),
twelve topics of one business, written 2026-12-06, reported only; `w4-tune` is its tuning
part (the same topics, new messages, written after it by another helper). A fifth
(tests/fixtures/worlds5: `unseen5`, 312 messages, reported only) is worlds2's design again,
twelve unrelated everyday topics with colliding words, written 2026-12-07 after everything
above was tuned: whether worlds2's held-out figures hold on a stream like it; `w5-tune` is
its tuning part (the same topics, new messages, by another helper that read neither). Each goes through the real Core
(Kùzu store, offline extraction) in adaptive mode, read in order (live routing) and then
after the regrouping job:

    purity        share of messages in the world holding most of their topic (the issue's
                  definition: low when a topic is split or mixed)
    cluster       share of messages whose world's majority topic is their own (mixing only)
    worlds/topic  distinct worlds a topic's messages ended in (fragmentation)
    names         (after the job) share of messages in a world whose offline name the model
                  puts nearest the label of the world's majority topic (named_for_topic)

Embeddings are computed once per model and cached, so the figures measure routing only.
Under each part, its ceiling (bench.worlds.separability): the scores of routing each message
to its topic's true centroid, alone and with the chat's runs; a ceiling of the model on that
stream, not of the router (a stray message costs worlds per topic even there).
The `minilm` rows take only the English messages of each part (an English model); `use-en`
(not in the default list) runs USE on those same English rows, the control that tells the
model apart from the sparser stream: a third of the messages, ~9 per topic, runs of ~2
messages instead of ~3.6.
Routing latency at 1,000 worlds (excluding the embedding) is printed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from core.calibration import Calibration
from core.embedding.fastembed import BUNDLED_MODEL, FastEmbedEmbedder, bundled_minilm_dir
from core.ports import Embedder
from core.service import Core, CoreConfig
from core.store.kuzu_store import ChatStore
from core.store.pool import StorePool
from core.worlds import (
    REFERENCE,
    WorldParams,
    from_calibration,
    params_for,
    question_worlds,
    route,
)
from ontology import load_ontology

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
STREAM = FIXTURES / "worlds_stream.jsonl"
PARTS = {
    "tune": FIXTURES / "worlds2" / "tune.jsonl",
    "heldout": FIXTURES / "worlds2" / "heldout.jsonl",
    "first": STREAM,
    "en-tune": FIXTURES / "worlds_en" / "tune.jsonl",
    "en-heldout": FIXTURES / "worlds_en" / "heldout.jsonl",
    "unseen": FIXTURES / "worlds3" / "unseen.jsonl",
    "w3-tune": FIXTURES / "worlds3" / "tune.jsonl",
    "unseen4": FIXTURES / "worlds4" / "unseen.jsonl",
    "w4-tune": FIXTURES / "worlds4" / "tune.jsonl",
    "unseen5": FIXTURES / "worlds5" / "unseen.jsonl",
    "w5-tune": FIXTURES / "worlds5" / "tune.jsonl",
}


def load_stream(path: Path = STREAM) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


class CachedEmbedder:
    """Wraps an embedder; every text is embedded once per process."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.cache: dict[str, npt.NDArray[np.float32]] = {}

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for t, v in zip(missing, self.inner.embed(missing), strict=True):
                self.cache[t] = v
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])


class FixedClock:
    def __init__(self) -> None:
        self.t = datetime(2026, 3, 2, tzinfo=UTC)

    def now(self) -> datetime:
        return self.t


def score(rows: list[dict[str, Any]], world_of: dict[str, str]) -> dict[str, float]:
    by_topic: dict[str, Counter[str]] = defaultdict(Counter)
    by_world: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        w = world_of[r["id"]]
        by_topic[r["topic"]][w] += 1
        by_world[w][r["topic"]] += 1
    purity = sum(c.most_common(1)[0][1] for c in by_topic.values()) / len(rows)
    cluster = sum(c.most_common(1)[0][1] for c in by_world.values()) / len(rows)
    frag = statistics.mean(len(c) for c in by_topic.values())
    return {
        "purity": purity,
        "cluster": cluster,
        "worlds_per_topic": frag,
        "worlds": float(len(by_world)),
    }


async def run_stream(
    embedder: Embedder, params: WorldParams, rows: list[dict[str, Any]], *, merge_job: bool = False
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        pool = StorePool(Path(tmp), dim=embedder.dim, model_name=embedder.model_name)
        clock = FixedClock()
        core = Core(
            pool=pool,
            embedder=embedder,
            ontology=load_ontology(),
            clock=clock,
            config=CoreConfig(world_mode="adaptive", world_params=params),
        )
        try:
            for r in rows:
                ts = datetime.fromisoformat(r["ts"])
                clock.t = ts
                await core.remember(
                    "bench", author=r["author"], text=r["text"], message_id=r["id"], ts=ts
                )
            if merge_job:
                await core.regroup_worlds("bench")
            data = await core.export("bench")
        finally:
            await core.close()
    world_of = {m["id"]: m["world"] for m in data["messages"]}
    got = score(rows, world_of)
    if merge_job:  # the job names the worlds (offline: core/world_names.py)
        names = {w["id"]: w["topic"] for w in data["worlds"]}
        got["named"] = named_for_topic(embedder, rows, world_of, names)
    return got


def named_for_topic(
    embedder: Embedder, rows: list[dict[str, Any]], world_of: dict[str, str], names: dict[str, str]
) -> float:
    """Share of messages in a world whose name is nearer (by the model) the label of the
    world's majority topic ("pet snake") than any other topic's label: whether a person reading
    /worlds can tell what each world holds (issue 15, target 7). A rough judge: the model's
    nearest label for a three-word name."""
    by_world: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_world[world_of[r["id"]]][r["topic"]] += 1
    labels = sorted({r["topic"] for r in rows})
    label_vecs = embedder.embed([label.replace("_", " ") for label in labels])
    worlds = sorted(by_world)
    name_vecs = embedder.embed([names.get(w, "") or "general" for w in worlds])
    good = 0
    for w, vec in zip(worlds, name_vecs, strict=True):
        major, _ = by_world[w].most_common(1)[0]
        good += sum(by_world[w].values()) * (labels[int(np.argmax(label_vecs @ vec))] == major)
    return good / len(rows)


def separability(
    embedder: Embedder, rows: list[dict[str, Any]], params: WorldParams
) -> tuple[dict[str, float], dict[str, float]]:
    """How far a stream's labels can be read off the model at all: each message put in the
    world of its nearest topic centroid (the topics' true means, the message itself left out),
    alone and with the chat's runs (the job's Viterbi over those scores, its switch cost),
    scored as routing is. Not a routing figure: routing does not know the topics; it tells a
    hard stream from a weak router, and bounds what the target can ask of a stream (purity is
    then the share routed right: 0.78 / 0.94 on the English tuning part against 0.90 / 0.99 on
    the multilingual one, USE; worlds per topic 1.92 with runs there, against 1.33)."""
    from core.regroup import _segments

    x = np.asarray(embedder.embed([r["text"] for r in rows]), dtype=np.float64)
    x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    topics = sorted({r["topic"] for r in rows})
    label = np.array([topics.index(r["topic"]) for r in rows])
    sums = np.stack([x[label == k].sum(0) for k in range(len(topics))])
    scores = np.empty((len(rows), len(topics)))
    for i in range(len(rows)):
        own = sums.copy()
        own[label[i]] -= x[i]
        scores[i] = (own / np.maximum(np.linalg.norm(own, axis=1, keepdims=True), 1e-12)) @ x[i]
    ts = np.array([datetime.fromisoformat(r["ts"]).timestamp() for r in rows])
    runs = _segments(scores, ts, params)[:, 0].astype(np.int64)

    def scored(pick: npt.NDArray[np.int64]) -> dict[str, float]:
        return score(rows, {r["id"]: topics[k] for r, k in zip(rows, pick, strict=True)})

    return scored(scores.argmax(1)), scored(runs)


def ladder(calibrated: WorldParams) -> list[tuple[str, WorldParams, bool]]:
    """Each step adds one helper to the calibrated threshold (run on the tuning part)."""
    live_only = replace(
        calibrated, young_worlds=0, growth_share=0.0
    )  # the job only when the bench runs it
    plain = replace(live_only, pair_prior=0.0, merge_inline=False, continuity=0.0, entity_pull=0.0)
    return [
        ("seed rule (base 0.60, step 0.10, plain cosine)", REFERENCE, False),
        (f"calibrated threshold ({calibrated.base:.3f})", plain, False),
        (
            f"+ size-aware scores (same={calibrated.pair_prior:.3f})",
            replace(plain, pair_prior=calibrated.pair_prior),
            False,
        ),
        (
            f"+ inline merge ({calibrated.merge_similarity:.3f})",
            replace(plain, pair_prior=calibrated.pair_prior, merge_inline=True),
            False,
        ),
        (f"+ continuity (+{calibrated.continuity:.3f})", live_only, False),
        ("+ entity pull (+0.05)", replace(live_only, entity_pull=0.05), False),
        ("+ the regrouping job once, at the end", live_only, True),
        ("+ the job also run from the message path (default)", calibrated, False),
        ("default + regrouping job", calibrated, True),
    ]


def target_met(m: dict[str, float]) -> bool:
    """The issue's target, plus the mixing guard: one world for everything has purity 1."""
    return m["purity"] >= 0.9 and m["worlds_per_topic"] <= 1.5 and m["cluster"] >= 0.9


def print_row(label: str, m: dict[str, float]) -> None:
    ok = "  <- target" if target_met(m) else ""
    named = f"  names {m['named']:.3f}" if "named" in m else ""
    print(
        f"{label:58} {m['purity']:7.3f} {m['cluster']:7.3f} "
        f"{m['worlds_per_topic']:8.3f} {m['worlds']:6.0f}{ok}{named}"
    )


def load_model(name: str, cache: Path) -> Embedder:
    if name in ("use", "use-en"):
        from core.embedding.use import UseEmbedder

        return UseEmbedder(threads=1)
    return FastEmbedEmbedder(BUNDLED_MODEL, local_dir=bundled_minilm_dir(cache), threads=1)


# a USE-like calibration (same 0.31, cross 0.13): latency does not depend on the values
ROUTING_LATENCY_PARAMS = from_calibration(Calibration("latency", 0.31, 0.13, ("en",)))


def routing_latency(dim: int = 512, worlds: int = 1000, trials: int = 300) -> dict[str, float]:
    """Route / question-route p50 and p95 in ms at `worlds` live worlds (no embedding)."""
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = ChatStore(Path(tmp) / "c", dim=dim, model_name="latency")
        now = datetime(2026, 3, 2, tzinfo=UTC)
        from core.store.kuzu_store import WorldRow

        for i in range(worlds):
            v = rng.standard_normal(dim).astype(np.float32)
            store.worlds[f"w{i:07d}"] = w = WorldRow(
                f"w{i:07d}",
                "t",
                v / np.linalg.norm(v),
                5,
                now,
                now,
                "",
                messages=5,
                facts=3,
                conf_sum=2.4,
            )
            store._sync_world_vector(w)
        params = replace(ROUTING_LATENCY_PARAMS, entity_pull=0.05)
        timings: dict[str, list[float]] = {"route": [], "question": []}
        q0 = rng.standard_normal(dim).astype(np.float32)
        route(store, q0, params, mode="adaptive", text="python java receita", now=now)  # warm-up
        for _ in range(trials):
            q = rng.standard_normal(dim).astype(np.float32)
            q /= np.linalg.norm(q)
            t0 = time.perf_counter()
            route(store, q, params, mode="adaptive", text="python java receita", now=now)
            t1 = time.perf_counter()
            question_worlds(store, q, params, mode="adaptive", text="python java receita")
            t2 = time.perf_counter()
            timings["route"].append((t1 - t0) * 1000)
            timings["question"].append((t2 - t1) * 1000)
        store.close()
    return {
        f"{k}_{p}": float(np.percentile(v, q))
        for k, v in timings.items()
        for p, q in (("p50", 50), ("p95", 95))
    }


def part_rows(part: str, model: str) -> list[dict[str, Any]]:
    rows = load_stream(PARTS[part])
    return rows if model == "use" else [r for r in rows if r["lang"] == "en"]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="use,minilm")
    ap.add_argument(
        "--parts",
        default="tune,heldout,first,en-tune,en-heldout,unseen,w3-tune,unseen4,w4-tune,unseen5,w5-tune",
    )
    ap.add_argument("--ladder", action="store_true", help="what each helper buys (tuning part)")
    ap.add_argument("--skip-latency", action="store_true")
    args = ap.parse_args()
    header = f"{'':58} {'purity':>7} {'cluster':>7} {'w/topic':>8} {'worlds':>6}"
    with tempfile.TemporaryDirectory() as cache:
        for name in args.models.split(","):
            embedder = CachedEmbedder(load_model(name.strip(), Path(cache)))
            params = params_for(embedder, Path(cache))
            only = "" if name.strip() == "use" else ", English messages only"
            print(f"\n== {embedder.model_name} (dim {embedder.dim}{only}); calibrated: {params}")
            print(header)
            for part in args.parts.split(","):
                rows = part_rows(part, name.strip())
                langs = dict(Counter(r["lang"] for r in rows))
                topics = len({r["topic"] for r in rows})
                print(f"-- {part}: {len(rows)} messages, {topics} topics, {langs}")
                live = await run_stream(embedder, params, rows)
                print_row("read in order (live routing)", live)
                job = await run_stream(embedder, params, rows, merge_job=True)
                print_row("after the regrouping job", job)
                alone, runs = separability(embedder, rows, params)
                print_row("  ceiling (topics known): nearest true centroid", alone)
                print_row("  ceiling (topics known): with the chat's runs", runs)
            if args.ladder:
                rows = part_rows("tune", name.strip())
                print(f"-- ladder on the tuning part ({len(rows)} messages)")
                for label, p, with_job in ladder(params):
                    print_row(label, await run_stream(embedder, p, rows, merge_job=with_job))
    if not args.skip_latency:
        lat = routing_latency()
        print(
            "\nrouting at 1,000 worlds, dim 512, excluding embedding (ms): "
            + ", ".join(f"{k} {v:.3f}" for k, v in lat.items())
        )


if __name__ == "__main__":
    asyncio.run(main())
