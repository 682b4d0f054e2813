"""Evidence recall settings: fusion weights and limits, one definition."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RecallConfig:
    """Fusion weights and limits (measured on the recall fixture; see bench/recall.py)."""

    k: int = 10  # evidence items returned
    depth: int = 50  # candidates taken from each signal
    rrf_k: int = 60
    w_meaning: float = 1.0
    w_words: float = 1.0
    w_entities: float = 1.0
    w_speaker: float = 1.0
    w_time: float = 1.0
    w_neighbours: float = 0.5
    neighbour_hits: int = 3  # the best fused hits whose adjacent turns become candidates
    neighbour_gap_s: float = 6 * 3600.0  # adjacent turns further apart are another session
    time_first: bool = True  # messages inside the question's period rank before the rest
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    min_tokens: int = 3  # messages with fewer content tokens are chit-chat ...
    short_penalty: float = 0.15  # ... and lose this much cosine
    subset_words: float = 0.3  # speaker / period subsets: cosine + this * normalised BM25

    def weight(self, signal: str) -> float:
        return float(getattr(self, f"w_{signal}"))
