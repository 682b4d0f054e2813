"""Evidence recall settings: fusion weights and limits, defined once.

The environment settings (bot/settings.py, RETRIEVAL_ prefix) inherit these fields, so each
setting has one definition: its name, type, default and bounds are here."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TimeAnchor = Literal["clock", "latest"]


class RecallConfig(BaseModel):
    """Fusion weights and limits (measured on the recall fixture; see bench/recall.py)."""

    model_config = ConfigDict(frozen=True)

    evidence_k: int = Field(default=10, ge=1)  # evidence items returned (at least 10, see k)
    depth: int = Field(default=50, ge=1)  # candidates taken from each signal
    rrf_k: int = Field(default=60, ge=1)
    w_meaning: float = 1.0
    w_words: float = 1.0
    w_entities: float = 1.0
    w_speaker: float = 1.0
    w_time: float = 1.0
    w_neighbours: float = 0.5
    # the best fused hits whose adjacent turns become candidates
    neighbour_hits: int = Field(default=3, ge=0)
    neighbour_gap_s: float = 6 * 3600.0  # adjacent turns further apart are another session
    time_first: bool = True  # messages inside the question's period rank before the rest
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    min_tokens: int = Field(default=3, ge=0)  # messages with fewer content tokens are chit-chat
    short_penalty: float = 0.15  # ... and lose this much cosine
    subset_words: float = 0.3  # speaker / period subsets: cosine + this * normalised BM25
    # "yesterday", "last week" count from: the clock (now) or the chat's latest message
    time_anchor: TimeAnchor = "clock"

    @property
    def k(self) -> int:
        """Evidence items ranked: never fewer than the 10 an answer's evidence text shows."""
        return max(self.evidence_k, 10)

    def weight(self, signal: str) -> float:
        return float(getattr(self, f"w_{signal}"))
