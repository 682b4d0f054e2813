"""Kùzu adapter: a chat's view of the shard database that holds it. The only package that
imports kuzu.

Chats share a few shard databases (core/store/shard.py: why, and the measured costs of the one
database per chat that came before); a ChatStore is one chat's view on its shard: its tag, the
statements scoped to it, and its in-memory indexes. Isolation is kept by every statement, not
by the file: every node and edge carries the chat's tag, every MATCH filters on `$chat`, every
primary key looked up is chat-scoped (tests/core/test_shards.py tries to cross it).

The store is built in layers, one job each, every layer a base class of the next:
connection.py (statements, transactions) -> indexes.py (in-memory indexes) ->
world_records.py -> schema.py (model metadata) -> staging.py (a bulk batch's rows held back
and written together) -> facts.py (writes) ->
graph.py (reads through the ActiveGraph, active_graph.py) -> messages.py -> merge.py (the world
merge policy) -> history.py (edits, restored facts) -> regroup.py (moving messages between
worlds) -> ChatStore here (the review queue, traces, export, bulk import).

Traps of kuzu 0.11.3 found 2026-12-02 (docs/crash.md; docs/answers.md, "Wrong and lost facts"): once a
transaction has created or deleted fact edges, statements of that transaction that find edges
through a bound entity are unreliable: copies just made are missed, or returned for another
entity; a SET on a fact edge matched and kept the old value; a delete-and-create of several
facts in one UNWIND gave one row's values to another. Hence: read first (merge.py's
_unified_edges), write by primary key, read every change of a stored fact back and make it
by delete-and-create where a SET did not take (staging.py's change_fact), fold duplicates in a transaction of their own, one regrouping
move or merge per transaction (regroup.py, core/pipeline/maintenance.py).

A ChatStore is not thread-safe: the pool hands it to one caller at a time (per-chat lock) and
runs it under its shard's lock, which also serialises the shard's writes (Kùzu 0.11 fails a
second concurrent write transaction at once). All queries are parameterised.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from core.index.vectors import VectorMatrix
from core.index.words import MessageIndex
from core.models import FactStatus, PendingFact, TripleIn
from core.rows import (
    Edge,
    EntityRow,
    MessageRow,
    PlannedEntity,
    PlannedFact,
    WorldRow,
    WriteOutcome,
    new_id,
)
from core.store.arrow import arrow
from core.store.connection import _naive, _utc, pool_size
from core.store.regroup import WorldMover
from core.store.shard import ShardDb, chat_tag

log = logging.getLogger(__name__)


class ChatStore(WorldMover):
    """One chat's view of its shard plus its in-memory indexes (entities, messages, worlds).

    Without a shard (tests, benchmarks of one chat) it opens a shard of its own at `path`."""

    def __init__(
        self,
        path: Path,
        *,
        dim: int,
        model_name: str,
        buffer_pool_mb: int = 256,
        shard: ShardDb | None = None,
        chat: str = "",
    ) -> None:
        self.path = path
        self.dim = dim
        self.chat = chat
        self.tag = chat_tag(chat)
        self._own_shard = shard is None
        self.shard = shard or ShardDb(path, buffer_pool_bytes=pool_size(buffer_pool_mb))
        self._in_tx = False
        self._staged = None  # a bulk batch's rows not written yet (staging.py)
        self.rebuild = False  # the pool set aside this chat's unreadable shard (issue 12)
        self.single_valued = frozenset()  # set from the ontology when the chat opens
        self._model_name = model_name
        self.model_mismatch = None
        self._empty()
        self._check_model(model_name)
        self._load()

    def reload(self) -> None:
        """Load the in-memory indexes from the database anew (after an erase request deleted
        what they hold: core/store/history.py's erase)."""
        self._empty()
        self._load()

    def _empty(self) -> None:
        self._graph = None  # loaded on first read (see ActiveGraph)
        self._graph_sync = False  # True while write_facts keeps the graph in step itself
        self._joined = set()  # entities merges and moves joined, to fold again (regroup.py)
        self._joined_at = datetime.now(UTC)
        self.entities = {}
        self.by_key = {}  # (world, key) -> entity id
        self.by_ident = {}  # stable identifier -> entity id
        self.names = None  # built on first use with the ontology's legal forms
        self.by_kind = {}  # kind -> entity ids ("which policy ...")
        self.entity_vectors = VectorMatrix(self.dim)
        self.message_vectors = VectorMatrix(self.dim)
        self.recall = MessageIndex()  # keywords, authors, timestamps
        self.message_ids = set()
        self.message_seq = 0
        self.worlds = {}
        self.world_vectors = VectorMatrix(self.dim)  # unit centroids of live worlds (routing)
        self.key_worlds = {}  # entity name key -> worlds that know it
        self.last_world = ""  # the world of the latest message (conversational continuity)
        self.last_message_ts = None
        self.last_trace_id = None

    def add_pending(
        self, triple: TripleIn, sources: list[str], now: datetime, reason: str = ""
    ) -> PendingFact:
        pid = new_id("p")
        row = {
            "rid": self._u(f"pending:{pid}"),
            "id": pid,
            "t": triple.model_dump_json(),
            "s": sources,
            "now": _naive(now),
            "reason": reason,
        }
        if self._staged is not None:  # a bulk batch's: written with the batch (staging.py)
            self._staged.pending.append(row)
        else:
            self._exec(  # the reason rides in the Record's spare text column (topic)
                "CREATE (:Record {uid: $rid, chat: $chat, kind: 'pending', key: $id, body: $t, "
                "sources: $s, created_at: $now, topic: $reason})",
                row,
            )
        return PendingFact(id=pid, triple=triple, sources=sources, created_at=now, reason=reason)

    def pending(self, pending_id: str | None = None) -> list[PendingFact]:
        clause = "AND p.key = $id" if pending_id else ""
        rows = self._rows(
            f"MATCH (p:Record) WHERE p.chat = $chat AND p.kind = 'pending' {clause} "
            "RETURN p.key, p.body, p.sources, p.created_at, p.topic ORDER BY p.created_at",
            {"id": pending_id} if pending_id else {},
        )
        return [
            PendingFact(
                id=r[0],
                triple=TripleIn.model_validate_json(r[1]),
                sources=list(r[2] or []),
                created_at=_utc(r[3]) or datetime.now(UTC),
                reason=r[4] or "",
            )
            for r in rows
        ]

    def drop_pending(self, pending_id: str) -> None:
        self._exec(
            "MATCH (p:Record {uid: $rid}) WHERE p.chat = $chat DELETE p",
            {"rid": self._u(f"pending:{pending_id}")},
        )

    def add_trace(self, trace_id: str, body: str, now: datetime) -> None:
        self._exec(
            "CREATE (:Record {uid: $rid, chat: $chat, kind: 'trace', key: $id, "
            "created_at: $now, body: $b})",
            {"rid": self._u(f"trace:{trace_id}"), "id": trace_id, "now": _naive(now), "b": body},
        )
        self.last_trace_id = trace_id

    def trace(self, trace_id: str) -> str | None:
        rows = self._rows(
            "MATCH (t:Record {uid: $rid}) WHERE t.chat = $chat RETURN t.body",
            {"rid": self._u(f"trace:{trace_id}")},
        )
        return rows[0][0] if rows else None

    def export(self) -> dict[str, Any]:
        return {
            "entities": [
                {
                    "id": e.id,
                    "kind": e.kind,
                    "name": e.name,
                    "world": e.world,
                    "aliases": e.aliases,
                    "identifier": e.ident or None,
                }
                for e in self.entities.values()
            ],
            "facts": [
                f.model_dump(mode="json") for f in self.facts(None, history=True, limit=10**9)
            ],
            "messages": [
                {
                    "id": m.id,
                    "author": m.author,
                    "text": m.text,
                    "ts": m.ts.isoformat(),
                    "world": m.world,
                    # the message it replies to (a Telegram reply, a Slack thread), when known
                    **({"reply_to": p} if (p := self.recall.replied_to.get(m.id)) else {}),
                }
                for m in self.messages(
                    [
                        r[0]
                        for r in self._rows(
                            "MATCH (m:Message) WHERE m.chat = $chat RETURN m.id ORDER BY m.seq"
                        )
                    ]
                )
            ],
            "worlds": [
                {
                    "id": w.id,
                    "topic": w.topic,
                    "access_count": w.access_count,
                    "merged_into": w.merged_into or None,
                }
                for w in self.worlds.values()
            ],
            "pending": [json.loads(p.model_dump_json()) for p in self.pending()],
        }

    def bulk_insert(
        self,
        entities: Sequence[tuple[str, str, str, str, npt.NDArray[np.float32]]],
        facts: Sequence[tuple[str, str, str, float]],
        *,
        world: str,
        now: datetime,
    ) -> None:
        """Bulk import: entities (id, kind, name, key, vector) and facts (subject id, predicate,
        object id, confidence) through COPY from Arrow tables. Measured: 50k entities 1.5 s and
        100k facts 0.5 s, where batched UNWIND ... MATCH ... CREATE grew quadratically (each
        batch scanned every entity). Used by imports and benchmarks."""
        pa = arrow()
        ts = pa.array([_naive(now)] * max(len(entities), len(facts)), type=pa.timestamp("us"))
        if entities:
            n = len(entities)
            table = pa.table(
                {
                    "uid": pa.array(self._us(e[0] for e in entities), pa.int64()),
                    "chat": [self.tag] * n,
                    "id": [e[0] for e in entities],
                    "kind": [e[1] for e in entities],
                    "name": [e[2] for e in entities],
                    "key": [e[3] for e in entities],
                    "aliases": pa.array([[]] * n, type=pa.list_(pa.string())),
                    "world": [world] * n,
                    "ident": [""] * n,
                    "emb": pa.array([self._packed(e[4]) for e in entities], pa.string()),
                    "created_at": ts[:n],
                }
            )
            self._exec("COPY Entity FROM $t", {"t": table})
            for e in entities:
                self._index_new_entity(EntityRow(e[0], e[1], e[2], e[3], world, ""), e[4])
        if facts:
            m = len(facts)
            table = pa.table(
                {
                    "from": self._us(f[0] for f in facts),
                    "to": self._us(f[2] for f in facts),
                    "chat": [self.tag] * m,
                    "id": [new_id("f") for _ in range(m)],
                    "predicate": [f[1] for f in facts],
                    "confidence": [f[3] for f in facts],
                    "status": [FactStatus.ACTIVE.value] * m,
                    "valid_from": ts[:m],
                    "valid_to": pa.array([None] * m, type=pa.timestamp("us")),
                    "confirmed_at": ts[:m],
                    "sources": pa.array([[]] * m, type=pa.list_(pa.string())),
                    "world": [world] * m,
                }
            )
            self._exec("COPY FACT FROM $t", {"t": table})
        self._checkpoint()
        self.refresh_world_stats()

    def close(self) -> None:
        """Close the shard if this view opened it (a pool's shards are closed by the pool)."""
        if self._own_shard:
            self.shard.close()


__all__ = [
    "ChatStore",
    "Edge",
    "EntityRow",
    "MessageRow",
    "PlannedEntity",
    "PlannedFact",
    "WorldRow",
    "WriteOutcome",
    "new_id",
    "pool_size",
]
