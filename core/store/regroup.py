"""Moving some of a world's messages to another world (the regrouping job's split and
re-assignment, core/regroup.py), with the facts and entities that belong to them.

A fact moves when every message it was read from moves. An entity without an identifier
moves with its facts when nothing that stays uses it; when something does, the destination
gets its own entity of that name (a name is per world), or the one it already has. Entities
with an identifier are chat-wide and stay where they are. Kùzu cannot re-point an edge: a
moved fact is copied between its new end points and the old edge deleted, in one transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from core.errors import StoreError
from core.rows import EntityRow, PlannedEntity, new_id
from core.store.active_graph import ActiveGraph
from core.store.connection import _utc
from core.store.history import HistoryWriter
from core.store.merge import _FACT_COLUMNS

# this many messages joining one entity are found by one scan (`m.uid IN $ms`); fewer by key
JOIN_BY_SCAN = 3


class WorldMover(HistoryWriter):
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A transaction; once the outermost one commits, the facts of the entities its world
        merges and moves joined are folded again (consolidate_joined), wherever the merge ran
        from (the regrouping job, a message's inline merge, the merge job)."""
        outer = not self._in_tx
        try:
            with super().transaction():
                yield
        except BaseException:
            if outer:
                self._joined = set()  # rolled back: nothing was joined
            raise
        if outer and self._joined:
            self.consolidate_joined(self._joined_at)

    @contextmanager
    def apart(self) -> Iterator[None]:
        """A world merge's transaction, its own even inside a bulk batch: what the batch wrote
        so far is committed first, the merge and then its fold each commit on their own, and
        the batch goes on in a new transaction. Why: in one transaction with the batch's
        COPYs, after the merge's creates and deletes, kuzu 0.11.3 did not show some of the
        batch's later changes to stored facts, the batch was rolled back, and the rollback
        crashed the process (SIGSEGV at ROLLBACK: a 10,000-message import after 10,000 facts,
        3 runs of 3, bench/bulk.py). The price: a batch that fails after a merge keeps its
        lines written before it (the retry finds them stored, as after a kill)."""
        if not (self._in_tx and self._staged is not None):
            with self.transaction():
                yield
            return
        self._flush_staged(copy=False)  # its commit then needs no checkpoint
        self._commit_and_begin()
        yield
        self._commit_and_begin()
        if self._joined:
            self.consolidate_joined(self._joined_at)  # joins this transaction
            self._commit_and_begin()

    def world_messages(self, newest: int | None = None) -> list[tuple[str, str, datetime, str]]:
        """(id, world, ts, text) of every message, or of the `newest` ones, oldest first (what
        the job clusters: its window of the newest, read in ~9 ms at 20,000 messages where
        reading them all took ~48 ms, medians of 7)."""
        read = "MATCH (m:Message) WHERE m.chat = $chat RETURN m.id, m.world, m.ts, m.text "
        if newest is None:
            rows = self._rows(read + "ORDER BY m.seq")
        else:
            rows = self._rows(read + "ORDER BY m.seq DESC LIMIT $n", {"n": newest})[::-1]
        return [(r[0], r[1] or "", _utc(r[2]) or datetime.min, r[3] or "") for r in rows]

    def _repoint_mentions(self, moves: list[tuple[str, str, str]]) -> None:
        """(message, entity, new entity): each mention re-pointed, once. The pairs that exist
        already are read in one statement; the old mentions are deleted by one statement
        (UNWIND of the pairs, each found by its two primary keys: one statement per entity
        left was 29% of the move's samples in the job's first run after a 10,000-fact import),
        and the new ones created with one per entity they join when several messages join it
        (`m.uid IN $ms`, which Kùzu answers by a filtered scan of the messages: ~5 ms at
        20,000) and one per mention otherwise (two primary-key look-ups, ~3.7 ms). A moving
        message's mentions join ~10 per entity (10,000 imported messages: 3,584 re-pointed onto
        354 entities), so one statement per mention cost 11.4 s of that import, a MERGE per
        mention more before.
        Every delete runs before the creates; the entities left and joined are disjoint (a
        move joins an entity of the destination, a copy or an entity that moves itself)."""
        if not moves:
            return
        have = {
            (str(r[0]), str(r[1]))
            for r in self._rows(
                "MATCH (m:Message)-[r:MENTIONS]->(t:Entity) WHERE r.chat = $chat AND "
                "m.chat = $chat AND m.uid IN $ms AND t.uid IN $ts RETURN m.id, t.id",
                {
                    "ms": self._us({m for m, _, _ in moves}),
                    "ts": self._us({t for _, _, t in moves}),
                },
            )
        }
        joining: dict[str, set[str]] = {}
        for m, _, t in moves:
            if (m, t) not in have:
                joining.setdefault(t, set()).add(m)
        left = {(m, e) for m, e, _ in moves}
        self._by_pairs(
            "MATCH (m:Message {uid: x.m})-[r:MENTIONS]->(e:Entity {uid: x.e}) WHERE "
            "m.chat = $chat AND r.chat = $chat AND e.chat = $chat DELETE r",
            [{"m": self._u(m), "e": self._u(e)} for m, e in sorted(left)],
            exact=False,  # as before: whatever edges the pairs have
        )
        for t, ms in joining.items():
            if len(ms) >= JOIN_BY_SCAN:
                self._exec(
                    "MATCH (m:Message), (t:Entity {uid: $t}) WHERE m.chat = $chat AND "
                    "t.chat = $chat AND m.uid IN $ms CREATE (m)-[:MENTIONS {chat: $chat}]->(t)",
                    {"t": self._u(t), "ms": self._us(ms)},
                )
                continue
            for m in sorted(ms):
                self._exec(
                    "MATCH (m:Message {uid: $m}), (t:Entity {uid: $t}) WHERE m.chat = $chat "
                    "AND t.chat = $chat CREATE (m)-[:MENTIONS {chat: $chat}]->(t)",
                    {"m": self._u(m), "t": self._u(t)},
                )

    def _by_pairs(
        self, statement: str, rows: list[dict[str, Any]], *, exact: bool = True, **params: Any
    ) -> None:
        """`statement` for each of `rows` (`x` in it), in one statement. With `exact`, every
        row must match an edge, or the move fails (and is rolled back) rather than copy a
        fact whose original it did not delete."""
        if not rows:
            return
        got = self._rows(f"UNWIND $rows AS x {statement} RETURN count(*)", {"rows": rows, **params})
        self.shard.wrote()
        if exact and (not got or got[0][0] < len(rows)):
            raise StoreError(f"a regrouping move matched {got} of {len(rows)} edges")

    def move_messages(self, message_ids: Sequence[str], dst: str, now: datetime) -> dict[str, int]:
        ids = sorted(set(message_ids))
        if not ids or dst not in self.worlds:
            return {"messages": 0, "facts": 0, "entities": 0}
        moving = set(ids)
        src = sorted(
            {r[0] for r in self._rows(_MSG_WORLDS, {"ids": self._us(ids)})} - {dst}
        )  # the worlds they leave
        # every column of the facts that may move, read before this move writes anything: the
        # copies are made from these values, not found again (see the loop below)
        rows = self._rows(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE f.chat = $chat AND f.world IN $w "
            "RETURN a.id, b.id, " + ", ".join(f"f.{c}" for c in _FACT_COLUMNS),
            {"w": src},
        )
        columns = {r[2]: dict(zip(_FACT_COLUMNS, r[2:], strict=True)) for r in rows}
        facts = [(r[0], r[1], r[2], columns[r[2]]["sources"]) for r in rows]
        mentions = self._rows(
            "MATCH (m:Message)-[r:MENTIONS]->(e:Entity) WHERE r.chat = $chat AND e.chat = $chat "
            "AND e.world IN $w RETURN m.id, e.id",
            {"w": src},
        )
        going = [(a, b, fid) for a, b, fid, sources in facts if sources and set(sources) <= moving]
        staying = {
            e for a, b, _, sources in facts if not set(sources or []) <= moving for e in (a, b)
        }
        staying |= {e for m, e in mentions if m not in moving}
        touched = {e for a, b, _ in going for e in (a, b)} | {e for m, e in mentions if m in moving}
        target: dict[str, str] = {}
        copies: list[PlannedEntity] = []
        moved_entities: list[str] = []
        # the entity each name gets in dst: messages leaving two worlds that both know a name
        # bring it once (two would make the name ambiguous there: every later fact about it
        # refused, 575 lines of a 10,000-message import)
        claimed: dict[str, str] = {}
        for eid in sorted(touched):
            ent = self.entities.get(eid)
            if ent is None or ent.ident or ent.world == dst:
                target[eid] = eid
            elif (dst, ent.key) in self.by_key:
                target[eid] = self.by_key[(dst, ent.key)]
            elif ent.key in claimed:
                target[eid] = claimed[ent.key]
            elif eid not in staying:
                target[eid] = claimed[ent.key] = eid
                moved_entities.append(eid)
            else:
                copy = PlannedEntity(
                    new_id("e"),
                    ent.kind,
                    ent.name,
                    ent.key,
                    dst,
                    "",
                    self.entity_vectors.vector(eid),
                )
                copies.append(copy)
                target[eid] = claimed[ent.key] = copy.id
        # the in-memory graph follows the move (below) instead of being read again: six
        # reloads took 2.1-2.5 s of a 10,000-message import into the 10,000-fact chat, and in
        # a live chat the message after each run that moved anything paid one (~0.3 s there)
        with self._graph_kept() as graph, self.transaction():
            for copy in copies:
                self._create_entity(copy, now)
            if moved_entities:
                self._exec(
                    "MATCH (e:Entity) WHERE e.chat = $chat AND e.uid IN $ids SET e.world = $dst",
                    {"ids": self._us(moved_entities), "dst": dst},
                )
            # originals deleted first, then the copies created by primary key from the values
            # read above: a copy found through its original after earlier moves' copies in the
            # regrouping's transaction was not found by kuzu 0.11.3, and the original was then
            # deleted (3 of 5 imports of 3,000 bench.bulk messages lost 4 facts so)
            copies_of: list[tuple[str, str, str]] = []
            stay: list[dict[str, Any]] = []  # facts whose end points stay: re-worlded
            gone: list[dict[str, Any]] = []  # facts copied between new end points
            for a, b, fid in going:
                ta, tb = target.get(a, a), target.get(b, b)
                (stay if (ta, tb) == (a, b) else gone).append(
                    {"a": self._u(a), "b": self._u(b), "fid": fid}
                )
                if (ta, tb) == (a, b):
                    if graph is not None and (kept := graph.by_id.get(fid)) is not None:
                        kept.world, kept.edge = dst, None
                else:
                    copies_of.append((ta, tb, fid))
            # one statement each (UNWIND, each edge by its end points' primary keys): one per
            # fact was 24% of the move's samples in the job's first run after a 10,000-fact
            # import
            between = (
                "MATCH (a:Entity {uid: x.a})-[f:FACT]->(b:Entity {uid: x.b}) WHERE "
                "a.chat = $chat AND f.chat = $chat AND f.id = x.fid"
            )
            self._by_pairs(f"{between} SET f.world = $dst", stay, exact=False, dst=dst)
            self._by_pairs(f"{between} DELETE f", gone)  # then copied: never both
            ends = {r[2]: (r[0], r[1]) for r in rows}
            for ta, tb, fid in copies_of:
                if not self._create_fact_copy(ta, tb, columns[fid], dst):
                    raise StoreError(f"the copy of fact {fid} found no end point")
                if graph is not None:
                    repoint_fact(graph, fid, ends[fid], (ta, tb), dst)
            repointed = [
                (m, e, target[e]) for m, e in mentions if m in moving and target.get(e, e) != e
            ]
            self._repoint_mentions(repointed)
            if graph is not None:
                for m, e, t in repointed:
                    graph.mentions.get(e, {}).pop(m, None)
                    graph.mention(m, t)
            self._exec(
                "MATCH (m:Message) WHERE m.chat = $chat AND m.uid IN $ids SET m.world = $dst",
                {"ids": self._us(ids), "dst": dst},
            )
            self.recall.move(ids, dst)
            orphans = [e for e, t in target.items() if t != e and e not in staying]
            if orphans:
                self._exec(
                    "MATCH (e:Entity) WHERE e.chat = $chat AND e.uid IN $ids DETACH DELETE e",
                    {"ids": self._us(orphans)},
                )
                if graph is not None:
                    drop_entities(graph, orphans, ends)
            # a copy that stands for one entity has nothing to fold; one for two, or an entity
            # that others joined, does
            joined = Counter(t for e, t in target.items() if t != e)
            copy_ids = {c.id for c in copies}
            unified = sorted(t for t, n in joined.items() if t not in copy_ids or n > 1)
            self._join(unified, now)  # folded once committed
        self._reindex_moved(dst, moved_entities, copies, orphans)
        last = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat RETURN m.world ORDER BY m.seq DESC LIMIT 1"
        )
        if last:
            self.last_world = last[0][0] or ""
        self.refresh_world_stats()
        return {
            "messages": len(ids),
            "facts": len(going),
            "entities": len(copies) + len(moved_entities),
        }

    def consolidate_joined(self, now: datetime) -> tuple[int, int]:
        """Fold, in a transaction of their own, the facts of the entities merges and moves
        joined since the last call: (duplicates folded, values superseded). Not in the merge's
        or move's own transaction: there, after its copies, kuzu 0.11.3 left some copies out of
        a read and returned others for the wrong entity, so two copies of one fact stayed
        active (a chat imported with `python -m bot ingest` kept two values of a single-valued
        predicate, bench/crash.py) or two different facts were folded into one
        (tests/worlds/test_merge.py). Committed, the copies are read back right; a fold of
        what is already folded changes nothing."""
        ids, self._joined = sorted(self._joined), set()
        if not ids:
            return 0, 0
        with self._graph_kept() as graph, self.transaction():  # the fold keeps it in step
            folded, closed = self._consolidate(ids, now, graph)
            if folded or closed:  # the worlds' counts of active facts, read after the merge
                self.refresh_world_stats()
        return folded, closed

    def _reindex_moved(
        self, dst: str, moved: list[str], copies: list[PlannedEntity], orphans: list[str]
    ) -> None:
        """Bring the entity indexes up to date after a move from what it changed: entities
        moved to dst, copies made there, orphans deleted. Re-reading every entity of the chat
        instead was 30% of a 10,000-message import (each regrouping run moves a few messages
        and re-read ~8,000 entities with their vectors). The name index is updated for the
        same entities: kept as it was, it found moved entities in their old world and deleted
        ones by an id no longer there (a KeyError answering a question, seen in
        bench.load_telegram with USE). tests/worlds/test_move.py compares the result with the
        indexes of the chat read again from the database."""
        self._unindex_entities(orphans)
        for eid in moved:
            self.entities[eid].world = dst
        self._reindex_names(moved)
        for copy in copies:
            row = EntityRow(copy.id, copy.kind, copy.name, copy.key, copy.world, copy.ident, [])
            vec = copy.embedding
            if vec is None or not vec.any():
                self.unembedded.setdefault("e", []).append(copy.id)
                vec = None
            self._index_new_entity(row, vec)
        if moved or orphans:  # keys of entities that left a world
            self._rekey()


def repoint_fact(
    graph: ActiveGraph, fid: str, was: tuple[str, str], now: tuple[str, str], world: str
) -> None:
    """A fact the move deleted between `was` and created again, with its id and columns,
    between `now` in `world`: the graph as the database now reads it."""
    fact = graph.by_id.get(fid)
    for end in was:
        graph.touching.get(end, {}).pop(fid, None)
    if fact is not None:  # active
        graph.remove(fid)
        fact.src, fact.dst, fact.world, fact.edge = now[0], now[1], world, None
        graph.add(fact)
    elif fid in graph.provenance:  # history: its provenance, and what it was closed about
        valid_from, sources = graph.provenance[fid]
        graph.record(fid, now[0], now[1], valid_from, sources)
        closed = graph.superseded.get(fid)
        if closed is not None:
            graph.superseded[fid] = (now[0], now[1], closed[2])


def drop_entities(
    graph: ActiveGraph, entity_ids: Sequence[str], ends: dict[str, tuple[str, str]]
) -> None:
    """Entities deleted with every edge still on them (DETACH DELETE): their facts and
    mentions leave the graph. `ends`: the end points of facts read before, by id."""
    for eid in entity_ids:
        for fid in list(graph.touching.get(eid, ())):
            fact = graph.by_id.get(fid)
            pair: Sequence[str] | None = (fact.src, fact.dst) if fact else ends.get(fid)
            if pair is None:  # a fact outside the worlds read: its other end looked up
                pair = (eid, *(e for e, ids in graph.touching.items() if fid in ids and e != eid))
            graph.forget(fid, pair)
        graph.touching.pop(eid, None)
        graph.mentions.pop(eid, None)
        graph.out.pop(eid, None)
        graph.inn.pop(eid, None)


_MSG_WORLDS = "MATCH (m:Message) WHERE m.chat = $chat AND m.uid IN $ids RETURN DISTINCT m.world"
