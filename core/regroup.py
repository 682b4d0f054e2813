"""The regrouping job (issue 15): re-examine a chat's worlds with all their messages at hand.

Live routing sees one message at a time and never revisits it; the job sees the whole chat
and repeats, up to three rounds:

1. re-assign: each message is scored against every world (its own without it), averaged with
   its neighbours in the chat within window_s (a chat comes in runs: the job's form of the
   continuity bonus); it moves when another world scores higher and above the job line;
2. merge: the most similar pair of worlds (size-aware, pair-level) while above the job line;
3. split: each world of at least 2 * MIN_PART messages is cut in two by 2-means; the cut is
   kept when the two halves' size-aware similarity is below the job line.

The plan is applied through the store: the part of a world that stays keeps its id (the
biggest share of each new group keeps the id it came from), a part that splits off gets a new
world, a world left with nothing is merged into where most of it went (its id keeps resolving),
facts and entities move with their messages (core/store/regroup.py). Offline names are then
recomputed (core.world_names). Measured on the tuning part with USE (purity / cluster /
worlds per topic): live 0.818 / 0.921 / 3.50, after the job 0.868 / 0.970 / 2.50.

Cost: the last MAX_MESSAGES messages are re-embedded (the text alone, as routing does) and
clustered in numpy; the chat's lock is held only to read them and to apply the plan.
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import datetime

import numpy as np
import numpy.typing as npt

from core.ports import GraphStore
from core.rows import WorldRow
from core.worlds import WorldParams, size_factor

MIN_PART = 3  # a split leaves at least this many messages on each side
ROUNDS = 3
MAX_MESSAGES = 2000  # the newest messages the job re-examines (older ones stay where they are)

Matrix = npt.NDArray[np.float64]


def _centroid_scores(x: Matrix, labels: npt.NDArray[np.int64], k: int, same: float) -> Matrix:
    """Pair-level score of every message against every group, its own group without it."""
    sums = np.zeros((k, x.shape[1]))
    np.add.at(sums, labels, x)
    n = np.bincount(labels, minlength=k).astype(np.float64)
    dots = x @ sums.T  # (messages, groups)
    sq = np.einsum("ij,ij->i", sums, sums)
    own = np.arange(len(x)), labels
    n_eff = np.repeat(n[None, :], len(x), axis=0)
    sq_eff = np.repeat(sq[None, :], len(x), axis=0)
    dots[own] -= 1.0  # unit vectors: x . x = 1
    sq_eff[own] = sq_eff[own] - 2.0 * (dots[own] + 1.0) + 1.0
    n_eff[own] -= 1.0
    norms = np.sqrt(np.maximum(sq_eff, 1e-12))
    scores: Matrix = dots / norms / size_factor(np.maximum(n_eff, 1.0), same)
    scores[n_eff <= 0] = -1.0
    return scores


def _smooth(scores: Matrix, ts: npt.NDArray[np.float64], p: WorldParams) -> Matrix:
    """Average each message's scores with its chat neighbours' within the window."""
    total = scores.copy()
    weight = np.ones(len(scores))
    near = np.abs(np.diff(ts)) <= p.window_s
    for shift, mask in ((1, near), (-1, near)):
        idx = np.nonzero(mask)[0]
        src, dst = (idx, idx + 1) if shift == 1 else (idx + 1, idx)
        total[dst] += p.job_smoothing * scores[src]
        weight[dst] += p.job_smoothing
    out: Matrix = total / weight[:, None]
    return out


def _relabel(labels: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], int]:
    uniq, inv = np.unique(labels, return_inverse=True)
    return inv.astype(np.int64), len(uniq)


def _two_means(y: Matrix, rng: np.random.Generator) -> npt.NDArray[np.int64] | None:
    best: tuple[float, npt.NDArray[np.int64]] | None = None
    for _ in range(4):
        c = y[rng.choice(len(y), 2, replace=False)]
        lab = np.zeros(len(y), dtype=np.int64)
        for _ in range(10):
            lab = (y @ c[1] > y @ c[0]).astype(np.int64)
            if lab.min() == lab.max():
                break
            c = np.stack([y[lab == 0].mean(0), y[lab == 1].mean(0)])
        sizes = np.bincount(lab, minlength=2)
        if sizes.min() < MIN_PART:
            continue
        inertia = -float(np.sum(np.einsum("ij,ij->i", y, c[lab])))
        if best is None or inertia < best[0]:
            best = (inertia, lab)
    return None if best is None else best[1]


def plan(labels_in: list[str], ts: npt.NDArray[np.float64], x: Matrix, p: WorldParams) -> list[int]:
    """Group numbers for the messages (rows of x, unit vectors, oldest first)."""
    names = list(dict.fromkeys(labels_in))  # by first message: the same chat, the same plan
    index = {w: i for i, w in enumerate(names)}
    labels = np.array([index[w] for w in labels_in], dtype=np.int64)
    same, line = p.pair_prior, p.job_similarity
    rng = np.random.default_rng(0)
    for _ in range(ROUNDS):
        labels, k = _relabel(labels)
        raw = _centroid_scores(x, labels, k, same)
        alone = np.bincount(labels, minlength=k)[labels] == 1
        raw[np.arange(len(x))[alone], labels[alone]] = line  # a lone message: "at the line"
        scores = _smooth(raw, ts, p)
        best = scores.argmax(1)
        better = (best != labels) & (scores[np.arange(len(x)), best] >= line)
        labels = np.where(better, best, labels)
        while True:  # merge the most similar pair above the line
            labels, k = _relabel(labels)
            if k < 2:
                break
            sums = np.zeros((k, x.shape[1]))
            np.add.at(sums, labels, x)
            n = np.bincount(labels, minlength=k).astype(np.float64)
            unit = sums / np.linalg.norm(sums, axis=1, keepdims=True)
            g = size_factor(n, same)
            sim = (unit @ unit.T) / np.outer(g, g)
            np.fill_diagonal(sim, -np.inf)
            i, j = np.unravel_index(int(np.argmax(sim)), sim.shape)
            if sim[i, j] <= line:
                break
            labels[labels == j] = i
        nxt = int(labels.max()) + 1
        for group in range(int(labels.max()) + 1):
            idx = np.nonzero(labels == group)[0]
            if len(idx) < 2 * MIN_PART:
                continue
            lab = _two_means(x[idx], rng)
            if lab is None:
                continue
            halves = [x[idx[lab == h]].sum(0) for h in (0, 1)]
            sizes = [float((lab == h).sum()) for h in (0, 1)]
            cos = float(halves[0] @ halves[1]) / float(
                np.linalg.norm(halves[0]) * np.linalg.norm(halves[1])
            )
            sep = cos / float(size_factor(sizes[0], same) * size_factor(sizes[1], same))
            if sep < line:
                small = 0 if sizes[0] < sizes[1] else 1
                labels[idx[lab == small]] = nxt
                nxt += 1
    return [int(v) for v in _relabel(labels)[0]]


def assign_ids(old: list[str], groups: list[int]) -> dict[int, str]:
    """Each group keeps the id most of its messages came from, biggest groups first; a group
    whose best id is taken gets "" (a new world)."""
    share: dict[int, Counter[str]] = {}
    for w, g in zip(old, groups, strict=True):
        share.setdefault(g, Counter())[w] += 1
    taken: set[str] = set()
    out: dict[int, str] = {}
    for g in sorted(share, key=lambda g: -sum(share[g].values())):
        out[g] = ""
        for w, _ in share[g].most_common():
            if w not in taken:
                out[g] = w
                taken.add(w)
                break
    return out


def apply_plan(
    store: GraphStore,
    ids: list[str],
    old: list[str],
    groups: list[int],
    x: Matrix,
    now: datetime,
) -> tuple[dict[str, int], list[str]]:
    """Carry a plan out on the store (under the chat's lock): the report and the live worlds
    that gained or lost messages (an LLM renames those)."""
    old = [store.resolve_world(w) for w in old]  # merged while the job was embedding
    owner = assign_ids(old, groups)
    report = {"moved": 0, "split": 0, "merged": 0}
    changed: set[str] = set()
    for g, wid in owner.items():
        if not wid:
            wid = uuid.uuid4().hex[:8]
            while wid in store.worlds:
                wid = uuid.uuid4().hex[:8]
            owner[g] = wid
            store.upsert_world(WorldRow(wid, "", np.zeros(x.shape[1], np.float32), 0, now, now, ""))
            report["split"] += 1
    moves: dict[str, list[str]] = {}
    for mid, w, g in zip(ids, old, groups, strict=True):
        if owner[g] != w:
            moves.setdefault(owner[g], []).append(mid)
    for dst, mids in moves.items():
        store.move_messages(mids, dst, now)
        report["moved"] += len(mids)
        changed.add(dst)
        changed.update(w for m, w in zip(ids, old, strict=True) if m in set(mids))
    kept = set(owner.values())
    for w in sorted(set(old) - kept):  # emptied: its id points to where most of it went
        if w not in store.worlds or store.worlds[w].merged_into or store.worlds[w].messages:
            continue  # older messages (beyond the job's window) still live there
        went = Counter(owner[g] for o, g in zip(old, groups, strict=True) if o == w)
        dst = went.most_common(1)[0][0]
        store.merge_worlds(w, dst, store.worlds[dst].centroid, now)
        report["merged"] += 1
        changed.add(dst)
    for g, wid in owner.items():
        members = x[np.array(groups) == g]
        mean = members.mean(0)
        world = store.worlds[wid]
        world.centroid = (mean / max(float(np.linalg.norm(mean)), 1e-12)).astype(np.float32)
        world.access_count = max(world.access_count, len(members))
        store.upsert_world(world)
    return report, sorted(w for w in changed if w in kept)
