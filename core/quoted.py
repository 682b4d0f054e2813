"""What a quote is (core/quote.py): the sentence a question gets, and what the meaning score
of the candidate sentences reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

# A sentence at least cross + this share of the gap from the question is quoted on its meaning
# alone, with no word in common (it was 1.0: as near as two messages of one topic). The client
# trials of 2026-12-03 asked "what are the warehouse hours?" against "Склад работает с 9 до 21"
# (0.27 with USE), "do I need to know programming?" against "No prior coding experience is
# needed" (0.30), "qual o idioma das aulas?" against "Courses are taught in English" (0.29,
# and "Classes are live on Zoom" was quoted through the word "aulas"): each found nothing or
# the wrong sentence. Both tuning parts of bench.answers are the same at 1.0, 0.85, 0.75 and 0.6
# (answered and says-it-does-not-know); at 0.75 the trials gained those three and one quote
# for a question nothing answers ("is there a job guarantee?" -> the career coaching); 0.6
# also answered "can I bring my cat?" with "Pets are welcome" (0.25), but it is the edge
# that the questions nothing answers live nearest.
MEANING_RELEVANT_AT = 0.75


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
    # of the question's words, those a sentence holds a near kin of (core/pipeline/bridge.py,
    # kin_in): not words the chat lacks when that sentence is quoted
    kin: Callable[[Sequence[str], str], Set[str]] = field(default=lambda _words, _s: set())

    @property
    def relevant(self) -> float:
        """The cosine from which a sentence is quoted on its meaning alone."""
        return self.cross + MEANING_RELEVANT_AT * (self.same - self.cross)


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
