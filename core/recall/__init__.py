"""Recall: find the messages that answer a question (hybrid evidence retrieval).

Much of what people tell the bot never becomes a clean triple ("I finally started at the new
clinic today"), so evidence is ranked over the chat's messages by several signals, fused by
weighted reciprocal rank fusion:

- meaning:    cosine of the question with the message embedding (its text alone);
- words:      BM25 over lemmatised tokens (en/pt/ru), an index kept in memory per chat;
- entities:   messages that mention the question's entities, and the source messages of the
              facts about them (the graph's provenance);
- speaker:    a speaker named in the question -> that author's messages, by meaning;
- time:       a period in the question ("last week", "in May", "em maio", "в мае", "yesterday",
              "3 May 2024") -> messages in that period, by meaning; they rank first;
- neighbours: the turns just before and after a strong hit (same session).

Pure functions (config.py, periods.py, fusion.py) over one small per-chat index
(core/index/words.py, MessageIndex); the store owns the index and feeds
it (core/store/), the answer pipeline calls `rank`.
Measured on tests/fixtures/recall_*.jsonl by bench/recall.py.
"""

from __future__ import annotations

from core.index.words import MessageIndex, index_tokens
from core.recall.config import RecallConfig
from core.recall.fusion import (
    SIGNALS,
    Hit,
    Signals,
    fuse,
    gather,
    nearest,
    neighbours,
    plain_vector,
    rank,
)
from core.recall.periods import Period, is_when_question, parse_period

__all__ = [
    "SIGNALS",
    "Hit",
    "MessageIndex",
    "Period",
    "RecallConfig",
    "Signals",
    "fuse",
    "gather",
    "index_tokens",
    "is_when_question",
    "nearest",
    "neighbours",
    "parse_period",
    "plain_vector",
    "rank",
]
