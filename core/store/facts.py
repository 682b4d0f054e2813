"""Writing facts: entities upserted, facts added, re-confirmed or superseded in one
transaction, the ActiveGraph kept in step. While a bulk batch is staged (staging.py) the same
steps hold their rows back and read the subject's current facts from the ActiveGraph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Any

from core.errors import StoreError
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
from core.store.staging import StagedWrites


def _apply_to(graph: ActiveGraph) -> Callable[[Callable[[ActiveGraph], None]], None]:
    def apply(change: Callable[[ActiveGraph], None]) -> None:
        change(graph)

    return apply


class FactWriter(StagedWrites):
    @contextmanager
    def _graph_in_step(self) -> Iterator[Callable[[Callable[[ActiveGraph], None]], None]]:
        """A transaction whose writes keep the ActiveGraph in step themselves (it is not
        dropped by their statements): each change given to the function this yields is
        applied to the graph once the transaction commits, or at once while a batch is staged
        (the batch's later lines read the graph); if it fails, the graph is dropped and rebuilt
        from the database on the next read."""
        changes: list[Callable[[ActiveGraph], None]] = []
        change = changes.append if self._staged is None else _apply_to(self.active_graph())
        self._graph_sync = True
        try:
            with self.transaction():
                yield change
        except BaseException:
            self._graph = None  # rolled back
            raise
        finally:
            self._graph_sync = False
        if self._graph is not None:
            for replay in changes:
                replay(self._graph)

    def write_facts(
        self, planned: Sequence[PlannedFact], *, source: str, now: datetime, world: str
    ) -> WriteOutcome:
        """Upsert entities, then add, re-confirm or supersede facts, in one transaction."""
        outcome = WriteOutcome()
        new_entities: dict[str, PlannedEntity] = {}
        with self._graph_in_step() as change:
            for fact in planned:
                for ent in (fact.subject, fact.object):
                    if ent.id not in self.entities and ent.id not in new_entities:
                        self._create_entity(ent, now)
                        new_entities[ent.id] = ent
                    if source in self.message_ids:
                        self._mention(source, ent.id)
                        change(partial(ActiveGraph.mention, message_id=source, entity_id=ent.id))
                view, closed = self._write_fact(
                    fact, source=source, now=now, world=world, change=change
                )
                outcome.stored.append(view)
                outcome.superseded.extend(closed)
        for ent in new_entities.values():
            self._index_new_entity(
                EntityRow(ent.id, ent.kind, ent.name, ent.key, ent.world, ent.ident), ent.embedding
            )
        return outcome

    def deny_facts(self, denied: Sequence[tuple[str, str, str]], *, now: datetime) -> list[str]:
        """Close the active facts (subject id, predicate, object id) a message denies ("Ann
        no longer works at Acme"): superseded, as a later value closes a single-valued one,
        never erased. Returns the ids closed."""
        closed: list[str] = []
        with self._graph_in_step() as change:
            graph = self.active_graph()
            for s, predicate, o in denied:
                for f in list(graph.out.get(s, {}).values()):
                    if f.predicate != predicate or f.dst != o or f.id in closed:
                        continue
                    self._set_fact(f.id, (s, o), st=FactStatus.SUPERSEDED.value, now=_naive(now))
                    change(partial(ActiveGraph.supersede, fact_id=f.id))
                    self._fact_stat(f.world, -1, -float(f.confidence))
                    closed.append(f.id)
        return closed

    def _mention(self, message_id: str, entity_id: str) -> None:
        if self._staged is not None and self._staged.mention(message_id, entity_id):
            return
        self._exec(
            "MATCH (m:Message {uid: $m}), (e:Entity {uid: $e}) "
            "WHERE m.chat = $chat AND e.chat = $chat "
            "MERGE (m)-[:MENTIONS {chat: $chat}]->(e)",
            {"m": self._u(message_id), "e": self._u(entity_id)},
        )

    def active_graph(self) -> ActiveGraph:
        raise NotImplementedError  # graph.py loads it

    def _create_entity(self, ent: PlannedEntity, now: datetime) -> None:
        if self._staged is not None:
            self._staged.entities.append(
                {
                    "uid": self._u(ent.id),
                    "id": ent.id,
                    "kind": ent.kind,
                    "name": ent.name,
                    "key": ent.key,
                    "world": ent.world,
                    "ident": ent.ident,
                    "emb": ent.embedding,
                    "now": _naive(now),
                }
            )
            return
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
                "emb": self._packed(ent.embedding),
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
        change: Callable[[Callable[[ActiveGraph], None]], None],
    ) -> tuple[FactView, list[str]]:
        closed: list[str] = []
        for obj_id, fact_id, conf, sources, fact_world in self._current(fact):
            if obj_id == fact.object.id:
                if source and source in (sources or []):
                    # its own message read again (taken up after a kill that left the fact's
                    # change but not the message's mentions, core/pipeline/ingest.py _torn):
                    # one message confirms a fact once (bench.crash, seed 335: 0.96 -> 0.992)
                    srcs = list(sources)
                    return self._fact_view(fact, fact_id, float(conf), srcs, now, world), closed
                # seen again: re-confirm (noisy-or of the two confidences), keep provenance
                merged = 1.0 - (1.0 - float(conf)) * (1.0 - fact.confidence)
                srcs = list(sources or [])
                if source and source not in srcs:
                    srcs.append(source)
                ends = (fact.subject.id, obj_id)
                self._set_fact(fact_id, ends, c=merged, now=_naive(now), src=srcs)
                self._fact_stat(fact_world or world, 0, merged - float(conf))
                change(partial(_reconfirm, fact_id=fact_id, confidence=merged, sources=srcs))
                return self._fact_view(fact, fact_id, merged, srcs, now, world), closed
            if fact.single_valued:
                ends = (fact.subject.id, obj_id)
                self._set_fact(fact_id, ends, st=FactStatus.SUPERSEDED.value, now=_naive(now))
                closed.append(fact_id)
                change(partial(ActiveGraph.supersede, fact_id=fact_id))
                self._fact_stat(fact_world or world, -1, -float(conf))
        fact_id = new_id("f")
        sources = [source] if source else []
        self._create_fact(fact, fact_id, sources=sources, now=now, world=world)
        self._fact_stat(world, 1, fact.confidence)
        change(
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

    def _current(self, fact: PlannedFact) -> list[tuple[str, str, float, list[str], str]]:
        """(object id, fact id, confidence, sources, world) of the subject's active facts of
        the predicate; staged, from the ActiveGraph (kept in step with the batch's writes)."""
        if self._staged is not None:
            out = self.active_graph().out.get(fact.subject.id, {}).values()
            return [
                (f.dst, f.id, f.confidence, f.sources, f.world)
                for f in out
                if f.predicate == fact.predicate
            ]
        rows = self._rows(
            "MATCH (a:Entity {uid: $s})-[f:FACT]->(b:Entity) WHERE a.chat = $chat AND "
            "f.chat = $chat AND f.predicate = $p AND f.status = 'active' "
            "RETURN b.id, f.id, f.confidence, f.sources, f.world",
            {"s": self._u(fact.subject.id), "p": fact.predicate},
        )
        return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def _set_fact(self, fact_id: str, ends: tuple[str, str], **values: Any) -> None:
        """Re-confirm (c, now, src) or supersede (st, now) a fact."""
        if self._staged is not None:
            stored = self._staged.superseded if "st" in values else self._staged.reconfirmed
            if fact_id in self._staged.facts:  # created by this batch: its row changes
                names = {"c": "confidence", "src": "sources", "st": "status"}
                now_as = "valid_to" if "st" in values else "confirmed_at"
                row = {names.get(k, now_as): v for k, v in values.items()}
                self._staged.facts[fact_id].update(row)
            else:
                s, o = self._us(ends)
                stored.setdefault(fact_id, {"id": fact_id, "s": s, "o": o}).update(values)
            return
        if "st" in values:
            changes = {"status": "$st", "valid_to": "$now"}
        else:
            changes = {"confidence": "$c", "confirmed_at": "$now", "sources": "$src"}
        s, o = self._us(ends)
        want = {"st": values["st"]} if "st" in values else {"src": values["src"]}
        if not self.change_fact(fact_id, (s, o), changes, values, want):
            raise StoreError(f"fact {fact_id} did not take its change")

    def _create_fact(
        self, fact: PlannedFact, fact_id: str, *, sources: list[str], now: datetime, world: str
    ) -> None:
        if self._staged is not None:
            self._staged.facts[fact_id] = {
                "from": self._u(fact.subject.id),
                "to": self._u(fact.object.id),
                "id": fact_id,
                "predicate": fact.predicate,
                "confidence": fact.confidence,
                "status": FactStatus.ACTIVE.value,
                "valid_from": _naive(now),
                "valid_to": None,
                "confirmed_at": _naive(now),
                "sources": sources,
                "world": world,
            }
            return
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
