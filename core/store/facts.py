"""Writing facts: entities upserted, facts added, re-confirmed or superseded in one
transaction, the ActiveGraph kept in step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial

from core.models import FactStatus, FactView
from core.rows import (
    EntityRow,
    PlannedEntity,
    PlannedFact,
    WriteOutcome,
    new_id,
)
from core.store.active_graph import ActiveFact, ActiveGraph, _reconfirm
from core.store.connection import _naive, _utc
from core.store.schema import ChatSchema


class FactWriter(ChatSchema):
    def write_facts(
        self, planned: Sequence[PlannedFact], *, source: str, now: datetime, world: str
    ) -> WriteOutcome:
        """Upsert entities, then add, re-confirm or supersede facts, in one transaction."""
        outcome = WriteOutcome()
        new_entities: dict[str, PlannedEntity] = {}
        changes: list[Callable[[ActiveGraph], None]] = []  # replayed on the graph after commit
        self._graph_sync = True
        try:
            with self.transaction():
                for fact in planned:
                    for ent in (fact.subject, fact.object):
                        if ent.id not in self.entities and ent.id not in new_entities:
                            self._create_entity(ent, now)
                            new_entities[ent.id] = ent
                        if source in self.message_ids:
                            self._exec(
                                "MATCH (m:Message {uid: $m}), (e:Entity {uid: $e}) "
                                "WHERE m.chat = $chat AND e.chat = $chat "
                                "MERGE (m)-[:MENTIONS {chat: $chat}]->(e)",
                                {"m": self._u(source), "e": self._u(ent.id)},
                            )
                            changes.append(
                                partial(ActiveGraph.mention, message_id=source, entity_id=ent.id)
                            )
                    view, closed = self._write_fact(
                        fact, source=source, now=now, world=world, changes=changes
                    )
                    outcome.stored.append(view)
                    outcome.superseded.extend(closed)
        except BaseException:
            self._graph = None  # rolled back: rebuild from the database on next read
            raise
        finally:
            self._graph_sync = False
        if self._graph is not None:
            for change in changes:
                change(self._graph)
        for ent in new_entities.values():
            self._index_entity(
                EntityRow(ent.id, ent.kind, ent.name, ent.key, ent.world, ent.ident), ent.embedding
            )
        return outcome

    def _create_entity(self, ent: PlannedEntity, now: datetime) -> None:
        self._exec(
            "CREATE (:Entity {uid: $u, chat: $chat, id: $id, kind: $kind, name: $name, "
            "key: $key, aliases: $aliases, world: $world, ident: $ident, emb: $emb, "
            "created_at: $now})",
            {
                "u": self._u(ent.id),
                "id": ent.id,
                "kind": ent.kind,
                "name": ent.name,
                "key": ent.key,
                "aliases": [],
                "world": ent.world,
                "ident": ent.ident,
                "emb": [] if ent.embedding is None else ent.embedding.tolist(),
                "now": _naive(now),
            },
        )

    def _write_fact(
        self,
        fact: PlannedFact,
        *,
        source: str,
        now: datetime,
        world: str,
        changes: list[Callable[[ActiveGraph], None]],
    ) -> tuple[FactView, list[str]]:
        current = self._rows(
            "MATCH (a:Entity {uid: $s})-[f:FACT]->(b:Entity) WHERE a.chat = $chat AND "
            "f.chat = $chat AND f.predicate = $p AND f.status = 'active' "
            "RETURN b.id, f.id, f.confidence, f.sources, f.world",
            {"s": self._u(fact.subject.id), "p": fact.predicate},
        )
        closed: list[str] = []
        for obj_id, fact_id, conf, sources, fact_world in current:
            if obj_id == fact.object.id:
                # seen again: re-confirm (noisy-or of the two confidences), keep provenance
                merged = 1.0 - (1.0 - float(conf)) * (1.0 - fact.confidence)
                srcs = list(sources or [])
                if source and source not in srcs:
                    srcs.append(source)
                self._exec(
                    "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.id = $id "
                    "SET f.confidence = $c, f.confirmed_at = $now, f.sources = $src",
                    {"id": fact_id, "c": merged, "now": _naive(now), "src": srcs},
                )
                self._fact_stat(fact_world or world, 0, merged - float(conf))
                changes.append(
                    partial(_reconfirm, fact_id=fact_id, confidence=merged, sources=srcs)
                )
                return self._fact_view(fact, fact_id, merged, srcs, now, world), closed
            if fact.single_valued:
                self._exec(
                    "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.id = $id "
                    "SET f.status = $st, f.valid_to = $now",
                    {"id": fact_id, "st": FactStatus.SUPERSEDED.value, "now": _naive(now)},
                )
                closed.append(fact_id)
                changes.append(partial(ActiveGraph.remove, fact_id=fact_id))
                self._fact_stat(fact_world or world, -1, -float(conf))
        fact_id = new_id("f")
        sources = [source] if source else []
        self._exec(
            "MATCH (a:Entity {uid: $s}), (b:Entity {uid: $o}) WHERE a.chat = $chat AND "
            "b.chat = $chat CREATE (a)-[:FACT {chat: $chat, id: $id, predicate: $p, "
            "confidence: $c, status: 'active', valid_from: $now, confirmed_at: $now, "
            "sources: $src, world: $w}]->(b)",
            {
                "s": self._u(fact.subject.id),
                "o": self._u(fact.object.id),
                "id": fact_id,
                "p": fact.predicate,
                "c": fact.confidence,
                "now": _naive(now),
                "src": sources,
                "w": world,
            },
        )
        self._fact_stat(world, 1, fact.confidence)
        changes.append(
            partial(
                ActiveGraph.add,
                fact=ActiveFact(
                    fact_id,
                    fact.subject.id,
                    fact.object.id,
                    fact.predicate,
                    fact.confidence,
                    _utc(now) or now,
                    list(sources),
                    world,
                ),
            )
        )
        return self._fact_view(fact, fact_id, fact.confidence, sources, now, world), closed

    def _fact_view(
        self,
        fact: PlannedFact,
        fact_id: str,
        conf: float,
        sources: list[str],
        now: datetime,
        world: str,
    ) -> FactView:
        subj = self.entities.get(fact.subject.id)
        obj = self.entities.get(fact.object.id)
        return FactView(
            id=fact_id,
            subject=subj.name if subj else fact.subject.name,
            subject_kind=fact.subject.kind,
            predicate=fact.predicate,
            object=obj.name if obj else fact.object.name,
            object_kind=fact.object.kind,
            confidence=conf,
            status=FactStatus.ACTIVE.value,
            valid_from=now,
            sources=sources,
            world=world,
        )
