"""The chat database's schema, its version and model metadata, and the schema-1 migration."""

from __future__ import annotations

import logging

from core.store.world_records import WorldRecords

log = logging.getLogger(__name__)

SCHEMA_VERSION = "2"

# Four node tables cost ~20 MB of heap per open database, measured on kuzu 0.11.3: every node
# table costs ~5 MB at open whatever its size or primary-key type, a rel table almost nothing.
# So the small record kinds (meta, world, pending, trace) share one wide table, Record, keyed
# "<kind>:<key>"; entities and messages, the graph itself, keep their own.
_SCHEMA = [
    """CREATE NODE TABLE IF NOT EXISTS Message(id STRING PRIMARY KEY, seq INT64, author STRING,
        text STRING, ts TIMESTAMP, world STRING, extraction STRING, emb FLOAT[])""",
    """CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, kind STRING, name STRING,
        key STRING, aliases STRING[], world STRING, ident STRING, emb FLOAT[],
        created_at TIMESTAMP)""",
    """CREATE REL TABLE IF NOT EXISTS FACT(FROM Entity TO Entity, id STRING, predicate STRING,
        confidence DOUBLE, status STRING, valid_from TIMESTAMP, valid_to TIMESTAMP,
        confirmed_at TIMESTAMP, sources STRING[], world STRING)""",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Message TO Entity)",
    """CREATE NODE TABLE IF NOT EXISTS Record(id STRING PRIMARY KEY, kind STRING, key STRING,
        created_at TIMESTAMP, body STRING, sources STRING[], topic STRING, centroid FLOAT[],
        access_count INT64, last_active TIMESTAMP, merged_into STRING)""",
]
# schema 1 kept these four in tables of their own; _migrate_v1 moves them into Record
_V1_TABLES = ("Meta", "World", "Pending", "Trace")


class ChatSchema(WorldRecords):
    _model_name: str
    model_mismatch: tuple[str | None, str | None] | None

    def _create_schema(self) -> None:
        for stmt in _SCHEMA:
            self._conn.execute(stmt)

    def _migrate_v1(self) -> None:
        """Move a schema-1 chat's meta, worlds, review queue and traces into Record, then drop
        the old tables. Idempotent (MERGE), so a crash half-way is finished on the next open."""
        tables = {r[0] for r in self._rows("CALL show_tables() RETURN name")}
        old = [t for t in _V1_TABLES if t in tables]
        if not old:
            return
        if "Meta" in old:
            for key, value in self._rows("MATCH (m:Meta) RETURN m.key, m.value"):
                self._set_meta(key, SCHEMA_VERSION if key == "schema" else value)
        if "World" in old:
            for row, vec in self._vectors(
                "MATCH (w:World) RETURN w.id, w.topic, w.access_count, w.created_at, "
                "w.last_active, w.merged_into, w.centroid"
            ):
                self._put_world(self._world_row(row, vec))
        if "Pending" in old:
            for pid, triple, sources, created in self._rows(
                "MATCH (p:Pending) RETURN p.id, p.triple, p.sources, p.created_at"
            ):
                self._exec(
                    "MERGE (r:Record {id: $rid}) SET r.kind = 'pending', r.key = $id, "
                    "r.body = $t, r.sources = $s, r.created_at = $now",
                    {"rid": f"pending:{pid}", "id": pid, "t": triple, "s": sources, "now": created},
                )
        if "Trace" in old:
            for tid, created, body in self._rows(
                "MATCH (t:Trace) RETURN t.id, t.created_at, t.body"
            ):
                self._exec(
                    "MERGE (r:Record {id: $rid}) SET r.kind = 'trace', r.key = $id, "
                    "r.body = $b, r.created_at = $now",
                    {"rid": f"trace:{tid}", "id": tid, "b": body, "now": created},
                )
        for table in old:
            self._exec(f"DROP TABLE {table}")  # names from _V1_TABLES, never from input
        self._checkpoint()
        log.info("migrated %s to schema %s (%s)", self.path.name, SCHEMA_VERSION, ", ".join(old))

    def _set_meta(self, key: str, value: str) -> None:
        self._exec(
            "MERGE (r:Record {id: $rid}) SET r.kind = 'meta', r.key = $k, r.body = $v",
            {"rid": f"meta:{key}", "k": key, "v": value},
        )

    def _check_model(self, model_name: str) -> None:
        rows = self._rows("MATCH (r:Record {kind: 'meta'}) RETURN r.key, r.body")
        meta = dict(rows)
        if not meta:
            for key, value in (
                ("schema", SCHEMA_VERSION),
                ("model", model_name),
                ("dim", str(self.dim)),
            ):
                self._set_meta(key, value)
            return
        if meta.get("model") != model_name or meta.get("dim") != str(self.dim):
            # vectors of two models never mix: the core re-embeds on open (reembed)
            self.model_mismatch = (meta.get("model"), meta.get("dim"))

    def set_model(self, model_name: str) -> None:
        self._set_meta("model", model_name)
        self._set_meta("dim", str(self.dim))
        self.model_mismatch = None
