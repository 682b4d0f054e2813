"""A chat's in-memory indexes (entities by key, kind and identifier, vectors, words, worlds),
loaded from the database when the chat opens and kept current by the store's writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from core.identity import NameIndex, NameRules
from core.index.vectors import VectorMatrix
from core.index.words import MessageIndex
from core.rows import (
    EntityRow,
    WorldRow,
)
from core.store.connection import KuzuConnection, _utc


class ChatIndexes(KuzuConnection):
    entities: dict[str, EntityRow]
    by_key: dict[tuple[str, str], str]  # (world, key) -> entity id
    by_ident: dict[str, str]  # stable identifier -> entity id
    by_kind: dict[str, set[str]]  # kind -> entity ids ("which policy ...")
    entity_vectors: VectorMatrix
    message_vectors: VectorMatrix
    recall: MessageIndex  # keywords, authors, timestamps (core/store/message_index.py)
    message_ids: set[str]
    message_seq: int
    worlds: dict[str, WorldRow]
    world_vectors: VectorMatrix  # unit centroids of live worlds (routing)
    key_worlds: dict[str, set[str]]  # entity name key -> worlds that know it
    unembedded: dict[str, list[str]]  # "e"/"m" -> ids loaded without a vector (repair_vectors)
    last_world: str  # the world of the latest message (conversational continuity)
    last_message_ts: datetime | None
    last_trace_id: str | None
    # predicates of cardinality one (set from the ontology when the chat opens)
    single_valued: frozenset[str]
    names: NameIndex | None  # exact / lemma / sound name keys (core/identity.py), once asked

    def reload(self) -> None:
        raise NotImplementedError  # ChatStore's: every layer's in-memory state, from the database

    def use_name_rules(self, rules: NameRules) -> NameIndex:
        """Index every entity's name under the ontology's name keys; kept current afterwards."""
        self.names = NameIndex(rules)
        for ent in self.entities.values():
            self.names.add(ent.id, ent.world, [ent.name, *ent.aliases])
        return self.names

    def set_ident(self, entity_id: str, ident: str) -> None:
        """Give an entity first named without its stable id that id (never replaces one)."""
        ent = self.entities[entity_id]
        if ent.ident or ident in self.by_ident:
            return
        self._exec(
            "MATCH (e:Entity {uid: $u}) WHERE e.chat = $chat SET e.ident = $ident",
            {"u": self._u(ent.id), "ident": ident},
        )
        ent.ident = ident
        self.by_ident[ident] = ent.id

    def _world_row(self, row: list[Any], vec: npt.NDArray[np.float32] | None) -> WorldRow:
        """A world from (id, topic, access_count, created_at, last_active, merged_into) and
        its centroid, as _load and the schema-1 migration read them."""
        return WorldRow(
            row[0],
            row[1] or "",
            vec if vec is not None else np.zeros(self.dim, np.float32),
            int(row[2] or 0),
            _utc(row[3]) or datetime.now(UTC),
            _utc(row[4]) or datetime.now(UTC),
            row[5] or "",
        )

    def _load_entities(self) -> None:
        self.unembedded.pop("e", None)
        for row, vec in self._vectors(
            "MATCH (e:Entity) WHERE e.chat = $chat "
            "RETURN e.id, e.kind, e.name, e.key, e.world, e.ident, e.aliases, e.emb"
        ):
            ent = EntityRow(
                row[0], row[1], row[2], row[3], row[4], row[5] or "", list(row[6] or [])
            )
            if vec is None or not vec.any():  # see ChatStore.repair_vectors
                self.unembedded.setdefault("e", []).append(ent.id)
                vec = None
            self._index_entity(ent, vec)

    def _load(self) -> None:
        self.unembedded = {}
        self._load_entities()
        for row, vec in self._vectors(
            "MATCH (m:Message) WHERE m.chat = $chat "
            "RETURN m.id, m.seq, m.author, m.text, m.ts, m.world, m.emb ORDER BY m.seq"
        ):
            self.message_ids.add(row[0])
            self.message_seq = max(self.message_seq, int(row[1]))
            if vec is not None and vec.any():
                self.message_vectors.add(row[0], vec)
            else:  # see ChatStore.repair_vectors
                self.unembedded.setdefault("m", []).append(row[0])
            ts = _utc(row[4]) or datetime.now(UTC)
            self.recall.add(row[0], row[2] or "", row[3] or "", ts, row[5] or "")
        for child, parent in self._rows(
            "MATCH (r:Record) WHERE r.chat = $chat AND r.kind = 'reply' RETURN r.key, r.body"
        ):
            self.recall.link(child, parent)
        for row, vec in self._vectors(
            "MATCH (w:Record) WHERE w.chat = $chat AND w.kind = 'world' "
            "RETURN w.key, w.topic, w.access_count, "
            "w.created_at, w.last_active, w.merged_into, w.centroid"
        ):
            self.worlds[row[0]] = self._world_row(row, vec)
        for w in self.worlds.values():
            self._sync_world_vector(w)
        self.refresh_world_stats()
        last = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat RETURN m.world, m.ts ORDER BY m.seq DESC LIMIT 1"
        )
        if last:
            self.last_world, self.last_message_ts = last[0][0] or "", _utc(last[0][1])
        rows = self._rows(
            "MATCH (t:Record) WHERE t.chat = $chat AND t.kind = 'trace' "
            "RETURN t.key ORDER BY t.created_at DESC LIMIT 1"
        )
        self.last_trace_id = rows[0][0] if rows else None

    def _rekey(self) -> None:
        """Rebuild the (world, key) and key -> worlds maps from the entities in memory, after
        entities changed world or were deleted (merge_worlds, move_messages): no database
        read."""
        self.by_key = {}
        self.key_worlds = {}
        for ent in self.entities.values():
            self.by_key[(ent.world, ent.key)] = ent.id
            self.key_worlds.setdefault(ent.key, set()).add(ent.world)
            for alias in ent.aliases:
                self.by_key.setdefault((ent.world, alias), ent.id)

    def _unindex_entities(self, ids: Iterable[str]) -> None:
        """Drop entities deleted from the database (forgotten, unified into another, orphaned
        by a move) from the in-memory indexes. The key maps are the caller's to redo (_rekey
        or a filter): several changes usually come together."""
        gone = set(ids)
        for eid in gone:
            ent = self.entities.pop(eid, None)
            if ent is None:
                continue
            self.by_kind.get(ent.kind, set()).discard(eid)
            if ent.ident and self.by_ident.get(ent.ident) == eid:
                del self.by_ident[ent.ident]
            if self.names is not None:
                self.names.remove(eid)
        self.entity_vectors.remove(gone)
        if "e" in self.unembedded:
            self.unembedded["e"] = [e for e in self.unembedded["e"] if e not in gone]

    def _reindex_names(self, ids: Iterable[str]) -> None:
        """The name index after these entities changed world or aliases."""
        if self.names is None:
            return
        for eid in ids:
            ent = self.entities[eid]
            self.names.remove(eid)
            self.names.add(eid, ent.world, [ent.name, *ent.aliases])

    def _index_new_entity(self, ent: EntityRow, vec: npt.NDArray[np.float32] | None) -> None:
        """Index an entity just written, with its vector as it was stored."""
        self._index_entity(ent, None if vec is None else self._as_stored(vec))

    def _index_entity(self, ent: EntityRow, vec: npt.NDArray[np.float32] | None) -> None:
        self.entities[ent.id] = ent
        self.by_kind.setdefault(ent.kind, set()).add(ent.id)
        self.by_key[(ent.world, ent.key)] = ent.id
        self.key_worlds.setdefault(ent.key, set()).add(ent.world)
        for alias in ent.aliases:
            self.by_key.setdefault((ent.world, alias), ent.id)
        if ent.ident:
            self.by_ident[ent.ident] = ent.id
        if self.names is not None:
            self.names.add(ent.id, ent.world, [ent.name, *ent.aliases])
        if vec is not None:
            self.entity_vectors.add(ent.id, vec)

    def _sync_world_vector(self, world: WorldRow) -> None:
        if world.merged_into:
            if world.id in self.world_vectors:
                self.world_vectors.remove({world.id})
            return
        norm = float(np.linalg.norm(world.centroid))
        self.world_vectors.add(world.id, world.centroid / norm if norm > 0 else world.centroid)

    def refresh_world_stats(self) -> None:
        """Recount each world's active facts, their confidence and messages (one query each;
        at open and after bulk changes, never per message)."""
        rows = self._rows(
            "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.status = 'active' "
            "RETURN f.world, count(*), sum(f.confidence)"
        )
        stats = {wid: (int(n), float(total or 0.0)) for wid, n, total in rows}
        msgs = {
            wid: int(n)
            for wid, n in self._rows(
                "MATCH (m:Message) WHERE m.chat = $chat RETURN m.world, count(*)"
            )
        }
        for w in self.worlds.values():
            w.facts, w.conf_sum = stats.get(w.id, (0, 0.0))
            w.messages = msgs.get(w.id, 0)

    def _fact_stat(self, world: str, facts: int, conf: float) -> None:
        w = self.worlds.get(world)
        if w is not None:
            w.facts += facts
            w.conf_sum += conf

    def resolve_world(self, world_id: str) -> str:
        """Follow merged_into pointers to the live world (old traces keep resolving)."""
        seen: set[str] = set()
        while (
            world_id in self.worlds and self.worlds[world_id].merged_into and world_id not in seen
        ):
            seen.add(world_id)
            world_id = self.worlds[world_id].merged_into
        return world_id
