"""Topic worlds: routing a message to a world and absorbing it into the world's centroid.

threshold = base + step * maturity; alpha = 1 / (access_count + 1) * (1 - 0.7 * maturity).
In "single" mode (the default until routing is calibrated for the model in use) every chat
has one world, so no fact is split from its neighbours by a wrong routing decision.
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from core.language import STOPWORDS, tokens
from core.ports import Vector
from core.store.kuzu_store import ChatStore, WorldRow

if TYPE_CHECKING:
    from core.service import CoreConfig


def keyword_topic(text: str, limit: int = 3) -> str:
    words = [w for w in tokens(text) if len(w) > 2 and w not in STOPWORDS and not w.isdigit()]
    top = [w for w, _ in Counter(words).most_common(limit)]
    return " ".join(top) or "general"


def _live(store: ChatStore) -> list[WorldRow]:
    return [w for w in store.worlds.values() if not w.merged_into]


def route(store: ChatStore, emb: Vector, config: CoreConfig, *, text: str, now: datetime) -> WorldRow:
    """The world this message belongs to; a new one is born when none is close enough."""
    live = _live(store)
    if config.world_mode == "single" and live:
        return live[0]
    if live:
        matrix = np.stack([w.centroid for w in live])
        norms = np.linalg.norm(matrix, axis=1)
        sims = matrix @ emb / np.maximum(norms, 1e-12)
        best = int(np.argmax(sims))
        # maturity is not tracked per message in memory yet: the base threshold applies
        if sims[best] >= config.world_base:
            return live[best]
    world = WorldRow(
        id=uuid.uuid4().hex[:8], topic=keyword_topic(text), centroid=emb.copy(),
        access_count=0, created_at=now, last_active=now, merged_into="",
    )
    return world


def absorb(store: ChatStore, world: WorldRow, emb: Vector, *, now: datetime, maturity: float = 0.0) -> None:
    alpha = 1.0 / (world.access_count + 1) * (1.0 - 0.7 * maturity)
    centroid: Any = (1.0 - alpha) * world.centroid + alpha * emb
    world.centroid = centroid.astype(np.float32)
    world.access_count += 1
    world.last_active = now
    store.upsert_world(world)
