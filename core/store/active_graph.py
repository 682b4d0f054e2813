"""The in-memory adjacency of a chat's active facts and mentions (the read path's graph)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.rows import Edge


@dataclass(slots=True)
class ActiveFact:
    """An active fact as the in-memory adjacency holds it; names come from the entities."""

    id: str
    src: str
    dst: str
    predicate: str
    confidence: float
    valid_from: datetime
    sources: list[str]
    world: str
    # the Edge reads hand out (GraphReader._edge), made on the first read; whatever changes
    # the fact in place sets it back to None (an Edge is a snapshot)
    edge: Edge | None = field(default=None, compare=False, repr=False)


class ActiveGraph:
    """Adjacency of a chat's active facts and its message mentions, for the read path.

    Kùzu stays the source of truth. Measured at 100k facts: each per-hop traversal query took
    3-5 ms, so a question (four hops, mentions) spent most of its time in Kùzu while these
    lookups are microseconds. ChatStore keeps it in step with the facts it writes itself, a
    world merge's and a regrouping move's changes (core/store/merge.py, regroup.py) and the
    folds after them, and drops it after any other write to facts or mentions and after a
    rolled-back transaction (read again on next use; ~0.3 s at 10,000 facts).
    """

    def __init__(self) -> None:
        self.out: dict[str, dict[str, ActiveFact]] = {}
        self.inn: dict[str, dict[str, ActiveFact]] = {}
        self.by_id: dict[str, ActiveFact] = {}
        self.mentions: dict[str, dict[str, None]] = {}  # entity -> message ids, oldest first
        # provenance of every fact, any status (evidence: ChatStore.fact_sources): fact id ->
        # (valid_from, sources), and entity -> ids of the facts it is subject or object of.
        # A Kùzu lookup by a list of entity ids scans the shard's table (7 ms per question at
        # 1k facts in one shard, measured; growing with every chat of the shard)
        self.provenance: dict[str, tuple[datetime, list[str]]] = {}
        self.touching: dict[str, dict[str, None]] = {}
        # facts a later one replaced (a new single value, a denial): their source messages
        # are outdated about those facts' ends, and an answer must not quote them as current;
        # fact id -> (subject, object, predicate), None when it was closed before being read
        self.superseded: dict[str, tuple[str, str, str] | None] = {}

    def add(self, fact: ActiveFact) -> None:
        self.by_id[fact.id] = fact
        self.out.setdefault(fact.src, {})[fact.id] = fact
        self.inn.setdefault(fact.dst, {})[fact.id] = fact
        self.record(fact.id, fact.src, fact.dst, fact.valid_from, fact.sources)

    def record(
        self, fact_id: str, src: str, dst: str, valid_from: datetime, sources: list[str]
    ) -> None:
        """A fact's provenance (an active one through add; a closed one when loading)."""
        self.provenance[fact_id] = (valid_from, list(sources))
        for end in (src, dst):
            self.touching.setdefault(end, {})[fact_id] = None

    def remove(self, fact_id: str) -> None:
        fact = self.by_id.pop(fact_id, None)
        if fact is not None:
            self.out.get(fact.src, {}).pop(fact_id, None)
            self.inn.get(fact.dst, {}).pop(fact_id, None)

    def supersede(self, fact_id: str) -> None:
        """An active fact closed by a later one: history now, its provenance stays."""
        fact = self.by_id.get(fact_id)
        self.remove(fact_id)
        self.superseded[fact_id] = None if fact is None else (fact.src, fact.dst, fact.predicate)

    def replaced(self, src: str, predicate: str, dst: str) -> bool:
        """Did src PREDICATE dst hold once and a later message replace it ("Ann works at
        Acme", then "Ann works at Globex" or "Ann doesn't work at Acme anymore")?"""
        return any(
            self.superseded.get(f) == (src, dst, predicate) for f in self.touching.get(src, ())
        )

    def forget(self, fact_id: str, ends: Sequence[str]) -> None:
        """A fact deleted (a duplicate folded into another): no trace of it is left."""
        self.remove(fact_id)
        self.provenance.pop(fact_id, None)
        self.superseded.pop(fact_id, None)
        for end in ends:
            self.touching.get(end, {}).pop(fact_id, None)

    def outdated_sources(self, entity_ids: Sequence[str]) -> set[str]:
        """Messages that said a since-superseded fact about one of the entities and no fact
        about them that still stands ("Ann works at Acme" once "Ann works at Globex" came)."""
        old: set[str] = set()
        current: set[str] = set()
        for fact_id in {f for e in entity_ids for f in self.touching.get(e, ())}:
            sources = self.provenance[fact_id][1]
            if fact_id in self.superseded:
                old.update(sources)
            elif fact_id in self.by_id:
                current.update(sources)
        return old - current

    def mention(self, message_id: str, entity_id: str) -> None:
        self.mentions.setdefault(entity_id, {})[message_id] = None


def _reconfirm(graph: ActiveGraph, *, fact_id: str, confidence: float, sources: list[str]) -> None:
    fact = graph.by_id.get(fact_id)
    if fact is not None:
        fact.confidence = confidence
        fact.sources = list(sources)
        fact.edge = None
    if fact_id in graph.provenance:
        graph.provenance[fact_id] = (graph.provenance[fact_id][0], list(sources))
