"""Moving chats: erasing one from its shard, copying one between shards (resharding), and moving
the per-chat databases of older versions into their shards on first start.

A chat's rows are copied as they are (same tag, same chat-scoped keys: a chat's tag depends on
its key only; vectors stay packed, core/store/packed.py), table by table through COPY from Arrow, in one transaction of the target shard.
Originals are never deleted: a migrated per-chat directory is renamed `<name>.migrated-<time>`,
a resharded layout `shards.before-<time>`.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kuzu
import numpy as np

from core.store.arrow import arrow
from core.store.keys import node_key
from core.store.packed import pack_vector
from core.store.shard import (
    NODE_TABLES,
    SCHEMA_VERSION,
    ShardDb,
    chat_tag,
    chats_in,
    open_database,
    read_json,
    shard_dirname,
    shard_of,
    write_json,
)

log = logging.getLogger(__name__)

# columns in the shard schema's order (core/store/shard.py), with their Arrow types by name
# (pyarrow is imported only when a chat moves: importing it costs ~52 MB of RSS, measured)
_S, _I, _F, _TS, _VEC, _STRS = "string", "int64", "float64", "timestamp", "vector", "strings"
COLUMNS: dict[str, list[tuple[str, str]]] = {
"Message": [
        ("uid", _I), ("chat", _S), ("id", _S), ("seq", _I), ("author", _S), ("text", _S),
        ("ts", _TS), ("world", _S), ("extraction", _S), ("emb", _S),
    ],
    "Entity": [
        ("uid", _I), ("chat", _S), ("id", _S), ("kind", _S), ("name", _S), ("key", _S),
        ("aliases", _STRS), ("world", _S), ("ident", _S), ("emb", _S), ("created_at", _TS),
    ],
    "Record": [
        ("uid", _I), ("chat", _S), ("kind", _S), ("key", _S), ("created_at", _TS), ("body", _S),
        ("sources", _STRS), ("topic", _S), ("centroid", _VEC), ("access_count", _I),
        ("last_active", _TS), ("merged_into", _S),
    ],
    "FACT": [
        ("from", _I), ("to", _I), ("chat", _S), ("id", _S), ("predicate", _S),
        ("confidence", _F), ("status", _S), ("valid_from", _TS), ("valid_to", _TS),
        ("confirmed_at", _TS), ("sources", _STRS), ("world", _S),
    ],
    "MENTIONS": [("from", _I), ("to", _I), ("chat", _S)],
}  # fmt: skip
Dump = dict[str, list[list[Any]]]  # table -> rows in COLUMNS order


def _rows(conn: kuzu.Connection, query: str, params: dict[str, Any] | None = None) -> list[Any]:
    result = conn.execute(query, params or {})
    assert not isinstance(result, list)
    return result.get_all()


def _props(var: str, table: str) -> str:
    return ", ".join(f"{var}.{name}" for name, _ in COLUMNS[table])


def dump_chat(shard: ShardDb, tag: str) -> Dump:
    """Every row of one chat in a shard (caller holds no transaction of the shard)."""
    with shard.lock:
        conn = shard.conn
        out: Dump = {}
        for table in NODE_TABLES:
            out[table] = _rows(
                conn, f"MATCH (x:{table}) WHERE x.chat = $chat RETURN {_props('x', table)}",
                {"chat": tag},
            )  # fmt: skip
        fact_props = ", ".join(f"f.{n}" for n, _ in COLUMNS["FACT"][2:])
        out["FACT"] = _rows(
            conn,
            f"MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE f.chat = $chat "
            f"RETURN a.uid, b.uid, {fact_props}",
            {"chat": tag},
        )
        out["MENTIONS"] = _rows(
            conn,
            "MATCH (m:Message)-[r:MENTIONS]->(e:Entity) WHERE r.chat = $chat "
            "RETURN m.uid, e.uid, r.chat",
            {"chat": tag},
        )
        return out


def load_chat(shard: ShardDb, dump: Dump) -> None:
    """Copy a chat's rows into a shard, in one transaction (nodes first, then edges)."""
    pa = arrow()
    types = {
        _S: pa.string(),
        _I: pa.int64(),
        _F: pa.float64(),
        _TS: pa.timestamp("us"),
        _VEC: pa.list_(pa.float32()),
        _STRS: pa.list_(pa.string()),
    }
    with shard.lock:
        shard.in_tx = True
        try:
            shard.execute("BEGIN TRANSACTION", {})
            try:
                for table in (*NODE_TABLES, "FACT", "MENTIONS"):
                    rows = dump.get(table, [])
                    if not rows:
                        continue
                    cols = COLUMNS[table]
                    table_rows = pa.table(
                        {
                            name: pa.array([r[i] for r in rows], type=types[kind])
                            for i, (name, kind) in enumerate(cols)
                        }
                    )
                    shard.execute(f"COPY {table} FROM $t", {"t": table_rows})
            except BaseException:
                shard.execute("ROLLBACK", {})
                raise
            shard.execute("COMMIT", {})
        finally:
            shard.in_tx = False
        shard.wrote()
        shard.checkpoint()


def delete_chat(shard: ShardDb, tag: str) -> None:
    """Erase every node and edge of one chat from a shard (DETACH takes the edges)."""
    with shard.lock:
        for table in NODE_TABLES:
            shard.execute(f"MATCH (x:{table}) WHERE x.chat = $chat DETACH DELETE x", {"chat": tag})
            shard.wrote()
        shard.checkpoint()


# ---------------------------------------------------------------------- older versions
_V2_NODE = {  # the properties read, and where their FLOAT[] vector is among them
    "Message": ("x.id, x.seq, x.author, x.text, x.ts, x.world, x.extraction, x.emb", 7),
    "Entity": ("x.id, x.kind, x.name, x.key, x.aliases, x.world, x.ident, x.emb, x.created_at", 7),
}


def read_legacy(path: Path, chat: str) -> Dump:
    """The rows of a chat database of an older version (one database per chat, schema 1 or
    2), scoped to the chat's tag as the shard schema keeps them."""
    tag = chat_tag(chat)

    def key(item_id: str) -> int:
        return node_key(f"{tag}:{item_id}")

    def packed(row: list[Any], at: int) -> list[Any]:  # its FLOAT[] vector, packed
        emb = row[at]
        vec = None if not emb else np.asarray(emb, dtype=np.float32)
        return [*row[:at], pack_vector(vec), *row[at + 1 :]]

    db = open_database(path / "graph.kz", 256 << 20)
    conn = kuzu.Connection(db)
    try:
        tables = {r[0] for r in _rows(conn, "CALL show_tables() RETURN name")}
        out: Dump = {}
        for table, (props, at) in _V2_NODE.items():
            out[table] = [
                [key(r[0]), tag, *packed(r, at)]
                for r in _rows(conn, f"MATCH (x:{table}) RETURN {props}")
            ]
        out["Record"] = _legacy_records(conn, tables, tag)
        out["FACT"] = [
            [key(r[0]), key(r[1]), tag, *r[2:]]
            for r in _rows(
                conn,
                "MATCH (a:Entity)-[f:FACT]->(b:Entity) RETURN a.id, b.id, f.id, f.predicate, "
                "f.confidence, f.status, f.valid_from, f.valid_to, f.confirmed_at, f.sources, "
                "f.world",
            )
        ]
        out["MENTIONS"] = [
            [key(m), key(e), tag]
            for m, e in _rows(conn, "MATCH (m:Message)-[:MENTIONS]->(e:Entity) RETURN m.id, e.id")
        ]
        return out
    finally:
        conn.close()
        db.close()


def _legacy_records(conn: kuzu.Connection, tables: set[str], tag: str) -> list[list[Any]]:
    """Record rows (uid, chat, kind, key, created_at, body, sources, topic, centroid,
    access_count, last_active, merged_into) from schema 2's Record or schema 1's four tables."""
    out: list[list[Any]] = []

    def rec(kind: str, key: str, **cols: Any) -> None:
        names = [n for n, _ in COLUMNS["Record"]]
        row: dict[str, Any] = dict.fromkeys(names)
        row.update(uid=node_key(f"{tag}:{kind}:{key}"), chat=tag, kind=kind, key=key, **cols)
        out.append([row[n] for n in names])

    if "Record" in tables:
        for r in _rows(
            conn,
            "MATCH (r:Record) RETURN r.kind, r.key, r.created_at, r.body, r.sources, r.topic, "
            "r.centroid, r.access_count, r.last_active, r.merged_into",
        ):
            body = SCHEMA_VERSION if r[0] == "meta" and r[1] == "schema" else r[3]
            rec(r[0], r[1], created_at=r[2], body=body, sources=r[4], topic=r[5],
                centroid=r[6], access_count=r[7], last_active=r[8], merged_into=r[9])  # fmt: skip
        return out
    if "Meta" in tables:
        for key, value in _rows(conn, "MATCH (m:Meta) RETURN m.key, m.value"):
            rec("meta", key, body=SCHEMA_VERSION if key == "schema" else value)
    if "World" in tables:
        for r in _rows(
            conn,
            "MATCH (w:World) RETURN w.id, w.topic, w.access_count, w.created_at, w.last_active, "
            "w.merged_into, w.centroid",
        ):
            rec("world", r[0], topic=r[1], access_count=r[2], created_at=r[3],
                last_active=r[4], merged_into=r[5], centroid=r[6])  # fmt: skip
    if "Pending" in tables:
        for pid, triple, sources, created in _rows(
            conn, "MATCH (p:Pending) RETURN p.id, p.triple, p.sources, p.created_at"
        ):
            rec("pending", pid, body=triple, sources=sources, created_at=created)
    if "Trace" in tables:
        for tid, created, body in _rows(conn, "MATCH (t:Trace) RETURN t.id, t.created_at, t.body"):
            rec("trace", tid, body=body, created_at=created)
    return out


def migrate_legacy(
    legacy_root: Path, shard_path: Callable[[str], Path], open_shard: Callable[[Path], ShardDb]
) -> int:
    """Move every per-chat database of an older version (legacy_root/<hash>/chat.json and
    graph.kz) into its shard; the directory is then renamed `<hash>.migrated-<time>`, never
    deleted. A database that cannot be read is left in place and reported (tried again at the
    next start). Returns how many chats moved."""
    if not legacy_root.exists():
        return 0
    shards: dict[Path, ShardDb] = {}
    moved = 0
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    try:
        for meta in sorted(legacy_root.glob("*/chat.json")):
            folder = meta.parent
            if ".broken-" in folder.name or ".migrated-" in folder.name:
                continue
            try:
                chat = str(json.loads(meta.read_text())["chat"])
            except (OSError, ValueError, KeyError):
                log.warning("unreadable chat metadata at %s", meta)
                continue
            target = shard_path(chat)
            shard = shards.get(target)
            if shard is None:
                shard = shards[target] = open_shard(target)
            if chat in shard.chats():
                log.warning("%s: its chat is already in %s, left in place", folder, target.name)
                continue
            try:
                dump = read_legacy(folder, chat)
            except RuntimeError as exc:
                log.warning("chat database %s cannot be read (%s): left in place", folder, exc)
                continue
            delete_chat(shard, chat_tag(chat))  # what a crash half-way may have left
            load_chat(shard, dump)
            shard.add_chat(chat)
            folder.rename(folder.with_name(f"{folder.name}.migrated-{stamp}"))
            moved += 1
            log.info("moved the chat database %s into %s", folder.name, target.name)
    finally:
        for shard in shards.values():
            shard.close()
    return moved


def reshard(root: Path, shards: int, *, buffer_pool_bytes: int = 256 << 20) -> int:
    """Move every chat of the data directory `root` into a layout of `shards` shards: a new
    `shards` directory is built beside the old one, which is kept as `shards.before-<time>`.
    Returns how many chats moved. Run with the bot stopped."""
    old_root = root / "shards"
    layout = read_json(old_root / "layout.json", None)
    if layout is None:
        raise FileNotFoundError(f"no shards in {root}")
    old_n = int(layout["shards"])
    new_root = root / "shards.new"
    shutil.rmtree(new_root, ignore_errors=True)  # a copy a crash cut short; the originals stay
    new_root.mkdir()
    write_json(new_root / "layout.json", {"shards": shards})
    targets: dict[int, ShardDb] = {}
    moved = 0
    try:
        for index in range(old_n):
            path = old_root / shard_dirname(index)
            chats = chats_in(path)
            if not chats:
                continue
            source = ShardDb(path, buffer_pool_bytes=buffer_pool_bytes)
            try:
                for chat in chats:
                    dest = shard_of(chat, shards)
                    if dest not in targets:
                        targets[dest] = ShardDb(
                            new_root / shard_dirname(dest), buffer_pool_bytes=buffer_pool_bytes
                        )
                    load_chat(targets[dest], dump_chat(source, chat_tag(chat)))
                    targets[dest].add_chat(chat)
                    moved += 1
            finally:
                source.close()
    finally:
        for db in targets.values():
            db.close()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    old_root.rename(root / f"shards.before-{stamp}")
    new_root.rename(old_root)
    return moved
