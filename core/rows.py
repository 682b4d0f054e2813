"""Row types of a chat's graph, shared by the store adapter and the domain.

The domain (ingest, answer, worlds, hand-off) reads and writes a chat's graph through the
GraphStore port (core/ports.py) in these types; only core/store/ knows how they are kept.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from core.models import FactStatus, FactView


class Extraction(StrEnum):
    """How a stored message's facts were extracted (MessageRow.extraction; the store keeps
    these strings)."""

    PENDING = "pending"  # stored, the LLM not asked yet (a crash here: extracted at restart)
    LLM = "llm"
    FAILED = "failed"  # the LLM failed: the offline path wrote what it found, a job retries
    OFFLINE = "offline"  # no LLM: the ontology's surface forms
    EXPLICIT = "explicit"  # a stated triple (/remember a | kind | P | b | kind), not extracted
    IMPORT = "import"  # restored from an export, with the facts the export holds


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def message_ref(raw: str | None) -> str:
    """A message id as given by a front-end or a line (its own, or the one it replies to):
    trimmed, at most 200 characters; "" when none."""
    return (raw or "").strip()[:200]


@dataclass
class EntityRow:
    id: str
    kind: str
    name: str
    key: str
    world: str
    ident: str
    aliases: list[str] = field(default_factory=list)


@dataclass
class MessageRow:
    id: str
    seq: int
    author: str
    text: str
    ts: datetime
    world: str
    extraction: str  # an Extraction value


# what an Edge's FactView takes besides the edge's own fields: subject name and kind, object
# name and kind, valid_from, sources, world
EdgeParts = tuple[str, str, str, str, datetime, tuple[str, ...], str]


@dataclass(frozen=True, slots=True)
class Edge:
    """One active fact seen during traversal: what traversal reads (its ends, id, predicate and
    confidence), and its FactView made on request. A question about a hub walks thousands of
    edges and keeps tens: a pydantic view for each was ~40% of such a question (10k facts).
    A snapshot of the fact when the store read it (the store may keep it for later reads
    until the fact changes): an Edge outlives the chat's worker call that read it, so it
    never reads the store."""

    src: str
    dst: str
    fact_id: str
    predicate: str
    confidence: float
    parts: EdgeParts

    @property
    def fact(self) -> FactView:
        """A new view on each call: a view is mutable, an Edge is shared by the questions
        that read it."""
        subject, subject_kind, obj, object_kind, valid_from, sources, world = self.parts
        return FactView(
            id=self.fact_id,
            subject=subject,
            subject_kind=subject_kind,
            predicate=self.predicate,
            object=obj,
            object_kind=object_kind,
            confidence=self.confidence,
            status=FactStatus.ACTIVE.value,
            valid_from=valid_from,
            sources=list(sources),
            world=world,
        )


@dataclass
class WorldRow:
    id: str
    topic: str
    centroid: npt.NDArray[np.float32]
    access_count: int
    created_at: datetime
    last_active: datetime
    merged_into: str
    # in memory only (loaded at open, kept current by writes): what maturity and routing need
    messages: int = 0
    facts: int = 0  # active facts
    conf_sum: float = 0.0  # sum of the active facts' confidence


@dataclass(frozen=True)
class PlannedEntity:
    id: str
    kind: str
    name: str
    key: str
    world: str
    ident: str
    embedding: npt.NDArray[np.float32] | None  # None when the entity already exists


@dataclass(frozen=True)
class PlannedFact:
    subject: PlannedEntity
    predicate: str
    object: PlannedEntity
    confidence: float
    single_valued: bool  # cardinality one: a new object supersedes the previous one


@dataclass
class WriteOutcome:
    stored: list[FactView] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
