"""Domain values passed between the core, its adapters and the front-ends.

Everything here is plain data (pydantic models, frozen where it is a value), so front-ends,
the JSON CLI and traces serialise it without knowing the store.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from core.clock import as_utc
from core.language import name_key

# a time from outside the core: one without a zone is UTC (core/clock.py)
Zoned = Annotated[datetime, AfterValidator(as_utc)]

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
    valid_from: Zoned
    valid_to: Zoned | None = None
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
    reason: str = ""  # why it waits when not for low confidence (e.g. a kind conflict)


class Rejection(BaseModel):
    """A triple refused by the ontology, with the reason."""

    triple: TripleIn
    reason: str


class ImportItem(BaseModel):
    """One line of an import (`python -m bot ingest`): a message (text) or a fact (triple)."""

    model_config = ConfigDict(frozen=True)

    author: str
    message_id: str | None = None
    text: str | None = None
    triple: TripleIn | None = None
    ts: Zoned | None = None
    reply_to: str | None = None  # the id of the message it answers (IncomingMessage.reply_to)


class IngestResult(BaseModel):
    message_id: str
    duplicate: bool = False
    world: str = ""
    world_born: bool = False  # the message started a new world
    stored: list[FactView] = Field(default_factory=list)
    pending: list[PendingFact] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    superseded: list[str] = Field(default_factory=list)  # ids of facts closed by this message


class Forgotten(BaseModel):
    """What an erase request for a name took away (core/pipeline/erase.py)."""

    facts: int = 0
    messages: int = 0


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
    # id of the hand-off this message raised or updated (issue 8): the front-end tells the
    # client, in `language`, that a person will follow up
    handoff: str | None = None
    language: str = "en"  # the message's language


# ====================================================================== hand-off (core/handoff/)
HandoffStatus = Literal["open", "taken", "closed"]


class ClientInfo(BaseModel):
    """Who is speaking, as the front-end knows them (for the card and for dedupe)."""

    name: str
    platform: str = ""
    user_id: str | None = None
    username: str | None = None
    link: str | None = None

    def key(self) -> str:
        return f"{self.platform}:{self.user_id}" if self.user_id else f"name:{name_key(self.name)}"


class IncomingMessage(BaseModel):
    """A message as every front-end (and the inbound log's replay) hands it to the core."""

    model_config = ConfigDict(frozen=True)

    author: str
    text: str
    message_id: str | None = None  # unique in its chat: a redelivered message is stored once
    ts: Zoned | None = None  # None: the core stamps it with its clock
    client: ClientInfo | None = None  # who is speaking, for a hand-off card
    # the id of the message of this chat it answers (a Telegram reply, a Slack thread's
    # parent): the quote reads a reply with the question it answers (core/replies.py)
    reply_to: str | None = None


class HandOff(BaseModel):
    id: str
    chat: str
    client: ClientInfo
    client_key: str
    company: str | None = None
    role: str | None = None
    wants: list[str] = Field(default_factory=list)
    product: str | None = None
    reason: str = ""
    confidence: float = 0.0
    facts: list[str] = Field(default_factory=list)
    last_messages: list[str] = Field(default_factory=list)
    language: str = "en"
    status: HandoffStatus = "open"
    created_at: datetime
    updated_at: datetime
    last_signal_at: datetime
    last_sent_at: datetime
    signals: int = 1
    resends: int = 0
    taken_by: str | None = None  # manager key, e.g. "telegram:501"
    taken_by_name: str | None = None
    taken_at: datetime | None = None
    closed_at: datetime | None = None
    closed_by: str | None = None  # manager key
    closed_by_name: str | None = None
    # target key ("telegram:501", "slack:C123") -> ids of the card messages sent there
    notified: dict[str, list[str]] = Field(default_factory=dict)
    stale: list[str] = Field(default_factory=list)  # "target|ref" cards whose edit failed
    revision: int = 0  # bumped on every change a card shows


class TakeOutcome(BaseModel):
    result: Literal["taken", "already_taken", "closed", "not_found"]
    handoff: HandOff | None = None


class CloseOutcome(BaseModel):
    result: Literal["closed", "already_closed", "not_found"]
    handoff: HandOff | None = None
