"""The regrouping job (issue 15): re-examine a chat's worlds with all their messages at hand.

Live routing sees one message at a time and never revisits it; the job sees the whole chat
and repeats, three rounds, starting from the worlds as they are:

1. merge (average linkage): the two groups whose mean pair cosine (every message of one with
   every message of the other) is highest, while it is above the job line (cross + 0.3 *
   gap) and the groups are not much tighter inside than they are close to each other
   (mean pair cosine inside them minus between them < 0.8 * gap: their spread). The line
   alone cannot keep homonym topics apart: Python code and a pet python have a mean pair
   cosine of 0.26 with USE, far above the line, but 0.46 inside each;
2. split: each group of at least 2 * MIN_PART messages is cut in two by 2-means (of its
   starts, the cut whose halves are furthest apart by the test below), that cut improved one
   message at a time on the same test (core/regroup_cut.py); it is kept when the halves
   are that much tighter inside than close to each other;
3. re-assign (Viterbi over the chat): every message gets the group that maximises the sum of
   its pair-level scores (against each group, its own without it) minus job_switch (0.8 *
   gap) for each change of group between two messages within window_s. A chat comes in
   runs; this is the job's form of the continuity bonus, and a lone stray cannot break a run.

What each step buys, measured on the tuning part of tests/fixtures/worlds2 (bench/worlds.py)
with USE (purity / cluster / worlds per topic, after the job): the previous job (smoothed
re-assignment, size-aware centroid merge and split) 0.874 / 0.957 / 2.33; average linkage
and Viterbi re-assignment 0.884 / 0.967 / 2.00 at a line of cross + 0.2 * gap; the spread
condition is what keeps the homonym worlds of tests/worlds/test_regroup.py apart at the
line of 0.3 (without it they merge), and with the job run while live routing has left young
worlds (core/pipeline/due.py) 0.970 / 0.977 / 1.58, both read in
order and after the job. Tried and left: no split at all (1.50, but then a glued world is
never cut), a split line on the halves' similarity alone (1.75 to 2.2: it cuts loose topics
such as travel or programming into fragments that never merge back).

A plan its own rounds leave as they are: the rounds run again on their own result until they
change nothing (a fixed point) or lead back to a partition already seen (a cycle, of which
the partition best by what the re-assignment maximises, _fit, is kept), at most SETTLE
times. One run of the rounds used to be the plan (with a check for two partitions that lead
to each other); from some starts the job then swapped the same messages run after run (2 on
worlds2's tuning part, 7 on worlds3's) or drifted for up to eight runs, each time moving
their facts and renaming the worlds (by the LLM where there is one). Now a second run
changes nothing. What following the rounds to their end buys, measured on the tuning parts
(bench/worlds.py, purity / cluster / worlds per topic, read in order; after the job), USE:
worlds3 0.881 / 0.481 / 1.83 -> 0.785 / 0.705 / 3.17; 0.869 / 0.478 / 1.92 -> the same
(the further rounds cut most of the world that held six close topics, for more fragments);
the English-only stream 0.783 / 0.790 / 3.00 -> 0.803 / 0.823 / 2.83; 0.767 / 0.830 / 3.00
-> 0.803 / 0.823 / 2.75; worlds2 one message (purity 0.970 -> 0.967 read in order), the
first stream the same. MiniLM: worlds2 and the first stream the same; English-only 0.907 /
0.893 / 2.33 -> 0.897 / 0.913 / 2.08, 0.913 / 0.887 / 2.00 -> 0.893 / 0.910 / 2.25; worlds3
0.721 / 0.577 / 2.58 -> 0.663 / 0.587 / 3.00, 0.740 / 0.596 / 2.42 -> 0.731 / 0.587 / 2.75.
Its cost: a group's cut depends on its messages alone, kept for the rounds that meet the
group again (most groups once the rounds near their end), so a plan of 2,000 messages that
changes the chat takes 3 to 5 rounds' time (0.7-1.5 s here) instead of one or two; a plan
that changes nothing takes one, as before. The seeding of 2-means' random starts is what
this changed beyond the rounds (each group from the same seed instead of one stream across
the groups): with starts seeded by the group's rows the homonym chat of
tests/worlds/test_regroup.py (code and a pet python typed in short runs) lost its cut and
worlds2's tuning part got two strays more (1.75); with 8 starts instead of 4 that chat lost
its cut as well.

Two meanings of one name (issue 15, target 5): the graph can know what the embedding does not.
A fact waiting in review because its name is another kind in its world ("Jakarta is located
on Java" where Java is a service), or one name as entities of two kinds in two worlds, makes
two sets of messages `apart` (core.pipeline.maintenance.apart_by_kind): groups holding one
side each are never merged, a group holding both is cut between them (the rest of it by the
same margin test, at APART_SPREAD of the line) and the re-assignment does not carry one side
into the other's group. On the tuning parts of every labelled stream (bench/worlds.py) every
figure stayed the same to the digit; on tests/worlds/test_regroup.py's Java chat, one world before,
the island and the code are two (one or two code messages that state no fact go with the
island: they are nearer it with USE).

The plan is applied through the store by core.regroup_apply.

Cost: the last MAX_MESSAGES messages' routing vectors (the text alone, kept from ingest in a
bounded cache, embedded again only when missing) clustered in numpy; the chat's lock is held
only to read them and to apply the plan.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from core.regroup_cut import (
    MIN_PART,
    Apart,
    Cuts,
    Matrix,
    Rows,
    _pair_stats,
    _split,
    _sums,
)
from core.worlds import WorldParams, size_factor

__all__ = ["MAX_MESSAGES", "MIN_PART", "Apart", "Matrix", "Rows", "plan"]

ROUNDS = 3
SETTLE = 12  # round sets plan follows to a fixed point or a cycle (_rounds, plan)
MAX_MESSAGES = 2000  # the newest messages the job re-examines (older ones stay where they are)


def _centroid_scores(x: Matrix, labels: npt.NDArray[np.int64], k: int, same: float) -> Matrix:
    """Pair-level score of every message against every group, its own group without it."""
    sums, n = _sums(x, labels, k)
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


def _segments(scores: Matrix, ts: npt.NDArray[np.float64], p: WorldParams) -> Matrix:
    """Best labels for the whole chat (Viterbi): the sum of each message's score for its group,
    minus p.job_switch for each change of group between two messages within window_s (a chat
    comes in runs: the job's form of the continuity bonus; after a longer pause a change is
    free). Returns the labels as a one-column matrix of group numbers."""
    n, k = scores.shape
    cost = np.r_[0.0, np.where(np.diff(ts) <= p.window_s, p.job_switch, 0.0)].tolist()
    # for each message, whether each group's best path stayed in it, and the group a path
    # that changed came from (the best one): a boolean row and an int instead of a row of
    # ints from np.where, updated in place (a 2,000-message import's plans spent a third of
    # their time in this loop)
    stayed = np.zeros((n, k), dtype=bool)
    came = [0] * n
    value = scores[0].copy()
    for i in range(1, n):
        best = int(value.argmax())
        switch = float(value[best]) - cost[i]
        np.greater_equal(value, switch, out=stayed[i])
        came[i] = best
        np.maximum(value, switch, out=value)
        value += scores[i]
    out = np.zeros(n, dtype=np.int64)
    g = int(value.argmax())
    out[-1] = g
    for i in range(n - 1, 0, -1):
        g = g if stayed[i, g] else came[i]
        out[i - 1] = g
    return out[:, None].astype(np.float64)


def _clashes(labels: npt.NDArray[np.int64], k: int, apart: Apart) -> npt.NDArray[np.bool_]:
    """clash[i, j]: group i holds one side of an `apart` pair and group j the other (the
    diagonal: a group holding both)."""
    clash = np.zeros((k, k), dtype=bool)
    for a, b in apart:
        ga, gb = np.unique(labels[a]), np.unique(labels[b])
        clash[np.ix_(ga, gb)] = True
        clash[np.ix_(gb, ga)] = True
    return clash


def _merge_average(
    x: Matrix,
    labels: npt.NDArray[np.int64],
    line: float,
    same: float,
    spread: float,
    apart: Apart = (),
) -> npt.NDArray[np.int64]:
    """Average linkage: merge the two groups whose mean pair cosine is highest, while it is
    above the line and no more than `spread` below the mean pair cosine inside them (two
    topics that happen to be related, gardening and cooking, are each tighter than they are
    close to each other; two fragments of one loose topic are not). Never two groups that
    hold the two sides of an `apart` pair."""
    labels, k = _relabel(labels)
    sums, n = _sums(x, labels, k)
    dots = sums @ sums.T
    alive = np.ones(k, dtype=bool)
    clash = _clashes(labels, k, apart)
    while alive.sum() >= 2:
        between, within = _pair_stats(dots, n, same)
        sim = np.where(within - between < spread, between, -np.inf)
        sim[clash] = -np.inf
        sim[~alive] = -np.inf
        sim[:, ~alive] = -np.inf
        np.fill_diagonal(sim, -np.inf)
        i, j = np.unravel_index(int(np.argmax(sim)), sim.shape)
        if sim[i, j] <= line:
            break
        sums[i] += sums[j]
        n[i] += n[j]
        n[j] = 1.0  # dead: kept finite
        alive[j] = False
        clash[i] |= clash[j]
        clash[:, i] |= clash[:, j]
        dots[i, :] = sums @ sums[i]
        dots[:, i] = dots[i, :]
        labels[labels == j] = i
    return _relabel(labels)[0]


def _relabel(labels: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], int]:
    uniq, inv = np.unique(labels, return_inverse=True)
    return inv.astype(np.int64), len(uniq)


def plan(
    labels_in: list[str],
    ts: npt.NDArray[np.float64],
    x: Matrix,
    p: WorldParams,
    apart: Apart = (),
) -> list[int]:
    """Group numbers for the messages (rows of x, unit vectors, oldest first). `apart`: pairs
    of row sets that should not share a group (two meanings of one name)."""
    names = list(dict.fromkeys(labels_in))  # by first message: the same chat, the same plan
    index = {w: i for i, w in enumerate(names)}
    labels = np.array([index[w] for w in labels_in], dtype=np.int64)
    # the rounds again on their own result, until they change nothing (a fixed point) or
    # lead back to a partition already seen (a cycle: from some partitions they swapped the
    # same messages between two or more partitions run after run, each time moving their facts
    # and renaming the worlds); of a cycle, the partition best by what the re-assignment
    # maximises (_fit), so that running the job on its own result changes nothing
    cuts: Cuts = {}
    seen = [labels]
    keys = [tuple(_canonical(labels))]
    for _ in range(SETTLE):
        nxt = _rounds(x, seen[-1], ts, p, apart, cuts)
        key = tuple(_canonical(nxt))
        if key in keys:
            cycle = seen[keys.index(key) :]
            best = max(cycle, key=lambda lab: _fit(x, lab, ts, p))
            return [int(v) for v in _relabel(best)[0]]
        seen.append(nxt)
        keys.append(key)
    return [int(v) for v in _relabel(seen[-1])[0]]


def _rounds(
    x: Matrix,
    labels: npt.NDArray[np.int64],
    ts: npt.NDArray[np.float64],
    p: WorldParams,
    apart: Apart,
    cuts: Cuts | None = None,
) -> npt.NDArray[np.int64]:
    """ROUNDS of merge, split and re-assignment, then a last merge (group numbers 0..k-1)."""
    same, line = p.pair_prior, p.job_similarity
    for _ in range(ROUNDS):
        labels = _merge_average(x, labels, line, same, p.job_spread, apart)
        _split(x, labels, same, p.job_spread, apart, cuts, p.merge_similarity)
        labels, k = _relabel(labels)
        scores = _centroid_scores(x, labels, k, same)
        alone = np.bincount(labels, minlength=k)[labels] == 1
        scores[np.nonzero(alone)[0], labels[alone]] = line  # a lone message: "at the line"
        _keep_apart(scores, labels, apart)
        labels = _segments(scores, ts, p)[:, 0].astype(np.int64)
    labels = _merge_average(x, labels, line, same, p.job_spread, apart)
    return _relabel(labels)[0]


def _canonical(labels: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The partition's labels numbered by first appearance (equal partitions, equal arrays)."""
    first: dict[int, int] = {}
    return np.array([first.setdefault(int(v), len(first)) for v in labels], dtype=np.int64)


def _fit(
    x: Matrix, labels: npt.NDArray[np.int64], ts: npt.NDArray[np.float64], p: WorldParams
) -> float:
    """What the re-assignment maximises, for a given partition: each message's pair-level
    score for its own group (without it; a lone message at the line) minus job_switch for
    each change of group within window_s."""
    labels, k = _relabel(labels)
    scores = _centroid_scores(x, labels, k, p.pair_prior)
    own = scores[np.arange(len(labels)), labels]
    alone = np.bincount(labels, minlength=k)[labels] == 1
    own[alone] = p.job_similarity
    near = np.r_[False, np.diff(ts) <= p.window_s]
    switches = np.r_[False, labels[1:] != labels[:-1]] & near
    return float(own.sum() - p.job_switch * switches.sum())


def _keep_apart(scores: Matrix, labels: npt.NDArray[np.int64], apart: Apart) -> None:
    """The re-assignment may not move one side of an `apart` pair into a group that holds
    only the other side (in place)."""
    for a, b in apart:
        ga, gb = set(labels[a].tolist()), set(labels[b].tolist())
        for g in gb - ga:
            scores[a, g] = -1e9
        for g in ga - gb:
            scores[b, g] = -1e9
