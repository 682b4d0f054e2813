"""Ranking evidence: every signal's candidates, fused by weighted reciprocal rank fusion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

from core.index.words import MessageIndex, Vector, Vectors, top_rows
from core.recall.config import RecallConfig
from core.recall.periods import Period, parse_period
from core.vocabulary import widened

SIGNALS = ("meaning", "words", "entities", "speaker", "time", "neighbours")


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    signals: tuple[str, ...]
    ts: datetime
    author: str
    text: str


@dataclass
class Signals:
    """Each signal's candidate message ids, best first (what /why shows per evidence item)."""

    lists: dict[str, list[str]] = field(default_factory=dict)
    period: Period | None = None


def meaning_scores(
    index: MessageIndex, vectors: Vectors, sims: Vector, cfg: RecallConfig
) -> Vector:
    """Each message row's cosine with the question (`sims`: one per vector row), chit-chat
    ("ok", "haha", "thanks!") demoted a little: it rarely answers anything."""
    _, lengths = index.arrays()
    short = (lengths < cfg.min_tokens).astype(np.float32) * cfg.short_penalty
    scores: Vector = index.row_scores(vectors, sims) - short
    return scores


def gather(
    index: MessageIndex,
    vectors: Vectors,
    sims: Vector,
    question: str,
    *,
    entity_messages: Sequence[str],
    now: datetime,
    cfg: RecallConfig,
) -> Signals:
    """Every signal's ranked candidates. `sims`: the question's cosine with each vector row;
    `entity_messages`: provenance and mentions of the question's entities, best first."""
    out = Signals()
    depth = cfg.depth
    out.lists["entities"] = list(dict.fromkeys(entity_messages))[:depth]
    if not len(index):
        out.lists["meaning"] = [mid for mid, _ in vectors.best(sims, depth)] if len(sims) else []
        return out
    meaning = meaning_scores(index, vectors, sims, cfg)
    out.lists["meaning"] = [index.ids[r] for r in top_rows(meaning, depth)]
    # the question's words and their equivalents in the other languages (core/vocabulary.py)
    bm = index.bm25_scores(widened(question), k1=cfg.bm25_k1, b=cfg.bm25_b)
    relevance = meaning
    if bm is not None:
        out.lists["words"] = [index.ids[r] for r in top_rows(bm, depth) if bm[r] > 0]
        relevance = meaning + cfg.subset_words * bm / max(float(bm.max()), 1e-6)

    def by_meaning(rows: npt.NDArray[np.int64]) -> list[str]:
        """A subset (one speaker's, one period's messages) by meaning and words; a repeated
        text ("sounds good", "ok") is kept once."""
        seen: set[int] = set()
        out: list[str] = []
        for r in top_rows(relevance[rows], 3 * depth, rows):
            if index.same(r) not in seen:
                seen.add(index.same(r))
                out.append(index.ids[r])
        return out[:depth]

    speakers = index.speakers(question)
    if speakers:
        rows = np.asarray(sorted(r for a in speakers for r in index.by_author[a]), dtype=np.int64)
        out.lists["speaker"] = by_meaning(rows)
    period = parse_period(question, now)
    if period is not None:
        ts, _ = index.arrays()
        mask = (ts >= period.start.timestamp()) & (ts < period.end.timestamp())
        rows = np.flatnonzero(mask).astype(np.int64)
        if len(rows):
            out.period = period
            out.lists["time"] = by_meaning(rows)
    return out


def fuse(lists: Mapping[str, Sequence[str]], cfg: RecallConfig) -> dict[str, float]:
    """Weighted reciprocal rank fusion: sum over signals of w / (rrf_k + rank)."""
    scores: dict[str, float] = {}
    for signal, ranked in lists.items():
        w = cfg.weight(signal)
        if w <= 0:
            continue
        for rank, mid in enumerate(ranked):
            scores[mid] = scores.get(mid, 0.0) + w / (cfg.rrf_k + rank + 1)
    return scores


def neighbours(index: MessageIndex, hits: Sequence[str], gap_s: float) -> list[str]:
    """The turns just before and after each hit, when they are of the same session."""
    ts, _ = index.arrays()
    out: list[str] = []
    for mid in hits:
        row = index.row_of.get(mid)
        if row is None:
            continue
        out.extend(
            index.ids[other]
            for other in (row - 1, row + 1)
            if 0 <= other < len(index) and abs(ts[other] - ts[row]) <= gap_s
        )
    return list(dict.fromkeys(out))


def rank(
    index: MessageIndex,
    vectors: Vectors,
    sims: Vector,
    question: str,
    *,
    entity_messages: Sequence[str],
    now: datetime,
    cfg: RecallConfig,
) -> list[Hit]:
    """The chat's evidence for a question, most relevant first, with the signals that found it."""
    sig = gather(index, vectors, sims, question, entity_messages=entity_messages, now=now, cfg=cfg)
    scores = fuse(sig.lists, cfg)
    if cfg.neighbour_hits > 0 and cfg.w_neighbours > 0:
        best = sorted(scores, key=lambda m: -scores[m])[: cfg.neighbour_hits]
        near = [m for m in neighbours(index, best, cfg.neighbour_gap_s) if m not in best]
        sig.lists["neighbours"] = near
        for rank_, mid in enumerate(near):
            scores[mid] = scores.get(mid, 0.0) + cfg.w_neighbours / (cfg.rrf_k + rank_ + 1)
    order = sorted(scores, key=lambda m: -scores[m])
    if sig.period is not None and cfg.time_first:
        inside = set(sig.lists.get("time", ()))
        order = [m for m in order if m in inside] + [m for m in order if m not in inside]
    found: dict[str, list[str]] = {}
    for signal in SIGNALS:
        for mid in sig.lists.get(signal, ()):
            found.setdefault(mid, []).append(signal)
    hits = []
    for mid in order[: cfg.k]:
        row = index.row_of.get(mid)
        if row is None:
            continue  # a source id that is not a stored message
        hits.append(
            Hit(
                mid,
                round(scores[mid], 6),
                tuple(found.get(mid, ())),
                index.ts(row),
                index.authors[row],
                index.texts[row],
            )
        )
    return hits


def nearest(
    index: MessageIndex, vectors: Vectors, sims: Vector, n: int, cfg: RecallConfig
) -> list[Hit]:
    """The n messages nearest the question by meaning alone (chit-chat demoted as in gather),
    best first. Fusion ranks a message that one signal found first below messages several
    signals found further down (a question asked in another language than its answer: the
    words signal finds only messages in the question's language), so a quote (core/quote.py)
    also looks at these."""
    if not len(index) or not len(sims):
        return []
    meaning = meaning_scores(index, vectors, sims, cfg)
    return [
        Hit(index.ids[r], 0.0, ("meaning",), index.ts(r), index.authors[r], index.texts[r])
        for r in top_rows(meaning, n)
    ]


def plain_vector(vectors: Vectors, sims: Vector, k: int) -> list[str]:
    """The baseline: top k messages by cosine alone."""
    return [mid for mid, _ in vectors.best(sims, k)] if len(sims) else []
