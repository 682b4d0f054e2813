"""The merge policy of two worlds: messages, facts and entities move; same-name entities
without identifiers are unified (name becomes an alias); duplicate facts fold (sources joined,
confidence combined) and a cardinality-one predicate keeps its newest value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from core.models import FactStatus
from core.rows import EntityRow
from core.store.active_graph import ActiveGraph, _reconfirm
from core.store.connection import _naive, _utc
from core.store.fold import Copy, combined, copies_of, older_values, value_groups
from core.store.merge_staged import StagedMerger, _repoint
from core.store.staging import FACT_COLUMNS

_FACT_COLUMNS = tuple(c for c in FACT_COLUMNS if c != "chat")  # the chat's tag is $chat
_FACT_PARAMS = "chat: $chat, " + ", ".join(f"{c}: ${c}" for c in _FACT_COLUMNS)

# A fact matched through its end points. After a merge's copies and deletions in the same
# transaction, a scan of every FACT edge by id (MATCH ()-[f:FACT]->() WHERE f.id = ...) trips an
# assertion in kuzu 0.11.3 (csr_node_group.cpp, KU_UNREACHABLE) and fails the merge.
# $a and $b are chat-scoped keys (_u); the chat filter stays on every match.
_FACT_BETWEEN = (
    "MATCH (a:Entity {uid: $a})-[f:FACT]->(b:Entity {uid: $b}) WHERE a.chat = $chat AND "
    "f.chat = $chat"
)


class WorldMerger(StagedMerger):
    _joined: set[str]  # entities merges and moves joined, folded again once committed
    _joined_at: datetime

    def _join(self, entity_ids: Iterable[str], now: datetime) -> None:
        """Fold these entities' facts once the transaction has committed (WorldMover): in it,
        after the merge's or move's copies, kuzu 0.11.3 misses some of the copies and returns
        others for the wrong entity (tests/worlds/test_merge.py), so a fold there kept two
        copies of one fact or joined the sources of two different facts."""
        self._joined.update(entity_ids)
        self._joined_at = now

    def apart(self) -> AbstractContextManager[None]:
        """The transaction of a world merge (WorldMover.apart: its own, even in a batch)."""
        return self.transaction()

    def merge_worlds(
        self, src: str, dst: str, centroid: npt.NDArray[np.float32], now: datetime
    ) -> dict[str, int]:
        """Move src's messages, facts and entities into dst in one transaction. An entity of src
        without an identifier whose name dst already knows is unified with dst's entity: its
        facts and mentions are re-attached (Kùzu cannot re-point an edge: copy, then delete),
        its name becomes an alias. src stays as a row pointing to dst (merged_into)."""
        unify = {
            ent.id: self.by_key[(dst, ent.key)]
            for ent in self.entities.values()
            if ent.world == src
            and not ent.ident
            and (dst, ent.key) in self.by_key
            and self.by_key[(dst, ent.key)] != ent.id
        }
        moved = [e for e in self.entities.values() if e.world == src and e.id not in unify]
        if self._merge_staged(src, dst, centroid, unify, moved):  # born in this batch
            self._reindex_merged(src, dst, unify, moved)
            return {"unified": len(unify), "moved_entities": len(moved)}
        # The in-memory graph follows every statement below in place (facts change world,
        # a unified entity's facts and mentions move to the entity it joins, duplicates fold,
        # see _consolidate) instead of being dropped and reloaded from the whole FACT table:
        # a reload cost ~0.3 s at 10,000 facts, once per merge of a bulk import (bench/bulk.py).
        with self._graph_kept() as graph, self.apart():
            # read before anything is written: once this transaction has created fact
            # edges, kuzu 0.11.3 returned some of them for another entity's pattern (the
            # copies of "crm DEPENDS_ON search" came back as facts of billing and auth, and
            # were copied onto them: an import's facts named services their messages do
            # not; tests/worlds/test_merge.py)
            edges = self._unified_edges(unify)
            self._exec(
                "MATCH (m:Message) WHERE m.chat = $chat AND m.world = $s SET m.world = $d",
                {"s": src, "d": dst},
            )
            self.recall.merge(src, dst)
            self._exec(
                "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.world = $s SET f.world = $d",
                {"s": src, "d": dst},
            )
            if graph is not None:
                for fact in graph.by_id.values():
                    if fact.world == src:
                        fact.world, fact.edge = dst, None
            for row in edges:  # each copied between the entities it now joins
                self._create_fact_copy(
                    unify.get(row["a"], row["a"]),
                    unify.get(row["b"], row["b"]),
                    {c: row[c] for c in _FACT_COLUMNS},
                    dst if row["world"] == src else row["world"],
                )
            for old, new in unify.items():
                self._exec(
                    "MATCH (m:Message)-[:MENTIONS]->(x:Entity {uid: $old}), "
                    "(n:Entity {uid: $new}) WHERE x.chat = $chat AND n.chat = $chat "
                    "AND m.chat = $chat MERGE (m)-[:MENTIONS {chat: $chat}]->(n)",
                    {"old": self._u(old), "new": self._u(new)},
                )
                keep = self.entities[new]
                aliases = sorted({*keep.aliases, self.entities[old].key} - {keep.key})
                self._exec(
                    "MATCH (n:Entity {uid: $new}) WHERE n.chat = $chat SET n.aliases = $a",
                    {"new": self._u(new), "a": aliases},
                )
                keep.aliases = aliases
                if graph is not None:
                    _repoint(graph, old, new, self.recall.row_of)
            if unify:
                self._exec(
                    "MATCH (x:Entity) WHERE x.chat = $chat AND x.uid IN $olds DETACH DELETE x",
                    {"olds": self._us(unify)},
                )
            # duplicates fold and single values close once this has committed (the
            # reads a fold makes are wrong after the copies above, see _unified_edges)
            self._join(unify.values(), now)
            if moved:
                self._exec(
                    "MATCH (e:Entity) WHERE e.chat = $chat AND e.uid IN $ids SET e.world = $d",
                    {"ids": self._us(e.id for e in moved), "d": dst},
                )
            self._point_world(src, dst, centroid)
        self._reindex_merged(src, dst, unify, moved)
        self.refresh_world_stats()
        return {"unified": len(unify), "moved_entities": len(moved)}

    def _reindex_merged(
        self, src: str, dst: str, unify: Mapping[str, str], moved: list[EntityRow]
    ) -> None:
        """The entity indexes after a merge: unified entities gone, moved ones in dst."""
        self._unindex_entities(unify)
        for ent in moved:
            ent.world = dst
        if unify or moved:  # the name indexes change only with entities (a newborn has none)
            self._rekey()
            # re-index only the entities that changed (a full rebuild was ~0.1 s at 7,600
            # entities, once per merge of a bulk import)
            self._reindex_names({*unify.values(), *(e.id for e in moved)})
        if self.last_world == src:
            self.last_world = dst

    @contextmanager
    def _graph_kept(self) -> Iterator[ActiveGraph | None]:
        """The in-memory graph, for statements that keep it in step themselves (it is not
        dropped by them); dropped if they fail, as the transaction is rolled back."""
        graph = self._graph
        sync, self._graph_sync = self._graph_sync, True
        try:
            yield graph
        except BaseException:
            self._graph = None  # rolled back: rebuilt from the database on next read
            raise
        finally:
            self._graph_sync = sync

    def _create_fact_copy(
        self, subject: str, obj: str, columns: dict[str, Any], world: str
    ) -> bool:
        """A fact edge created between two entities by primary key from a fact's columns as
        read before the transaction wrote anything (found again through its old end points,
        kuzu 0.11.3 could miss it or give another); False when an end point is not found."""
        made = self._rows(
            "MATCH (a:Entity {uid: $a}), (b:Entity {uid: $b}) WHERE a.chat = $chat "
            f"AND b.chat = $chat CREATE (a)-[:FACT {{{_FACT_PARAMS}}}]->(b) RETURN count(*)",
            {**columns, "a": self._u(subject), "b": self._u(obj), "world": world},
        )
        self.shard.wrote()
        return bool(made and made[0][0])

    def _unified_edges(self, unify: Mapping[str, str]) -> list[dict[str, Any]]:
        """Every fact edge of the entities a merge unifies (any status), once, with its
        columns: what the merge copies onto the entities they join."""
        if not unify:
            return []
        out: dict[str, dict[str, Any]] = {}
        for side in ("a", "b"):
            for r in self._rows(
                f"MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE {side}.chat = $chat AND "
                f"f.chat = $chat AND {side}.uid IN $olds RETURN a.id, b.id, "
                + ", ".join(f"f.{c}" for c in _FACT_COLUMNS),
                {"olds": self._us(unify)},
            ):
                # by fact id: keyed by its ends and predicate, a fact closed and one said
                # again since were one, and the other went with the entity it hung off
                out[r[2]] = {
                    "a": r[0],
                    "b": r[1],
                    **dict(zip(_FACT_COLUMNS, r[2:], strict=True)),
                }
        return list(out.values())

    def _consolidate(
        self, entity_ids: list[str], now: datetime, graph: ActiveGraph | None = None
    ) -> tuple[int, int]:
        """After unification two worlds' copies of one fact hang off the same entities, and
        a cardinality-one predicate may have two active values: the fold's rules (fold.py)
        applied to the stored facts. A kept copy's change is read back before the others are
        deleted; one kuzu did not keep leaves the copies as they are (the next fold tries
        again) and the value it had for the closing."""
        if not entity_ids:
            return 0, 0
        rows: dict[str, list[Any]] = {}
        for side in ("a", "b"):
            for row in self._rows(
                f"MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE {side}.chat = $chat AND "
                f"f.chat = $chat AND {side}.uid IN $ids "
                "AND f.status = 'active' RETURN f.id, a.id, f.predicate, b.id, f.confidence, "
                "f.valid_from, f.confirmed_at, f.sources",
                {"ids": self._us(entity_ids)},
            ):
                rows[row[0]] = row
        # when each fact was last stated or confirmed
        said = {fid: _utc(r[6]) or _utc(r[5]) or now for fid, r in rows.items()}
        groups = copies_of(Copy(r[0], r[1], r[2], r[3], _utc(r[5]) or now) for r in rows.values())
        folded = 0
        for group in groups:
            keep, extra = group[0], group[1:]
            if not extra:
                continue
            confidence, sources, confirmed = combined(
                (rows[c.id][4], rows[c.id][7], said[c.id]) for c in group
            )
            ends = {"a": self._u(keep.a), "b": self._u(keep.b)}  # every copy's two entities
            # the kept copy takes the change, read back, before the others are deleted: a
            # change kuzu did not keep would lose their sources
            if not self.change_fact(
                keep.id,
                (ends["a"], ends["b"]),
                {"confidence": "$c", "confirmed_at": "$at", "sources": "$src"},
                {"c": confidence, "at": _naive(confirmed), "src": sources},
                {"src": sources},
            ):
                continue  # stays two: the next fold tries again
            said[keep.id] = confirmed  # the folded fact was last said when its newest copy was
            self._exec(
                f"{_FACT_BETWEEN} AND f.id IN $ids DELETE f",
                {**ends, "ids": [c.id for c in extra]},
            )
            folded += len(extra)
            if graph is not None:  # as a reload would read them
                _reconfirm(graph, fact_id=keep.id, confidence=confidence, sources=list(sources))
                for c in extra:
                    graph.forget(c.id, (c.a, c.b))
        kept = [group[0] for group in groups]
        closing = older_values(value_groups(kept, self.single_valued), said.__getitem__)
        ends_of = {c.id: (c.a, c.b) for c in kept}
        for fid, newest in closing:
            a, b = ends_of[fid]
            self._exec(
                f"{_FACT_BETWEEN} AND f.id = $id SET f.status = $st, f.valid_to = $to",
                {
                    "a": self._u(a),
                    "b": self._u(b),
                    "id": fid,
                    "st": FactStatus.SUPERSEDED.value,
                    "to": _naive(newest),
                },
            )
            if graph is not None:
                graph.supersede(fid)  # history now: its provenance stays
        return folded, len(closing)
