"""The core's configuration, one definition of each setting: retrieval here, evidence recall
in core/recall/config.py (nested as CoreConfig.recall), world routing constants in
core/worlds.py. The environment settings (bot/settings.py) inherit these fields."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from core.recall import RecallConfig
from core.worlds import WorldParams


class WorldMode(StrEnum):
    """How a chat's messages are grouped into worlds (WORLDS_MODE)."""

    SINGLE = "single"  # one world per chat
    ADAPTIVE = "adaptive"  # topic routing (core/worlds.py)


class RetrievalConfig(BaseModel):
    """Graph retrieval for an answer: seeds, hops, scoring, the context budget."""

    model_config = ConfigDict(frozen=True)

    hops: int = Field(default=2, ge=1, le=4)
    top_k_seeds: int = Field(default=5, ge=1)
    # cosine a vector seed needs; None: read from the embedding model's own noise
    # (core/seeds.py: 0.615 for MiniLM-L6, where 0.60 had been measured by hand; 0.170 for USE)
    min_seed_similarity: float | None = None
    alpha: float = 0.65  # R = alpha * S_vec + (1 - alpha) * PPR
    gamma: float = 0.6  # decay per hop in S_graph
    ppr_damping: float = 0.85
    max_facts: int = Field(default=30, ge=1)  # context budget


class CoreConfig(RetrievalConfig):
    recall: RecallConfig = RecallConfig()
    max_message_chars: int = 8000
    world_mode: WorldMode = WorldMode.ADAPTIVE
    # routing constants; None: calibrated on the embedder itself (core.worlds.params_for), with
    # world_overrides ((field, value) pairs) applied on top
    world_params: WorldParams | None = None
    world_overrides: tuple[tuple[str, float], ...] = ()
    calibration_dir: Path | None = None  # where a model's topic calibration is cached
