"""The layer of writes that rewrite a chat's history rather than add to it (issue 12): a
message corrected by its author's edit, and a fact restored exactly as exported. Between the
world merge policy (merge.py) and ChatStore (kuzu_store.py); all queries are parameterised.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from core.models import FactStatus, FactView
from core.rows import EntityRow, PlannedEntity
from core.store.connection import _naive
from core.store.merge import _FACT_BETWEEN, WorldMerger


class HistoryWriter(WorldMerger):
    def _ensure_entity(self, ent: PlannedEntity, now: datetime) -> None:
        if ent.id in self.entities:
            return
        self._create_entity(ent, now)
        row = EntityRow(ent.id, ent.kind, ent.name, ent.key, ent.world, ent.ident)
        self._index_new_entity(row, ent.embedding)

    def correct_message(
        self, message_id: str, text: str, embedding: npt.NDArray[np.float32], now: datetime
    ) -> list[str]:
        """An edit: the message gets its new text, and every active fact it was the only
        source of is superseded (closed, never erased); a fact other messages also said keeps
        standing without it. Returns the ids of the facts closed. Call it in a transaction
        with the new text's facts, so a crash leaves the old version or the new one."""
        self._exec(
            "MATCH (m:Message {uid: $u}) WHERE m.chat = $chat SET m.text = $t, m.emb = $e",
            {"u": self._u(message_id), "t": text, "e": self._packed(embedding)},
        )
        rows = self._rows(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE f.chat = $chat AND "
            "f.status = 'active' AND list_contains(f.sources, $m) "
            "RETURN a.id, b.id, f.id, f.sources",
            {"m": message_id},
        )
        closed: list[str] = []
        for a, b, fact_id, sources in rows:
            rest = [s for s in sources if s != message_id]
            params: dict[str, Any] = {"a": self._u(a), "b": self._u(b), "id": fact_id}
            if rest:
                self._exec(
                    _FACT_BETWEEN + " AND f.id = $id SET f.sources = $src",
                    {**params, "src": rest},
                )
                continue
            self._exec(
                _FACT_BETWEEN + " AND f.id = $id SET f.status = $st, f.valid_to = $now",
                {**params, "st": FactStatus.SUPERSEDED.value, "now": _naive(now)},
            )
            closed.append(fact_id)
        self._exec(
            "MATCH (m:Message {uid: $u})-[r:MENTIONS]->() WHERE m.chat = $chat AND "
            "r.chat = $chat DELETE r",
            {"u": self._u(message_id)},
        )
        # in place: removing the row would shift every later message's vector by one under
        # the recall index's cached message -> vector row map (MessageIndex.vector_rows)
        self.message_vectors.add(message_id, self._as_stored(embedding))
        self.recall.retext(message_id, text)
        return closed

    def restore_fact(
        self,
        subject: PlannedEntity,
        obj: PlannedEntity,
        fact: FactView,
        *,
        fact_id: str,
        now: datetime,
    ) -> bool:
        """Write a fact exactly as exported; False when the same fact (end points, predicate
        and start of validity) is already there, so importing a file twice stores it once."""
        sources = [s for s in fact.sources if s in self.message_ids]
        with self.transaction():
            self._ensure_entity(subject, now)
            self._ensure_entity(obj, now)
            seen = self._rows(
                _FACT_BETWEEN + " AND f.predicate = $p AND f.valid_from = $vf RETURN f.id",
                {
                    "a": self._u(subject.id),
                    "b": self._u(obj.id),
                    "p": fact.predicate,
                    "vf": _naive(fact.valid_from),
                },
            )
            if seen:
                return False
            self._exec(
                "MATCH (a:Entity {uid: $a}), (b:Entity {uid: $b}) WHERE a.chat = $chat AND "
                "b.chat = $chat CREATE (a)-[:FACT {chat: $chat, id: $id, predicate: $p, "
                "confidence: $c, status: $st, valid_from: $vf, valid_to: $vt, "
                "confirmed_at: $vf, sources: $src, world: $w}]->(b)",
                {
                    "a": self._u(subject.id),
                    "b": self._u(obj.id),
                    "id": fact_id,
                    "p": fact.predicate,
                    "c": fact.confidence,
                    "st": fact.status,
                    "vf": _naive(fact.valid_from),
                    "vt": _naive(fact.valid_to) if fact.valid_to else None,
                    "src": sources,
                    "w": subject.world,
                },
            )
            for source in sources:
                for end in (subject.id, obj.id):
                    self._exec(
                        "MATCH (m:Message {uid: $m}), (e:Entity {uid: $e}) WHERE "
                        "m.chat = $chat AND e.chat = $chat MERGE (m)-[:MENTIONS {chat: $chat}]->(e)",
                        {"m": self._u(source), "e": self._u(end)},
                    )
        self.refresh_world_stats()
        return True

    def erase(
        self,
        entity_ids: Sequence[str],
        message_ids: Sequence[str],
        said: Callable[[str], bool],
    ) -> int:
        """A user's erase request (core/pipeline/erase.py says what it takes): the entities
        with every fact touching them, the messages, the review items, traces and reply links
        that cite those messages or say a name (`said`), and the entities left with no
        mention and no fact. Facts of other things keep standing without the erased messages
        among their sources. One transaction, its reads from the in-memory graph and its
        SETs before its deletes (the kuzu traps above ChatStore); the in-memory indexes are
        then loaded again from the database. Returns how many facts the entities took."""
        forgotten, gone = set(entity_ids), set(message_ids)
        graph = self.active_graph()
        dropped = {f for e in forgotten for f in graph.touching.get(e, ())}
        pruned = [
            (fact_id, [s for s in sources if s not in gone])
            for fact_id, (_, sources) in graph.provenance.items()
            if fact_id not in dropped and gone.intersection(sources)
        ]
        near = {e for e, seen in graph.mentions.items() if gone.intersection(seen)} | {
            e for e, facts in graph.touching.items() if dropped.intersection(facts)
        }
        bare = [
            e
            for e in near - forgotten
            if gone.issuperset(graph.mentions.get(e, ()))
            and dropped.issuperset(graph.touching.get(e, ()))
        ]
        with self.transaction():
            for fact_id, rest in pruned:
                self._exec(
                    "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.id = $id "
                    "SET f.sources = $src",
                    {"id": fact_id, "src": rest},
                )
            records = self._rows(
                "MATCH (r:Record) WHERE r.chat = $chat AND r.kind IN ['pending', 'trace'] "
                "RETURN r.uid, r.kind, r.body, r.sources"
            )
            cites = [
                uid
                for uid, kind, body, sources in records
                if said(body)
                or gone.intersection(_cited(body) if kind == "trace" else sources or ())
            ]
            self._exec(
                "MATCH (r:Record) WHERE r.chat = $chat AND r.uid IN $u DELETE r", {"u": cites}
            )
            self._exec(
                "MATCH (r:Record) WHERE r.chat = $chat AND r.kind = 'reply' AND "
                "(r.key IN $m OR r.body IN $m) DELETE r",
                {"m": sorted(gone)},
            )
            self._exec(
                "MATCH (e:Entity) WHERE e.chat = $chat AND e.uid IN $ids DETACH DELETE e",
                {"ids": self._us([*forgotten, *bare])},
            )
            self._exec(
                "MATCH (m:Message) WHERE m.chat = $chat AND m.uid IN $mids DETACH DELETE m",
                {"mids": self._us(sorted(gone))},
            )
        self.shard.erased()
        self.reload()
        return len(dropped)


def _cited(trace: str) -> set[str]:
    """The messages an answer's trace cites: its evidence and its facts' sources."""
    body = json.loads(trace)
    hits = {h.get("id", "") for h in body.get("evidence_hits", ())}
    return hits | {m for e in body.get("edges", ()) for m in e.get("sources", ())}
