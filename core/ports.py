"""Ports: what the core needs from the outside world, as structural Protocols.

Adapters (Kùzu store, fastembed / USE embedders, Anthropic LLM, Telegram / Slack notifiers)
implement these without inheriting from them; test fakes do the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import numpy as np
import numpy.typing as npt

from core.models import FactView, TripleIn

Vector = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Text -> unit-length float32 vectors. Blocking; the core calls it off the event loop."""

    @property
    def model_name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Return an (n, dim) float32 array of L2-normalised rows."""
        ...


class LlmAnswer(Protocol):
    text: str
    cited_fact_ids: list[str]


class Llm(Protocol):
    """The language model. Every method raises core.errors.LlmUnavailable after its retries.

    Optional, and so not part of this Protocol: `async classify_intent(*, text, language)`,
    returning an object with `interested` (bool), `want` (a str or a sequence of "price", "demo",
    "contract", "invoice", "buy", "person"), `confidence` (0..1), `reason` (one line) and
    optionally `product` (core.llm.schema.IntentVerdict). core.handoff.detect_intent looks it up
    with getattr and falls back to its rules when it is missing or fails.
    """

    @property
    def answer_model(self) -> str: ...

    async def extract(
        self, *, text: str, author: str, world_topic: str, known_entities: Sequence[str]
    ) -> list[TripleIn]: ...

    async def answer(
        self,
        *,
        question: str,
        language: str,
        facts: Sequence[FactView],
        paths: Sequence[Sequence[str]],
        evidence: Sequence[tuple[str, str]],  # (message id, "author: text")
    ) -> LlmAnswer: ...

    async def topic_name(self, *, texts: Sequence[str]) -> str: ...


class Clock(Protocol):
    def now(self) -> datetime: ...
