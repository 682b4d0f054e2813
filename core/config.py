"""The core's configuration: retrieval, worlds and evidence recall, with their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core.recall import RecallConfig
from core.worlds import WorldParams


@dataclass(frozen=True)
class CoreConfig:
    hops: int = 2
    top_k_seeds: int = 5
    min_seed_similarity: float = 0.60
    alpha: float = 0.65
    gamma: float = 0.6
    ppr_damping: float = 0.85
    max_facts: int = 30
    evidence_k: int = 10
    max_message_chars: int = 8000
    world_mode: str = "adaptive"  # "adaptive": topic routing; "single": one world per chat
    # routing constants; None: calibrated on the embedder itself (core.worlds.params_for), with
    # world_overrides ((field, value) pairs) applied on top
    world_params: WorldParams | None = None
    world_overrides: tuple[tuple[str, float], ...] = ()
    calibration_dir: Path | None = None  # where a model's topic calibration is cached
    # evidence recall over messages (core/recall.py; weights measured by bench/recall.py)
    recall_depth: int = 50
    recall_rrf_k: int = 60
    recall_w_meaning: float = 1.0
    recall_w_words: float = 1.0
    recall_w_entities: float = 1.0
    recall_w_speaker: float = 1.0
    recall_w_time: float = 1.0
    recall_w_neighbours: float = 0.5
    recall_neighbour_hits: int = 3
    recall_time_first: bool = True
    recall_min_tokens: int = 3  # shorter messages are chit-chat and lose recall_short_penalty
    recall_short_penalty: float = 0.15
    recall_time_anchor: str = "clock"  # "clock": now; "latest": the chat's latest message

    def recall(self) -> RecallConfig:
        return RecallConfig(
            k=max(self.evidence_k, 10),
            depth=self.recall_depth,
            rrf_k=self.recall_rrf_k,
            w_meaning=self.recall_w_meaning,
            w_words=self.recall_w_words,
            w_entities=self.recall_w_entities,
            w_speaker=self.recall_w_speaker,
            w_time=self.recall_w_time,
            w_neighbours=self.recall_w_neighbours,
            neighbour_hits=self.recall_neighbour_hits,
            time_first=self.recall_time_first,
            min_tokens=self.recall_min_tokens,
            short_penalty=self.recall_short_penalty,
        )
