"""Staged writes: a bulk import's batch written with a few statements instead of several per
line (`ChatStore.staged()`, used by core/pipeline/bulk.py).

While a batch is staged, the one-line write steps run unchanged (routing, resolution, the
review queue, supersession): the store keeps its in-memory indexes and the ActiveGraph current
as it always does, but the rows of messages, entities, facts, mentions, pending items and
worlds are kept here instead of being written one statement each, and the reads a write needs
(the subject's current facts) are answered by the ActiveGraph. The rows are written, in one
transaction, when the batch ends, or before any other statement runs (a read, a world merge):
whatever runs next sees the database as the one-line path would have left it.

Measured on kuzu 0.11.3 (a loaded 2-core machine): one statement with a 384-float list
parameter costs ~8 ms, most of it converting the list, and every statement ~1.5 ms to prepare;
an explicit fact took ~7 statements. Here nodes are created by `LOAD FROM` an Arrow table
(`... CREATE`, no lookup; 1,024 nodes with vectors 0.44 s, where `UNWIND $rows` with vectors as
lists took ~8 ms a row and as text cast by Kùzu ~0.9 ms), edges by COPY from Arrow tables,
which finds their end points through the primary-key index, where `UNWIND ... MATCH (a {uid:
r.s}), (b {uid: r.o})` scans the node table for each statement (256 edges: 0.1 s at 2k nodes,
2.4 s at 30k; `LOAD FROM $t MATCH (a {uid: f}), (b {uid: o})` is planned as a cross product and
ran out of a 2 GB buffer pool at 10k nodes). A transaction that ran a COPY is checkpointed at
its COMMIT (kuzu 0.11.3: no WAL is left after it, where LOAD FROM alone commits in ~10 ms and
leaves its WAL), so a batch costs one checkpoint, and bot/cli.py sends large batches. Nodes are
never COPYed: a rolled-back node COPY left committed nodes missing from
the primary-key index (the next COPY could not find them), and a failed batch is rolled back
and retried line by line.

Trap (kuzu 0.11.3, bench/crash.py): a kill -9 during the checkpoint a COPY's COMMIT runs can
leave the batch's nodes (created by LOAD FROM, replayed from the WAL at the next open) without
its COPYed edges: messages without their facts and mentions. The batch's durable records are
done only after the COMMIT returns, so they are taken up again at the next start, and a stored
message that mentions nothing is extracted again (Ingest._torn, tests/core/test_durable.py).
"""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu's COPY from Arrow calls importlib.util unimported
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from core.errors import StoreError
from core.rows import WorldRow
from core.store.arrow import arrow
from core.store.packed import pack_vector
from core.store.schema import ChatSchema

# nodes with vectors come from an Arrow table scanned by LOAD FROM: the vectors cross as float32
# arrays, not as Python lists converted one float at a time
_MESSAGES = (
    "LOAD FROM $t CREATE (:Message {uid: uid, chat: $chat, id: id, seq: seq, author: author, "
    "text: text, ts: ts, world: world, extraction: x, emb: emb})"
)
_ENTITIES = (
    "LOAD FROM $t CREATE (:Entity {uid: uid, chat: $chat, id: id, kind: kind, name: name, "
    "key: key, aliases: CAST([] AS STRING[]), world: world, ident: ident, emb: emb, "
    "created_at: now})"
)
_REPLIES = (
    "UNWIND $rows AS r CREATE (:Record {uid: r.rid, chat: $chat, kind: 'reply', key: r.id, "
    "body: r.p})"
)
_PENDING = (
    "UNWIND $rows AS r CREATE (:Record {uid: r.rid, chat: $chat, kind: 'pending', key: r.id, "
    "body: r.t, sources: CAST(r.s AS STRING[]), created_at: r.now, topic: r.reason})"
)
# facts stored before the batch, matched through their end points (see merge.py's note on a
# scan of FACT edges by id)
_FACT_OF = (
    "UNWIND $rows AS r MATCH (a:Entity {uid: r.s})-[f:FACT]->(b:Entity {uid: r.o}) "
    "WHERE a.chat = $chat AND f.chat = $chat AND f.id = r.id "
)
# the FACT table's columns after FROM and TO, in the schema's order (core/store/shard.py)
FACT_COLUMNS = (
    "chat",
    "id",
    "predicate",
    "confidence",
    "status",
    "valid_from",
    "valid_to",
    "confirmed_at",
    "sources",
    "world",
)


def replace_fact(match: str, changes: dict[str, str]) -> str:
    """A statement that changes some columns of the fact edges `match` binds (as f, between a
    and b) by deleting each and creating it again with every other column as it was: the way
    round a SET that kuzu 0.11.3 matched and did not keep (bench.crash seed 250). Not the
    first choice: a second such statement in one transaction did not find its fact, or
    changed another one (StagedWrites.change_fact)."""
    kept = [c for c in FACT_COLUMNS if c not in changes]
    values = ", ".join(
        f"{c}: {changes[c]}" if c in changes else f"{c}: k_{c}" for c in FACT_COLUMNS
    )
    carried = ", ".join(f"f.{c} AS k_{c}" for c in kept)
    scope = ", ".join(sorted({"a", "b", *_names_in(changes.values())}))
    return f"{match} WITH {scope}, f, {carried} DELETE f CREATE (a)-[:FACT {{{values}}}]->(b)"


def _names_in(exprs: Iterable[str]) -> set[str]:
    """The variables (r of r.c, $params excluded) the changed values read."""
    return {e.split(".")[0] for e in exprs if "." in e and not e.startswith("$")}


# a batch's new edges by statement rather than COPY (StagedWrites._flush_staged); a column
# whose values may all be null or empty is cast (kuzu types an all-null list as STRING)
_CASTS = {
    c: f"CAST(r.{c} AS {t})"
    for c, t in (
        ("valid_from", "TIMESTAMP"),
        ("valid_to", "TIMESTAMP"),
        ("confirmed_at", "TIMESTAMP"),
        ("sources", "STRING[]"),
    )
}
_CREATE_FACTS = (
    "UNWIND $rows AS r MATCH (a:Entity {uid: r.from}), (b:Entity {uid: r.to}) WHERE "
    "a.chat = $chat AND b.chat = $chat CREATE (a)-[:FACT {chat: $chat, "
    + ", ".join(f"{c}: {_CASTS.get(c, 'r.' + c)}" for c in FACT_COLUMNS if c != "chat")
    + "}]->(b)"
)
_CREATE_MENTIONS = (
    "UNWIND $rows AS r MATCH (m:Message {uid: r.m}), (e:Entity {uid: r.e}) WHERE "
    "m.chat = $chat AND e.chat = $chat CREATE (m)-[:MENTIONS {chat: $chat}]->(e)"
)
# a stored fact's changes, SET in place; a fact the batch re-confirmed and then superseded
# takes both in one statement (_BOTH)
_RECONFIRM = {"confidence": "r.c", "confirmed_at": "r.now", "sources": "r.src"}
_SUPERSEDE = {"status": "r.st", "valid_to": "r.now"}
_BOTH = {**_RECONFIRM, "confirmed_at": "r.at", **_SUPERSEDE}


def set_fact(match: str, changes: dict[str, str]) -> str:
    """A statement that SETs these columns of the fact edges `match` binds as f."""
    return f"{match} SET " + ", ".join(f"f.{c} = {v}" for c, v in changes.items())


def node_table(rows: list[dict[str, Any]]) -> Any:
    """Rows of one node table as an Arrow table, each row's `emb` (a vector, or None) packed
    as the one-line path stores it (core/store/packed.py)."""
    pa = arrow()
    columns = {k: [r[k] for r in rows] for k in rows[0] if k != "emb"}
    emb = pa.array([pack_vector(r["emb"]) for r in rows], type=pa.string())
    return pa.table({**columns, "uid": pa.array(columns["uid"], pa.int64()), "emb": emb})


@dataclass
class Staging:
    """The rows of a batch not written yet, and what the batch has written so far."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)  # new, final state, by id
    reconfirmed: dict[str, dict[str, Any]] = field(default_factory=dict)  # stored before
    superseded: dict[str, dict[str, Any]] = field(default_factory=dict)  # stored before
    mentions: dict[tuple[str, str], None] = field(default_factory=dict)  # (message, entity)
    pending: list[dict[str, Any]] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)  # (rid, id, p): reply Records
    worlds: dict[str, WorldRow] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)  # the chat's meta records, by key
    aliases: dict[str, list[str]] = field(default_factory=dict)  # entity id -> its aliases
    # worlds born since the rows were last written: all they hold is here (merge_staged.py)
    fresh: set[str] = field(default_factory=set)
    # for the whole batch: its messages (their mentions are new) and the mentions written
    batch_messages: set[str] = field(default_factory=set)
    mentioned: set[tuple[str, str]] = field(default_factory=set)

    def __bool__(self) -> bool:
        return any(
            (
                self.messages,
                self.entities,
                self.facts,
                self.reconfirmed,
                self.superseded,
                self.mentions,
                self.pending,
                self.replies,
                self.worlds,
                self.meta,
                self.aliases,
            )
        )

    def clear(self) -> None:
        self.messages, self.entities, self.pending, self.replies = [], [], [], []
        self.facts, self.reconfirmed, self.superseded = {}, {}, {}
        self.mentioned.update(self.mentions)
        self.mentions, self.worlds, self.meta, self.aliases = {}, {}, {}, {}
        self.fresh = set()

    def mention(self, message_id: str, entity_id: str) -> bool:
        """Stage a mention by a message of this batch; False for an older message (its
        mention may exist: the caller MERGEs it)."""
        if message_id not in self.batch_messages:
            return False
        if (message_id, entity_id) not in self.mentioned:
            self.mentions[(message_id, entity_id)] = None
        return True


class StagedWrites(ChatSchema):
    """The store's statements, with a batch's rows held back while it is staged."""

    _staged: Staging | None

    @contextmanager
    def staged(self) -> Iterator[None]:
        """A bulk batch: one transaction, its rows written together at the end (nested: joins
        the outer batch)."""
        if self._staged is not None:
            yield
            return
        with self.transaction():
            self._staged = Staging()
            try:
                yield
                self._flush_staged()
            finally:
                self._staged = None

    def _rows(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        self._flush_staged()
        return super()._rows(query, params)

    def _exec(self, query: str, params: dict[str, Any] | None = None) -> None:
        self._flush_staged()
        super()._exec(query, params)

    def set_meta(self, key: str, value: str) -> None:
        if self._staged is not None:  # written with the batch's rows, not flushing them
            self._staged.meta[key] = value
        else:
            super().set_meta(key, value)

    def meta(self, key: str) -> str | None:
        if self._staged is not None and key in self._staged.meta:
            return self._staged.meta[key]
        return super().meta(key)

    def _put_world(self, world: WorldRow) -> None:
        if self._staged is not None:  # written once per batch, as it is then
            if world.id not in self.worlds:
                self._staged.fresh.add(world.id)
            self._staged.worlds[world.id] = world
        else:
            super()._put_world(world)

    def _flush_staged(self, *, copy: bool = True) -> None:
        """Write the staged rows; edges by COPY, or (copy False) by CREATE statements, for a
        transaction about to be committed early: kuzu 0.11.3 checkpoints at the commit of a
        transaction that ran a COPY (~0.3 s at an import's size)."""
        st = self._staged
        if not st:
            return
        self._staged = None  # the statements below run as themselves
        sync, self._graph_sync = self._graph_sync, True  # the graph saw these rows already
        try:
            self._write_staged(st, copy=copy)
        finally:
            self._graph_sync = sync
            st.clear()
            self._staged = st

    def _write_staged(self, st: Staging, *, copy: bool = True) -> None:
        # the facts stored before the batch change first, before any of the batch's rows is
        # written, and each change is read back: kuzu 0.11.3 at times matched such a fact, ran
        # the SET and kept the old value, in the next read and after the commit (a
        # re-confirmation of a fact an earlier process wrote was lost; bench.crash seed 250,
        # tests/test_crash.py). A change the read does not show fails the batch, which is then
        # rolled back and retried line by line, where FactWriter._set_fact tries both ways
        both = {
            fid: {**row, "at": row["now"], **st.superseded[fid]}
            for fid, row in st.reconfirmed.items()
            if fid in st.superseded
        }
        reconfirmed = {k: v for k, v in st.reconfirmed.items() if k not in both}
        superseded = {k: v for k, v in st.superseded.items() if k not in both}
        for changes, by_id in ((_RECONFIRM, reconfirmed), (_SUPERSEDE, superseded), (_BOTH, both)):
            if by_id:
                self._exec(set_fact(_FACT_OF, changes), {"rows": list(by_id.values())})
                for fid in self.changes_missing(list(by_id.values())):
                    self._change_again(by_id[fid], changes)
        for world in st.worlds.values():
            super()._put_world(world)
        for query, rows in ((_MESSAGES, st.messages), (_ENTITIES, st.entities)):
            if rows:
                self._exec(query, {"t": node_table(rows)})
        for eid, aliases in st.aliases.items():  # names of entities a staged merge unified
            self._exec(
                "MATCH (n:Entity {uid: $u}) WHERE n.chat = $chat SET n.aliases = $a",
                {"u": self._u(eid), "a": aliases},
            )
        if st.facts:
            if copy:
                self._copy_facts(list(st.facts.values()))
            else:
                self._exec(_CREATE_FACTS, {"rows": list(st.facts.values())})
        if st.mentions:
            if copy:
                self._copy_mentions(list(st.mentions))
            else:
                pairs = [
                    {"m": m, "e": e}
                    for m, e in zip(
                        self._us(m for m, _ in st.mentions),
                        self._us(e for _, e in st.mentions),
                        strict=True,
                    )
                ]
                self._exec(_CREATE_MENTIONS, {"rows": pairs})
        if st.pending:
            self._exec(_PENDING, {"rows": st.pending})
        if st.replies:
            self._exec(_REPLIES, {"rows": st.replies})
        for key, value in st.meta.items():
            super().set_meta(key, value)

    def _change_again(self, row: dict[str, Any], changes: dict[str, str]) -> None:
        """A batch's change that did not read back, made again on its own (SET, then delete
        and create: change_fact) before the batch fails. Failing it means a rollback, and
        kuzu 0.11.3 crashed the process (SIGSEGV) rolling back a batch that had COPYed rows
        and merged a world (a 10,000-message import after 10,000 facts, 3 runs of 3): after
        the merge's creates and deletes, the batch's SET of 22 stored facts did not all read
        back."""
        values = {k: v for k, v in row.items() if k not in ("id", "s", "o")}
        want: dict[str, Any] = {k: row[k] for k in ("st", "src") if k in row}
        one = {column: "$" + value.removeprefix("r.") for column, value in changes.items()}
        if not self.change_fact(row["id"], (row["s"], row["o"]), one, values, want):
            raise StoreError(f"a stored fact did not take its change ({row['id']})")

    def change_fact(
        self,
        fact_id: str,
        ends: tuple[int, int],
        changes: dict[str, str],
        params: dict[str, Any],
        want: dict[str, Any],
    ) -> bool:
        """Change one stored fact (between the chat keys `ends`) and read it back: True once
        it shows `want` (st: its status, src: its sources). kuzu 0.11.3 at times kept the old
        value of a SET (bench.crash seed 250), and at times a delete-and-create after other
        fact writes of the transaction did not find the fact: the other is tried when one did
        not take."""
        match = (
            "MATCH (a:Entity {uid: $s})-[f:FACT]->(b:Entity {uid: $o}) WHERE "
            "a.chat = $chat AND f.chat = $chat AND f.id = $id"
        )
        keys = {"id": fact_id, "s": ends[0], "o": ends[1]}
        for statement in (set_fact, replace_fact):
            self._exec(statement(match, changes), {**params, **keys})
            if not self.changes_missing([{**keys, **want}]):
                return True
        return False

    def changes_missing(self, rows: list[dict[str, Any]]) -> list[str]:
        """The ids of the facts (rows of _FACT_OF: id, s, o and the changes: st, src) that do
        not read back as changed."""
        got = {
            r[0]: r[1:]
            for r in self._rows(_FACT_OF + "RETURN f.id, f.status, f.sources", {"rows": rows})
        }
        missing = []
        for row in rows:
            have = got.get(row["id"])
            if (
                have is None
                or have[0] != row.get("st", "active")
                or ("src" in row and list(have[1] or []) != list(row["src"]))
            ):
                missing.append(row["id"])
        return missing

    def _copy_facts(self, rows: list[dict[str, Any]]) -> None:
        pa = arrow()
        stamp, texts = pa.timestamp("us"), pa.list_(pa.string())
        types = {"valid_from": stamp, "valid_to": stamp, "confirmed_at": stamp, "sources": texts}
        table = pa.table(
            {
                "from": [r["from"] for r in rows],
                "to": [r["to"] for r in rows],
                **{
                    c: pa.array([self.tag if c == "chat" else r[c] for r in rows], types.get(c))
                    for c in FACT_COLUMNS
                },
            }
        )
        self._exec("COPY FACT FROM $t", {"t": table})

    def _copy_mentions(self, pairs: list[tuple[str, str]]) -> None:
        pa = arrow()
        table = pa.table(
            {
                "from": self._us(m for m, _ in pairs),
                "to": self._us(e for _, e in pairs),
                "chat": [self.tag] * len(pairs),
            }
        )
        self._exec("COPY MENTIONS FROM $t", {"t": table})
