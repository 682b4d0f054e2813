"""Topic worlds: routing messages and questions to worlds, absorbing, merging.

The seed's formulas are the base:
    threshold = base + step * maturity          maturity = mean confidence * min(facts / 10, 1)
    alpha     = 1 / (access_count + 1) * (1 - 0.7 * maturity)

Every threshold is a pair-level cosine: "how similar would two single messages of this topic
be". The model's own figures (core.calibration: mean same-topic pair cosine `same`, mean
different-topic pair cosine `cross`) place them, each a model-free fraction of the gap between
the two, so one code path serves any model (issue 15; no per-model table):

    base        cross + 0.50 * gap   join a world / be born
    merge       cross + 0.50 * gap   inline merge of the world that just grew
    continuity  0.50 * gap           bonus of the previous message's world within window_s
    job         cross + 0.30 * gap   the regrouping job's merge line (average linkage)
    spread      0.80 * gap           the job keeps apart groups this much tighter than close
    switch      0.80 * gap           the job's cost of a change of world within window_s
    step        0.25 * gap           the seed's maturity rise, kept in the model's scale
    margin      0.50 * gap           a question closer than this to two worlds searches several

The fractions were chosen on the tuning part of tests/fixtures/worlds2 only (bench/worlds.py
prints both parts; `--ladder` this table). What each addition buys there with USE (purity /
cluster / worlds per topic, read in order):

    seed rule (base 0.60, plain cosine)        0.063 / 1.000 / 24.3   every message alone
    calibrated threshold                        0.632 / 0.596 /  4.2   few worlds, mixed
    + size-aware scores                         0.460 / 0.838 /  7.3   a world of n messages
      is an estimate of its topic: a same-topic message's cosine to its centroid is
      same * G(n), G(n) = sqrt(n / (1 + (n - 1) * same)), so scores are divided by G(n) and
      compared as pair-level cosines (less mixing, more fragments: the next two fix those)
    + inline merge                              0.709 / 0.848 /  5.8
    + continuity                                0.818 / 0.921 /  3.5   chat comes in runs
    + entity pull (+0.05)                       no change: left off
    + the regrouping job once, at the end       0.887 / 0.964 / 2.33   (core.regroup; the
      previous job gave 0.868 / 0.970 / 2.5)
    + the job also run from the message path    0.970 / 0.977 / 1.58   after a message that
      started a world while young_worlds (3) worlds hold fewer than 3 messages each
    + the job's rounds followed to their end    0.967 / 0.974 / 1.58   (core/regroup.py: a
      second run changes nothing; worlds3's tuning part mixes less, cluster 0.48 -> 0.71)
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from core.calibration import Calibration, calibrate
from core.language import clean_name, key_tokens, name_key
from core.ports import Embedder, GraphStore, Vector
from core.rows import EntityRow, WorldRow
from core.world_names import first_name


@dataclass(frozen=True)
class WorldParams:
    base: float = 0.60
    step: float = 0.10
    merge_similarity: float = 0.94
    pair_prior: float = 0.0  # `same` of the size-aware scores; 0: plain cosine (the seed rule)
    merge_inline: bool = False
    continuity: float = 0.0
    window_s: float = 300.0
    entity_pull: float = 0.0
    margin: float = 0.05
    question_worlds: int = 3
    job_similarity: float = 0.94  # the regrouping job's merge/split line (pair-level)
    job_switch: float = 0.0  # the job's cost of a change of world within window_s (pair-level)
    job_spread: float = 1.0  # the job keeps apart groups this much tighter inside than apart
    young_worlds: int = 0  # this many worlds of < 3 messages run the job at once (0: never)
    growth_share: float = 0.0  # the chat grew by this share since the job ran: run it (0: never)


REFERENCE = WorldParams()
YOUNG_WORLDS = 3  # see core/pipeline/due.py
GROWTH_SHARE = 0.5  # ditto
# model-free fractions of the calibrated gap (see the module docstring)
BASE_AT, MERGE_AT, JOB_AT = 0.50, 0.50, 0.30
CONTINUITY_OF, STEP_OF, MARGIN_OF, SWITCH_OF, SPREAD_OF = 0.50, 0.25, 0.50, 0.80, 0.80


def from_calibration(cal: Calibration, **overrides: Any) -> WorldParams:
    """Routing constants placed on the model's own same/cross-topic similarities."""
    gap = cal.spread
    params = WorldParams(
        base=cal.cross + BASE_AT * gap,
        step=STEP_OF * gap,
        merge_similarity=cal.cross + MERGE_AT * gap,
        pair_prior=cal.same,
        merge_inline=True,
        continuity=CONTINUITY_OF * gap,
        window_s=300.0,
        entity_pull=0.0,
        margin=MARGIN_OF * gap,
        question_worlds=3,
        job_similarity=cal.cross + JOB_AT * gap,
        job_switch=SWITCH_OF * gap,
        job_spread=SPREAD_OF * gap,
        young_worlds=YOUNG_WORLDS,
        growth_share=GROWTH_SHARE,
    )
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(params, **given) if given else params


def params_for(embedder: Embedder, cache_dir: Path | None = None, **overrides: Any) -> WorldParams:
    """The embedder's calibrated constants (measured once per model, cached in cache_dir)."""
    return from_calibration(calibrate(embedder, cache_dir), **overrides)


def maturity(facts: int, mean_confidence: float) -> float:
    """Maturity = mean fact confidence * min(facts / 10, 1), clipped to [0, 1]."""
    return float(min(max(mean_confidence * min(facts / 10, 1.0), 0.0), 1.0))


def world_maturity(w: WorldRow) -> float:
    return maturity(w.facts, w.conf_sum / w.facts if w.facts else 0.0)


def keyword_topic(text: str, limit: int = 3) -> str:
    """A newborn world's name (core.world_names.first_name; the pipeline also leaves out
    the verbs of the predicate forms the message uses)."""
    return first_name(text, limit=limit)


def size_factor(n: npt.NDArray[np.float64] | float, same: float) -> Any:
    """G(n): a same-topic message's expected cosine to an n-message centroid, relative to its
    cosine to one message (1 for same = 0: plain cosine, the seed rule)."""
    if same <= 0:
        return np.ones_like(n, dtype=np.float64) if isinstance(n, np.ndarray) else 1.0
    n = np.maximum(n, 1)
    return np.sqrt(n / (1.0 + (n - 1.0) * same))


@dataclass
class Routing:
    world: WorldRow
    born: bool
    score: float


def _cosines(store: GraphStore, emb: Vector) -> npt.NDArray[np.float64]:
    """Cosine of every live centroid with emb. einsum runs in this thread: a BLAS matvec this
    small spends more time waking its thread pool than computing (17 ms vs 0.2 ms measured on
    a loaded 2-core machine at 1,000 worlds)."""
    if not len(store.world_vectors):
        return np.zeros(0)
    sims: npt.NDArray[np.float64] = np.einsum("ij,j->i", store.world_vectors.matrix, emb).astype(
        np.float64
    )
    return sims


def _live(store: GraphStore) -> list[WorldRow]:
    return [w for w in store.worlds.values() if not w.merged_into]


def _scores(
    store: GraphStore, emb: Vector, p: WorldParams, text: str
) -> tuple[list[str], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(world ids, pair-level score, threshold) for the live worlds: one matrix-vector
    product."""
    ids = store.world_vectors.ids
    sims = _cosines(store, emb)
    rows = [store.worlds[i] for i in ids]
    n = np.fromiter((w.messages for w in rows), dtype=np.float64, count=len(rows))
    facts = np.fromiter((w.facts for w in rows), dtype=np.float64, count=len(rows))
    conf = np.fromiter((w.conf_sum for w in rows), dtype=np.float64, count=len(rows))
    mean = np.divide(conf, facts, out=np.zeros_like(conf), where=facts > 0)
    mature = np.clip(mean * np.minimum(facts / 10.0, 1.0), 0.0, 1.0)  # maturity(), vectorised
    thr = p.base + p.step * mature
    sims = sims / size_factor(n, p.pair_prior)  # pair-level: comparable across world sizes
    if p.entity_pull and text and ids:
        keys = key_tokens(text)
        named = {k for n in (1, 2) for k in (" ".join(keys[i : i + n]) for i in range(len(keys)))}
        pulled = {w for k in named for w in store.key_worlds.get(k, ())}
        if pulled:
            sims = sims + p.entity_pull * np.array([i in pulled for i in ids], dtype=np.float64)
    return list(ids), sims, thr


def route(
    store: GraphStore,
    emb: Vector,
    p: WorldParams,
    *,
    mode: str,
    text: str,
    now: datetime,
    ts: datetime | None = None,
) -> Routing:
    """The world a message belongs to; a new one is born (not yet stored) when none passes."""
    if mode != "adaptive":
        live = _live(store)
        if live:
            return Routing(live[0], False, 1.0)
        return Routing(_newborn(store, emb, text, now), True, 0.0)
    ids, sims, thr = _scores(store, emb, p, text)
    if ids:
        score = sims.copy()
        ts = ts or now
        last = store.last_message_ts
        if (
            p.continuity
            and store.last_world in ids
            and last is not None
            and abs((ts - last).total_seconds()) <= p.window_s
        ):
            score[ids.index(store.last_world)] += p.continuity
        rel = score - thr
        best = int(np.argmax(rel))
        if rel[best] >= 0:
            return Routing(store.worlds[ids[best]], False, float(sims[best]))
    return Routing(_newborn(store, emb, text, now), True, 0.0)


def _newborn(store: GraphStore, emb: Vector, text: str, now: datetime) -> WorldRow:
    wid = uuid.uuid4().hex[:8]
    while wid in store.worlds:
        wid = uuid.uuid4().hex[:8]
    return WorldRow(
        id=wid,
        topic=keyword_topic(text),
        centroid=emb.astype(np.float32).copy(),
        access_count=0,
        created_at=now,
        last_active=now,
        merged_into="",
    )


def kind_clash(store: GraphStore, world: str, names: list[tuple[str, str]]) -> bool:
    """Whether the world already knows one of the (name, kind) pairs as another kind."""
    for name, kind in names:
        eid = store.by_key.get((world, name_key(clean_name(name))))
        ent = store.entities.get(eid) if eid else None
        if ent is not None and not ent.ident and ent.kind != kind:
            return True
    return False


def world_of_its_own(store: GraphStore, message_id: str, now: datetime) -> str:
    """A person approved a fact that clashes with what its message's world calls a name
    ("Jakarta is located in Java" where Java is a language): the message is the other
    meaning, so it moves to a new world of its own (with its facts) and the name there is
    another entity (issue 15). Returns the new world's id ("" when the message is unknown)."""
    rows = store.messages([message_id])
    vec = store.message_vectors.vector(message_id)
    if not rows or vec is None:
        return ""
    world = _newborn(store, np.asarray(vec, dtype=np.float32), rows[0].text, now)
    world.access_count = 1
    store.upsert_world(world)
    store.move_messages([message_id], world.id, now)
    return world.id


def absorb(store: GraphStore, world: WorldRow, emb: Vector, *, now: datetime) -> None:
    """Adaptive centroid: alpha = 1 / (access_count + 1) * (1 - 0.7 * maturity)."""
    alpha = 1.0 / (world.access_count + 1) * (1.0 - 0.7 * world_maturity(world))
    centroid: Any = (1.0 - alpha) * world.centroid + alpha * emb
    world.centroid = centroid.astype(np.float32)
    world.access_count += 1
    world.last_active = now
    store.upsert_world(world)


def question_worlds(
    store: GraphStore, emb: Vector, p: WorldParams, *, mode: str, text: str
) -> list[str]:
    """Worlds a question is answered from: the best one when routing is clear, otherwise the
    best few (best two closer than the margin, or none above its threshold)."""
    if mode != "adaptive" or len(store.world_vectors) <= 1:
        return [w.id for w in _live(store)]
    ids, sims, thr = _scores(store, emb, p, text)
    rel = sims - thr
    order = np.argsort(-rel)
    best = int(order[0])
    if rel[best] >= 0 and (len(order) < 2 or rel[best] - rel[int(order[1])] >= p.margin):
        return [ids[best]]
    return [ids[int(i)] for i in order[: max(p.question_worlds, 1)]]


def joined_score(cos: Any, n_a: Any, n_b: Any, same: float) -> Any:
    """What every centroid merge compares with merge_similarity (merge_touched, merge_all,
    newborn_merges_into, and the regrouping job's split, core.regroup_cut._cut): the cosine of two
    worlds' centroids over both size factors (plain cosine when `same` is 0). Arrays broadcast."""
    return cos / (size_factor(n_a, same) * size_factor(n_b, same))


def merge_score(store: GraphStore, a: WorldRow, b: WorldRow, p: WorldParams) -> float:
    """Size-aware centroid similarity (plain cosine when pair_prior is 0)."""
    va, vb = store.world_vectors.vector(a.id), store.world_vectors.vector(b.id)
    if va is None or vb is None:
        return -1.0
    n_a, n_b = float(max(a.messages, 1)), float(max(b.messages, 1))
    return float(joined_score(float(va @ vb), n_a, n_b, p.pair_prior))


def merge_pair(store: GraphStore, a: WorldRow, b: WorldRow, now: datetime) -> str:
    """Merge the less used world into the more used one; returns the surviving id."""
    dst, src = (
        (a, b)
        if (a.access_count, -a.created_at.timestamp())
        >= (b.access_count, -b.created_at.timestamp())
        else (b, a)
    )
    total = max(dst.access_count + src.access_count, 1)
    mean = (dst.access_count * dst.centroid + src.access_count * src.centroid) / total
    centroid = np.asarray(mean if np.any(mean) else dst.centroid, dtype=np.float32)
    store.merge_worlds(src.id, dst.id, centroid, now)
    return dst.id


def merge_touched(store: GraphStore, world_id: str, p: WorldParams, now: datetime) -> str:
    """Inline merge of the world that just absorbed a message (young worlds merge early)."""
    w = store.worlds.get(world_id)
    if not p.merge_inline or w is None or w.merged_into:
        return world_id
    va = store.world_vectors.vector(world_id)
    if va is None or len(store.world_vectors) < 2:
        return world_id
    ids = store.world_vectors.ids
    sims = _cosines(store, va)
    n = np.array([store.worlds[i].messages for i in ids], dtype=np.float64)
    scores = joined_score(sims, n, float(max(w.messages, 1)), p.pair_prior)
    scores[ids.index(world_id)] = -np.inf
    best = int(np.argmax(scores))
    if scores[best] > p.merge_similarity and not two_meanings(store, world_id, ids[best]):
        return merge_pair(store, w, store.worlds[ids[best]], now)
    return world_id


def entities_by_name(store: GraphStore) -> dict[str, list[EntityRow]]:
    """Each name key's entities, one per world that holds the name; entities with an
    identifier left out (an identifier is one entity chat-wide, whatever the world)."""
    out: dict[str, list[EntityRow]] = {}
    for (_, key), eid in store.by_key.items():
        entity = store.entities.get(eid)
        if entity is not None and not entity.ident:
            out.setdefault(key, []).append(entity)
    return out


def two_meanings(store: GraphStore, a: str, b: str) -> bool:
    """Whether the two worlds hold one name as entities of two kinds (Java the language in
    one, Java the island in the other): merged, the name would clash with itself. The
    regrouping job keeps such worlds apart too (core.pipeline.maintenance.apart_by_kind)."""
    for same_name in entities_by_name(store).values():
        kinds = {e.world: e.kind for e in same_name if e.world in (a, b)}
        if len(kinds) == 2 and kinds[a] != kinds[b]:
            return True
    return False


def newborn_merges_into(
    store: GraphStore, born: WorldRow, emb: Vector, p: WorldParams
) -> WorldRow | None:
    """The world a newborn holding only this message would at once be merged into by
    merge_touched (and merge_pair keep), computed the same way without storing the newborn;
    None when it would stay. The caller then puts the message there with fold_newborn: the
    same state as birth, absorb and merge, without the merge's statements over the chat's
    messages and facts (~0.1 s each in a bulk import, where they also flush the staged batch).
    Measured on 3,000 imported facts: 17 of 27 newborn worlds were merged at once; the other 7
    merges were of young worlds of 2-6 messages, which still take the long way."""
    if not p.merge_inline or not len(store.world_vectors):
        return None
    centroid = emb.astype(np.float32)  # absorb's first message: alpha = 1
    norm = float(np.linalg.norm(centroid))
    va = centroid / norm if norm > 0 else centroid  # as the store keeps a centroid
    ids = store.world_vectors.ids
    sims = _cosines(store, va)
    n = np.array([store.worlds[i].messages for i in ids], dtype=np.float64)
    scores = joined_score(sims, n, 1.0, p.pair_prior)
    best = int(np.argmax(scores))
    if scores[best] <= p.merge_similarity:
        return None
    into = store.worlds[ids[best]]
    kept = (into.access_count, -into.created_at.timestamp()) >= (1, -born.created_at.timestamp())
    return into if kept else None  # merge_pair keeps the more used world, then the older


def fold_newborn(store: GraphStore, into: WorldRow, emb: Vector, now: datetime) -> None:
    """merge_pair's centroid and counts for a newborn of one message merged into `into`."""
    total = max(into.access_count + 1, 1)
    mean = (into.access_count * into.centroid + emb.astype(np.float32)) / total
    into.centroid = np.asarray(mean if np.any(mean) else into.centroid, dtype=np.float32)
    into.access_count += 1
    into.last_active = max(now, into.last_active)
    store.upsert_world(into)


def merge_all(store: GraphStore, p: WorldParams, now: datetime) -> list[tuple[str, str]]:
    """The merge job for one chat: merge the most similar pair above the merge similarity
    until none is left. Returns (merged, into) pairs; a second run finds nothing (idempotent)."""
    done: list[tuple[str, str]] = []
    while len(store.world_vectors) >= 2:
        ids = list(store.world_vectors.ids)
        m = store.world_vectors.matrix.astype(np.float64)
        n = np.array([store.worlds[i].messages for i in ids], dtype=np.float64)
        scores = joined_score(m @ m.T, n[:, None], n[None, :], p.pair_prior)
        np.fill_diagonal(scores, -np.inf)
        i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
        if scores[i, j] <= p.merge_similarity:
            break
        a, b = store.worlds[ids[int(i)]], store.worlds[ids[int(j)]]
        kept = merge_pair(store, a, b, now)
        done.append((b.id if kept == a.id else a.id, kept))
    return done
