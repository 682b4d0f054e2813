"""Domain values passed between the core, its adapters and the front-ends.

Everything here is plain data (pydantic models, frozen where it is a value), so front-ends,
the JSON CLI and traces serialise it without knowing the store.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

REVIEW_THRESHOLD = 0.6


class FactStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    CLOSED = "closed"  # decayed below the floor: closed, never erased
    REJECTED = "rejected"


class TripleIn(BaseModel):
    """A proposed fact, from a person, the offline extractor or the LLM. Not yet validated."""

    model_config = ConfigDict(frozen=True)

    subject: str = Field(min_length=1, max_length=200)
    subject_kind: str
    predicate: str
    object: str = Field(min_length=1, max_length=200)
    object_kind: str
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    # identifiers (tax id / INN, e-mail, domain, deal id) that make an entity's id stable
    subject_ident: str | None = None
    object_ident: str | None = None


class FactView(BaseModel):
    """A stored fact as users and the CLI see it."""

    id: str
    subject: str
    subject_kind: str
    predicate: str
    object: str
    object_kind: str
    confidence: float
    status: str
    valid_from: datetime
    valid_to: datetime | None = None
    sources: list[str] = Field(default_factory=list)
    world: str = ""

    def sentence(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


class PendingFact(BaseModel):
    """A low-confidence triple waiting in the review queue (never in memory until approved)."""

    id: str
    triple: TripleIn
    sources: list[str] = Field(default_factory=list)
    created_at: datetime


class Rejection(BaseModel):
    """A triple refused by the ontology, with the reason."""

    triple: TripleIn
    reason: str


class IngestResult(BaseModel):
    message_id: str
    duplicate: bool = False
    world: str = ""
    world_born: bool = False  # the message started a new world
    stored: list[FactView] = Field(default_factory=list)
    pending: list[PendingFact] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)  # ids of facts closed by this message


class Seed(BaseModel):
    entity: str
    score: float


class ScoredEntity(BaseModel):
    id: str
    name: str
    kind: str
    s_vec: float
    s_graph: float
    ppr: float
    score: float


class Answer(BaseModel):
    """The result of a question: the text plus everything needed to explain it."""

    answer: str
    language: str = "en"
    worlds: list[str] = Field(default_factory=list)
    seeds: list[Seed] = Field(default_factory=list)
    facts: list[FactView] = Field(default_factory=list)
    paths: list[list[str]] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    trace_id: str = ""
    unknown: list[str] = Field(
        default_factory=list
    )  # names the question used that we know nothing of
    model: str = "extractive"

    def cli_json(self) -> dict[str, object]:
        """The JSON CLI's contract (field names are relied on by other tools)."""
        return {
            "answer": self.answer,
            "worlds": self.worlds,
            "seeds": [s.model_dump() for s in self.seeds],
            "facts": [
                {
                    "subject": f.subject,
                    "predicate": f.predicate,
                    "object": f.object,
                    "confidence": round(f.confidence, 4),
                    "sources": f.sources,
                }
                for f in self.facts
            ],
            "paths": self.paths,
            "evidence": self.evidence,
            "trace_id": self.trace_id,
        }


class EvidenceHit(BaseModel):
    """One evidence message and the recall signals that found it (core/recall.py)."""

    id: str
    signals: list[str] = Field(default_factory=list)  # meaning, words, entities, speaker, ...
    score: float = 0.0
    ts: datetime | None = None
    author: str = ""


class Trace(BaseModel):
    """Why the bot said what it said: stored for every answer, read back by /why."""

    id: str
    question: str
    created_at: datetime
    seeds: list[Seed]
    nodes: list[ScoredEntity]
    edges: list[FactView]
    paths: list[list[str]]
    evidence: list[str]
    answer: str
    model: str
    worlds: list[str] = Field(default_factory=list)
    evidence_hits: list[EvidenceHit] = Field(default_factory=list)  # absent in older traces
    cited: list[str] = Field(default_factory=list)  # fact ids the answer cites (retrieved only)


class WorldInfo(BaseModel):
    id: str
    topic: str
    maturity: float
    facts: int
    messages: int
    access_count: int
    created_at: datetime
    last_active: datetime
    merged_into: str | None = None


class Reply(BaseModel):
    """What a front-end shows for a free-form message (statement or question)."""

    kind: Literal["remembered", "answer", "noted", "empty"]
    text: str
    answer: Answer | None = None
    ingest: IngestResult | None = None
    handoff: str | None = None  # id of the hand-off this message raised or updated (issue 8)
