"""Ports: what the core needs from the outside world, as structural Protocols.

Adapters (Kùzu store, fastembed / USE embedders, Anthropic LLM, Telegram / Slack notifiers)
implement these without inheriting from them; test fakes do the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from core.identity import NameIndex, NameRules
from core.index.vectors import VectorMatrix
from core.index.words import MessageIndex
from core.models import (
    FactView,
    HandOff,
    IncomingMessage,
    IngestResult,
    PendingFact,
    Reply,
    TripleIn,
)
from core.rows import (
    Edge,
    EntityRow,
    Extraction,
    MessageRow,
    PlannedEntity,
    PlannedFact,
    WorldRow,
    WriteOutcome,
)

Vector = npt.NDArray[np.float32]
T = TypeVar("T")


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
        evidence: Sequence[tuple[str, str]],  # (message id, "author (date): text")
    ) -> LlmAnswer: ...

    async def topic_name(self, *, texts: Sequence[str]) -> str: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class GraphStore(Protocol):
    """What the domain needs of one chat's graph (core/store/kuzu_store.py's ChatStore).

    The in-memory indexes are read-only views here: the domain changes a chat's graph only
    through the methods, which keep the indexes and the database in step."""

    @property
    def chat(self) -> str: ...
    @property
    def entities(self) -> Mapping[str, EntityRow]: ...
    @property
    def by_key(self) -> Mapping[tuple[str, str], str]: ...  # (world, name key) -> entity id
    @property
    def by_ident(self) -> Mapping[str, str]: ...  # stable identifier -> entity id
    @property
    def by_kind(self) -> Mapping[str, set[str]]: ...  # kind -> entity ids
    @property
    def key_worlds(self) -> Mapping[str, set[str]]: ...  # name key -> worlds that know it
    @property
    def entity_vectors(self) -> VectorMatrix: ...
    @property
    def message_vectors(self) -> VectorMatrix: ...
    @property
    def world_vectors(self) -> VectorMatrix: ...  # unit centroids of live worlds
    @property
    def recall(self) -> MessageIndex: ...
    @property
    def message_ids(self) -> set[str]: ...
    @property
    def worlds(self) -> Mapping[str, WorldRow]: ...
    @property
    def last_world(self) -> str: ...
    @property
    def last_message_ts(self) -> datetime | None: ...
    @property
    def last_trace_id(self) -> str | None: ...
    @property
    def names(self) -> NameIndex | None: ...  # name keys (core/identity.py), once asked for
    def use_name_rules(self, rules: NameRules) -> NameIndex: ...
    def set_ident(self, entity_id: str, ident: str) -> None: ...

    # messages
    def add_message(
        self,
        *,
        message_id: str,
        author: str,
        text: str,
        ts: datetime,
        world: str,
        extraction: Extraction,
        embedding: Vector,
    ) -> MessageRow: ...
    def add_reply(self, message_id: str, parent_id: str) -> None: ...
    def set_extraction(self, message_id: str, status: Extraction) -> None: ...
    def messages(self, ids: Sequence[str]) -> list[MessageRow]: ...
    def messages_with_extraction(
        self, status: Extraction, limit: int = 100
    ) -> list[MessageRow]: ...
    def message_count(self) -> int: ...
    def last_seq(self) -> int: ...  # the newest message's sequence number
    def routed_since(self, seq: int) -> int: ...  # messages after seq, not facts or restored
    def meta(self, key: str) -> str | None: ...  # a value kept with the chat (set_meta)
    def set_meta(self, key: str, value: str) -> None: ...
    def recent_messages(self, limit: int = 5) -> list[MessageRow]: ...
    def mention_count(self, message_id: str) -> int: ...
    def mentions_of(self, entity_ids: Sequence[str], limit: int = 50) -> list[str]: ...
    def bare_entities(self, entity_ids: Iterable[str]) -> list[str]: ...
    def fact_sources(self, entity_ids: Sequence[str], limit: int = 50) -> list[str]: ...
    def outdated_sources(self, entity_ids: Sequence[str]) -> set[str]: ...
    def replaced(self, subject: str, predicate: str, obj: str) -> bool: ...

    # facts
    def write_facts(
        self, planned: Sequence[PlannedFact], *, source: str, now: datetime, world: str
    ) -> WriteOutcome: ...
    def deny_facts(self, denied: Sequence[tuple[str, str, str]], *, now: datetime) -> list[str]: ...
    def edges_from(self, ids: Iterable[str]) -> list[Edge]: ...
    def edges_to(self, ids: Iterable[str]) -> list[Edge]: ...
    def world_predicates(self) -> dict[str, set[str]]: ...  # world -> its active predicates
    def facts(
        self, entity_ids: Sequence[str] | None, *, history: bool, limit: int
    ) -> list[FactView]: ...
    def fact_count(self, *, active_only: bool = True) -> int: ...
    def set_fact_status(self, fact_ids: Sequence[str], status: str, now: datetime) -> None: ...
    def active_facts_for_decay(self) -> list[tuple[str, float, datetime]]: ...
    def forget_entities(self, entity_ids: Sequence[str]) -> int: ...
    def erase(
        self, entity_ids: Sequence[str], message_ids: Sequence[str], said: Callable[[str], bool]
    ) -> int: ...

    # worlds
    def upsert_world(self, world: WorldRow) -> None: ...
    def rename_world(self, world_id: str, topic: str) -> None: ...
    def delete_world(self, world_id: str) -> None: ...
    def resolve_world(self, world_id: str) -> str: ...
    def merge_worlds(
        self, src: str, dst: str, centroid: Vector, now: datetime
    ) -> dict[str, int]: ...
    def world_messages(self, newest: int | None = None) -> list[tuple[str, str, datetime, str]]: ...
    def move_messages(
        self, message_ids: Sequence[str], dst: str, now: datetime
    ) -> dict[str, int]: ...

    # review queue, traces, export
    def add_pending(
        self, triple: TripleIn, sources: list[str], now: datetime, reason: str = ""
    ) -> PendingFact: ...
    def pending(self, pending_id: str | None = None) -> list[PendingFact]: ...
    def drop_pending(self, pending_id: str) -> None: ...
    def add_trace(self, trace_id: str, body: str, now: datetime) -> None: ...
    def trace(self, trace_id: str) -> str | None: ...
    def export(self) -> dict[str, Any]: ...
    def transaction(self) -> AbstractContextManager[None]:
        """Writes inside commit together; nested ones join it."""
        ...

    def staged(self) -> AbstractContextManager[None]:
        """A bulk import's batch: one transaction whose rows are written together at its end
        (or before anything reads the database); the in-memory indexes change as usual."""
        ...

    # issue 12: writes as one transaction, and the writes that rewrite history
    def refresh_world_stats(self) -> None: ...
    def correct_message(
        self, message_id: str, text: str, embedding: Vector, now: datetime
    ) -> list[str]: ...
    def restore_fact(
        self,
        subject: PlannedEntity,
        obj: PlannedEntity,
        fact: FactView,
        *,
        fact_id: str,
        now: datetime,
    ) -> bool: ...


class GraphStores(Protocol):
    """Every chat's graph (core/store/pool.py's StorePool): one chat at a time, under its lock."""

    def configure(
        self, *, single_valued: frozenset[str], embed: Callable[[list[str]], Vector]
    ) -> None:
        """The ontology's cardinality-one predicates, and the embedder a chat written with
        another model is re-embedded with when it opens."""
        ...

    def recover_with(
        self,
        *,
        on_created: Callable[[str], None],
        can_rebuild: Callable[[str], bool],
        rebuild: Callable[[str, GraphStore], None],
    ) -> None:
        """How a chat whose database cannot be opened is rebuilt (issue 12): `on_created(chat)`
        when a chat's directory is first made; a broken chat is set aside and rebuilt by
        `rebuild` when `can_rebuild(chat)`, else opening it is a StoreError."""
        ...

    async def run(self, chat: str, fn: Callable[[GraphStore], T]) -> T:
        """fn(store) in a worker thread while holding the chat's lock."""
        ...

    async def delete(self, chat: str) -> None: ...

    async def release(self, chat: str) -> None:
        """Checkpoint the chat's shard and release what its connection holds (after a bulk
        batch); the chat's indexes stay."""
        ...

    async def discard(self, chat: str) -> None:
        """Drop a chat's in-memory indexes; they are reloaded from disk on next use."""
        ...

    def chats(self) -> list[str]: ...

    def exists(self, chat: str) -> bool:
        """Whether the chat has stored anything (without opening its store)."""
        ...

    async def close(self) -> None: ...


class Remembers(Protocol):
    """Storing a message (core/service.py's Core, which inherits this, so the keyword form
    below is written once): what the front-ends, the hand-off and the inbound log's replay call."""

    async def remember_message(self, chat: str, message: IncomingMessage) -> IngestResult:
        """Store the message first, then extract, validate, resolve and write its facts."""
        ...

    async def remember(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str | None = None,
        ts: datetime | None = None,
    ) -> IngestResult:
        """remember_message, the message's fields given as keywords."""
        message = IncomingMessage(author=author, text=text, message_id=message_id, ts=ts)
        return await self.remember_message(chat, message)


class ChatMemory(Remembers, Protocol):
    """What the hand-off needs of the core (core/service.py's Core): its LLM, a chat's graph,
    storing a message, and a fact derived from a stored message."""

    @property
    def llm(self) -> Llm | None: ...

    @property
    def pool(self) -> GraphStores: ...

    async def remember_fact_from(
        self, chat: str, triple: TripleIn, *, source: str
    ) -> IngestResult: ...


@dataclass(frozen=True)
class MessageHandled:
    """The event Core publishes after handling a message (answered, remembered or overheard)."""

    chat: str
    message: IncomingMessage  # an overheard one carries the id it was stored under
    reply: Reply  # for an overheard message: what was remembered, with no text
    lang: str


class MessageListener(Protocol):
    """Told by Core after each message it handled (the hand-off, core/handoff/service.py). It
    may return the reply with something marked on it; it never fails the reply."""

    async def after_message(self, core: ChatMemory, event: MessageHandled) -> Reply: ...


class Notifier(Protocol):
    """A way to reach managers (Telegram chats, a Slack channel). Implemented in bot/.

    `name` prefixes target keys and must not contain ':'. `send` returns an id of the message it
    posted (used later to edit it); both methods raise on failure, and the service retries.
    """

    @property
    def name(self) -> str: ...

    def targets(self) -> Sequence[str]: ...

    async def send(self, target: str, handoff: HandOff) -> str: ...

    async def update(self, target: str, ref: str, handoff: HandOff) -> None: ...


class HandoffRepository(Protocol):
    """Hand-off records (core/handoff/repository.py's HandoffStore). Blocking: called from a
    worker thread."""

    def save(self, h: HandOff) -> None: ...

    def get(self, handoff_id: str) -> HandOff | None: ...

    def latest_for(self, chat: str, client_key: str) -> HandOff | None: ...

    def by_status(self, statuses: Sequence[str], limit: int = 100) -> list[HandOff]: ...

    def needing_work(self) -> list[HandOff]: ...

    def close(self) -> None: ...
