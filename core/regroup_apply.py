"""A regrouping plan (core.regroup.plan) made concrete on a chat and carried out.

The part of a world that stays keeps its id (the biggest share of each new group keeps the id
it came from), a part that splits off gets a new world, a world left with nothing is merged
into where most of it went (its id keeps resolving), facts and entities move with their
messages (core/store/regroup.py). Offline names are then recomputed (core.world_names).
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime

import numpy as np

from core.ports import GraphStore
from core.regroup import Matrix


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


@dataclass
class Settled:
    """A plan made concrete on the chat as it is: the worlds it creates, the moves and merges
    it makes, and each kept world's centroid. Recorded with the chat before the first move
    (core.pipeline.maintenance), so that a kill between two moves is finished at the next
    start as planned instead of planned again from half-moved worlds."""

    new_worlds: list[str]
    moves: dict[str, list[str]]  # destination world -> message ids
    emptied: dict[str, str]  # world left by all its planned messages -> where most went
    centroids: dict[str, list[float]]  # kept world -> unit centroid of its messages
    sizes: dict[str, int]  # kept world -> its messages in the plan
    changed: list[str]  # kept worlds that gained or lost messages
    seen: int  # messages the job re-examined

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Settled:
        return cls(**json.loads(text))


def settle(
    store: GraphStore, ids: list[str], old: list[str], groups: list[int], x: Matrix
) -> Settled:
    """The plan's groups given world ids (no write)."""
    old = [store.resolve_world(w) for w in old]  # merged while the job was embedding
    owner = assign_ids(old, groups)
    new_worlds = []
    for g, wid in owner.items():
        if not wid:
            wid = uuid.uuid4().hex[:8]
            while wid in store.worlds or wid in new_worlds:
                wid = uuid.uuid4().hex[:8]
            owner[g] = wid
            new_worlds.append(wid)
    moves: dict[str, list[str]] = {}
    for mid, w, g in zip(ids, old, groups, strict=True):
        if owner[g] != w:
            moves.setdefault(owner[g], []).append(mid)
    changed = set(moves)
    for mids in moves.values():
        leaving = set(mids)
        changed.update(w for m, w in zip(ids, old, strict=True) if m in leaving)
    kept = set(owner.values())
    emptied = {}
    for w in sorted(set(old) - kept):
        went = Counter(owner[g] for o, g in zip(old, groups, strict=True) if o == w)
        emptied[w] = went.most_common(1)[0][0]
    centroids, sizes = {}, {}
    for g, wid in owner.items():
        members = x[np.array(groups) == g]
        mean = members.mean(0)
        unit = mean / max(float(np.linalg.norm(mean)), 1e-12)
        centroids[wid] = [float(v) for v in unit]
        sizes[wid] = len(members)
    return Settled(
        new_worlds,
        moves,
        emptied,
        centroids,
        sizes,
        sorted((changed | set(emptied.values())) & kept),
        len(ids),
    )


def carry_out(store: GraphStore, settled: Settled, now: datetime) -> dict[str, int]:
    """The plan's moves and merges, each in a transaction of its own: in one transaction, kuzu
    0.11.3 missed the fact edges earlier moves had just created, and a later move deleted an
    entity with them (3,000 bench.bulk messages imported: 2 facts lost in 2 runs of 3; one
    transaction a step, 842 facts in 3 of 3). Each step is idempotent, so a plan a kill cut
    short is finished by running this again."""
    report = {"moved": 0, "split": len(settled.new_worlds), "merged": 0}
    for dst, mids in settled.moves.items():
        store.move_messages(mids, dst, now)
        report["moved"] += len(mids)
    for w, dst in settled.emptied.items():  # emptied: its id points to where most of it went
        if w not in store.worlds or store.worlds[w].merged_into or store.worlds[w].messages:
            continue  # older messages (beyond the job's window) still live there
        store.merge_worlds(w, dst, store.worlds[dst].centroid, now)
        report["merged"] += 1
    return report


def set_centroids(store: GraphStore, settled: Settled) -> None:
    for wid, centroid in settled.centroids.items():
        world = store.worlds[wid]
        world.centroid = np.asarray(centroid, dtype=np.float32)
        world.access_count = max(world.access_count, settled.sizes[wid])
        store.upsert_world(world)
