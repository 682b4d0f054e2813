"""Shards of schema 3 (`<tag>:<id>` STRING primary keys, FLOAT[] vectors) rebuilt at open in
schema 4 (INT64 keys, int8 vectors: core/store/keys.py, core/store/packed.py).

Kùzu cannot change a primary key's type in place, so the shard's rows are read table by table
(Arrow, not Python rows: 20,000 vectors as Python floats would be ~200 MB) and COPYed into a
new file beside it; the shard then swaps the files (ShardDb._upgrade, crash-safe as its
compaction is) and keeps the schema-3 file as `schema3-<time>.kz`, never deleted. Every key
maps to node_key of the same string, so a chat's rows keep their identity and its edges their
end points; the seed rows ("_seed") become SEED_KEY's.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu's COPY from Arrow calls importlib.util unimported
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import kuzu
import numpy as np

from core.store.arrow import arrow
from core.store.keys import node_key
from core.store.packed import pack_vector

NODES = ("Message", "Entity", "Record")
RELS = ("FACT", "MENTIONS")
PACKED = {"Message": "emb", "Entity": "emb"}  # FLOAT[] columns stored packed from schema 4


def _rows(conn: kuzu.Connection, query: str) -> list[Any]:
    result = conn.execute(query)
    assert not isinstance(result, list)
    return result.get_all()


def _columns(conn: kuzu.Connection, table: str) -> list[tuple[str, str]]:
    return [
        (str(r[0]), str(r[1])) for r in _rows(conn, f"CALL table_info('{table}') RETURN name, type")
    ]


def upgrade_due(conn: kuzu.Connection) -> bool:
    """True for a shard of schema 3: its Message table's key is a STRING."""
    if "Message" not in {r[0] for r in _rows(conn, "CALL show_tables() RETURN name")}:
        return False  # a new shard
    return dict(_columns(conn, "Message")).get("uid") == "STRING"


def _keys(column: Any) -> Any:
    pa = arrow()
    return pa.array([node_key(u) for u in column.to_pylist()], type=pa.int64())


def _packed(column: Any) -> Any:
    pa = arrow()
    out = [
        pack_vector(None if v is None else np.asarray(v, dtype=np.float32))
        for v in column.to_pylist()
    ]
    return pa.array(out, type=pa.string())


def _node_table(conn: kuzu.Connection, table: str, version: str) -> Any:
    pa = arrow()
    names = [n for n, _ in _columns(conn, table)]
    result = conn.execute(f"MATCH (x:{table}) RETURN {', '.join(f'x.{n}' for n in names)}")
    assert not isinstance(result, list)
    data = result.get_as_arrow()
    cols = dict(zip(names, data.columns, strict=True))
    cols["uid"] = _keys(cols["uid"])
    if table in PACKED:
        cols[PACKED[table]] = _packed(cols[PACKED[table]])
    if table == "Record":  # each chat's record of its schema says the new one
        kinds, keys = cols["kind"].to_pylist(), cols["key"].to_pylist()
        body = [
            version if k == "meta" and key == "schema" else b
            for k, key, b in zip(kinds, keys, cols["body"].to_pylist(), strict=True)
        ]
        cols["body"] = pa.array(body, type=pa.string())
    return pa.table(cols)


def _rel_table(conn: kuzu.Connection, table: str) -> Any:
    pa = arrow()
    names = [n for n, _ in _columns(conn, table)]
    props = "".join(f", f.{n}" for n in names)
    result = conn.execute(f"MATCH (a)-[f:{table}]->(b) RETURN a.uid, b.uid{props}")
    assert not isinstance(result, list)
    data = result.get_as_arrow()
    cols = [_keys(data.column(0)), _keys(data.column(1)), *data.columns[2:]]
    return pa.table(cols, names=["from", "to", *names])


def rebuild_schema3(
    conn: kuzu.Connection, target: Path, pool_bytes: int, schema: Sequence[str], version: str
) -> dict[str, int]:
    """Write every row of the schema-3 shard open on `conn` into a new database at `target`
    created with `schema`. Returns the rows copied per table."""
    tables = {t: _node_table(conn, t, version) for t in NODES}
    rels = {t: _rel_table(conn, t) for t in RELS}
    db = kuzu.Database(str(target), buffer_pool_size=pool_bytes, max_db_size=1 << 36)
    try:
        new = kuzu.Connection(db)
        try:
            for stmt in schema:
                new.execute(stmt)
            for name, arrow in (*tables.items(), *rels.items()):
                if arrow.num_rows:
                    new.execute(f"COPY {name} FROM $t", {"t": arrow})
            new.execute("CHECKPOINT")
        finally:
            new.close()
    finally:
        db.close()
    return {name: arrow.num_rows for name, arrow in (*tables.items(), *rels.items())}
