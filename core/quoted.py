"""What a quote is (core/quote.py): the sentence a question gets, and what the meaning score
of the candidate sentences reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Meaning:
    """The question's vector, the model's calibrated mean cross- and same-topic pair cosines
    (core/calibration.py), the vectors of texts (each sentence alone; those already known by
    text given), and a message's stored vector by its id (a message is stored with the vector
    of its text alone, Ingest.message_vector: a one-sentence message's is its sentence's)."""

    vector: npt.NDArray[np.float32]
    cross: float
    same: float
    vectors: Callable[[list[str], Mapping[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]]
    stored: Callable[[str], npt.NDArray[np.float32] | None]


@dataclass(frozen=True)
class Quote:
    message_id: str
    author: str
    ts: datetime
    sentence: str
    score: float
    # it holds every word the question asks with, names aside ("CTO" in "Who is the CTO of
    # Acme?"): it says what the question asks, where a graph answer may only be near it
    holds_asked: bool = False
    # a sentence of a later message on the same thing (core/restated.py): what the team said after
    # ("from December the flexible desk costs 130 euros"), shown under the quote, dated
    later: Quote | None = None
    # names the question writes that no message mentions: this sentence holds the rest of what
    # it asks ("do you ship to France?" -> "we ship to Portugal and Spain only"), shown after
    # saying there is nothing about them
    lacks: tuple[str, ...] = ()
    refuses: bool = False  # it refuses a thing the question asks about (core.unknown.refuses)
