"""A shard: one Kùzu database holding many chats, opened once and kept open.

Why shards and not one database per chat (issue 14, measured on kuzu 0.11.3): a database costs
~6-8 MB of disk for its first rows (~1.1 MB per node table, ~2.1 MB per rel table), ~24 MB once
its rel pages have been re-laid by a few checkpoints, and ~35-45 MB of RSS per open handle, so
50 busy chats either held 50 handles (1.9 GB peak) or re-opened handles on nearly every message
(0.23-0.41x the throughput of one chat). A shard pays those fixed costs once for all of its
chats. Measured through Telegram (`python -m bench.load_telegram --quick`, docs/performance.md
"Many chats at once"): 50 busy chats went from 0.32x to 0.86x / 0.70x (two runs) of one chat's throughput,
question p95 9.1 s -> 2.5 / 4.3 s, and the data directory after the run from 3.6 GB to 89 MB.

Why few shards (default 2): an open shard costs ~18 MB of RSS empty (~30 MB for the first, with
the library) plus its buffer-pool pages, and the bot idles at ~550 MB with its model. In one pair
of runs of that benchmark, 1 shard peaked at 626 MB and served 50 busy chats 10.6 msg/s, 2 shards
682 MB and 14.6 msg/s (4 shards, another run: 794 MB). Two let two operations (a write on one
shard, anything on the other) use the machine's two cores; one is the low-memory setting.

Every node and edge carries its chat's tag (`chat`), every query filters on it through the
`$chat` parameter, and every primary key is chat-scoped (the INT64 hash of `<tag>:<id>`, core/store/keys.py),
because platform message ids, record ids ("meta:model") and identifier-derived entity ids repeat across chats.

One writer per shard: Kùzu 0.11 fails a second concurrent write transaction at once, so all
statements of all chats of a shard run under the shard's lock, on the shard's one connection.
Measured: a Kùzu connection keeps ~64 KB per write and ~10 KB per read until it is closed
(4,000 writes: 306 MB on one connection, 64 MB when it is replaced every 500), so the shard
replaces its connection at every checkpoint and every `RECYCLE_EVERY` statements, and a
connection per chat would have multiplied that by the number of busy chats.

A chat goes to shard int(sha256(chat key)) % N, so a set of shards can later move to another
process; N is recorded in the data directory (layout.json) and a different N is refused until
the chats are moved (`python -m bot reshard`, core/store/transfer.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kuzu
from kuzu.prepared_statement import PreparedStatement

from core.errors import StoreError
from core.store.keys import SEED, SEED_KEY
from core.store.memory import release_memory
from core.store.upgrade import rebuild_schema3, upgrade_due

log = logging.getLogger(__name__)

# 4: INT64 primary keys and int8 vectors (3: `<tag>:<id>` string keys and FLOAT[] vectors,
# upgraded at open: core/store/upgrade.py); 3: chats share shard databases (2: one per chat)
SCHEMA_VERSION = "4"
CHECKPOINT_EVERY = 200  # write statements of a shard between explicit checkpoints
# statements of a connection before it is replaced (memory, see above); a new connection
# costs 0.02 ms (measured), so often is free
RECYCLE_EVERY = 200
DEFAULT_SHARDS = 2
# a quiet shard is compacted when its file exceeds RATIO x its size after the last compaction
# plus SLACK, up to MAX (ShardDb.compaction_due)
COMPACT_RATIO = 1.25
COMPACT_SLACK = 2 << 20
COMPACT_MAX = 128 << 20

# Every node table costs ~1-3 MB at open whatever its size (its primary-key index, below); a rel
# table almost nothing. So the small record kinds (meta, world, pending, trace) share one wide
# table, Record.
#
# Keys are INT64 (node_key), vectors of messages and entities int8 as base64 text
# (core/store/packed.py). Measured on kuzu 0.11.3: a node table's primary-key index is 256
# hash sub-indexes, ~1 MB for the first row and ~8 KB more for each sub-index a row lands in
# (~3 MB from ~1,000 rows on, then nearly flat: 3.2 MB at 10,000); a string key longer than
# 12 bytes (Kùzu inlines up to 12) adds an overflow page per sub-index (4.1 MB at 1,000 rows
# for the `<16-hex tag>:<id>` keys of schema 3, 3.06 MB for INT64 keys).
SCHEMA = [
    """CREATE NODE TABLE IF NOT EXISTS Message(uid INT64 PRIMARY KEY, chat STRING, id STRING,
        seq INT64, author STRING, text STRING, ts TIMESTAMP, world STRING, extraction STRING,
        emb STRING)""",
    """CREATE NODE TABLE IF NOT EXISTS Entity(uid INT64 PRIMARY KEY, chat STRING, id STRING,
        kind STRING, name STRING, key STRING, aliases STRING[], world STRING, ident STRING,
        emb STRING, created_at TIMESTAMP)""",
    """CREATE REL TABLE IF NOT EXISTS FACT(FROM Entity TO Entity, chat STRING, id STRING,
        predicate STRING, confidence DOUBLE, status STRING, valid_from TIMESTAMP,
        valid_to TIMESTAMP, confirmed_at TIMESTAMP, sources STRING[], world STRING)""",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Message TO Entity, chat STRING)",
    """CREATE NODE TABLE IF NOT EXISTS Record(uid INT64 PRIMARY KEY, chat STRING, kind STRING,
        key STRING, created_at TIMESTAMP, body STRING, sources STRING[], topic STRING,
        centroid FLOAT[], access_count INT64, last_active TIMESTAMP, merged_into STRING)""",
]
NODE_TABLES = ("Message", "Entity", "Record")
REL_TABLES = (("FACT", "Entity", "Entity"), ("MENTIONS", "Message", "Entity"))

# Kùzu errors at open that say nothing about the files: another process holds the database,
# or memory ran short. Such a shard is reported, never set aside.
NOT_BROKEN = ("Could not set lock", "Buffer manager exception")


def chat_tag(chat: str) -> str:
    """The chat's tag in its shard: a hash, so keys from users' platforms never become paths
    or primary-key prefixes of arbitrary length (64 bits: no collision among a shard's chats)."""
    return hashlib.sha256(chat.encode()).hexdigest()[:16]


def shard_of(chat: str, shards: int) -> int:
    return int(hashlib.sha256(chat.encode()).hexdigest(), 16) % shards


def write_json(path: Path, data: Any) -> None:
    """Replace a small JSON file atomically (a crash leaves the old one or the new one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data))
    with tmp.open("rb") as fh:
        os.fsync(fh.fileno())
    tmp.replace(path)


def read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return default


def shard_dirname(index: int) -> str:
    return f"shard-{index:03d}"


def chats_in(path: Path) -> list[str]:
    """The chats a shard directory holds (its chats.json), read without opening the shard."""
    return list(read_json(path / "chats.json", {"chats": []})["chats"])


def open_database(file: Path, buffer_pool_bytes: int) -> kuzu.Database:
    # 64 GiB of address space, not the default 8 TiB
    return kuzu.Database(str(file), buffer_pool_size=buffer_pool_bytes, max_db_size=1 << 36)


class ShardDb:
    """One shard database, its lock and its one connection; the chats it holds (chats.json)
    and those waiting to be rebuilt after their shard was set aside (rebuild.json)."""

    def __init__(self, path: Path, *, buffer_pool_bytes: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.lock = threading.RLock()
        self._pool_bytes = buffer_pool_bytes
        self._finish_compaction()
        self._db: kuzu.Database | None = None
        self._conn: kuzu.Connection | None = None
        self.writes = 0  # write statements since the last checkpoint
        self._statements = 0  # statements on the current connection
        self._prepared: dict[str, PreparedStatement] = {}  # of _prepared_for (see _prepare)
        self._prepared_for: kuzu.Connection | None = None
        self.in_tx = False
        self._open()

    @property
    def file(self) -> Path:
        return self.path / "graph.kz"

    def _open(self) -> None:
        self._db = open_database(self.file, self._pool_bytes)
        self._conn = kuzu.Connection(self._db)
        self._statements = 0
        if upgrade_due(self._conn):
            self._upgrade()
        for stmt in SCHEMA:
            self._conn.execute(stmt)
        self._seed()

    def _upgrade(self) -> None:
        """Rebuild a shard of schema 3 in schema 4 (core/store/upgrade.py), then swap the
        files as compact() does: a crash before the swap keeps the old file (and upgrades it
        again at the next open), one after it finds the new one (_finish_compaction). The
        schema-3 file is kept beside as `schema3-<time>.kz`."""
        assert self._db is not None and self._conn is not None
        work = self.path / "compact.tmp"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        try:
            self._conn.execute("CHECKPOINT")  # no WAL left beside the file that moves
            rows = rebuild_schema3(
                self._conn, work / "graph.kz", self._pool_bytes, SCHEMA, SCHEMA_VERSION
            )
        except (RuntimeError, OSError) as exc:  # not a broken shard: never set aside for it
            shutil.rmtree(work, ignore_errors=True)
            self._conn.close()
            self._db.close()
            self._conn = self._db = None
            raise StoreError(
                f"{self.path} holds schema 3 and could not be upgraded to schema "
                f"{SCHEMA_VERSION} ({exc}); its files are untouched: free disk or memory and "
                "start again, or export each chat with the previous version (`python -m bot "
                "export --chat ID`) and `python -m bot ingest` it into a new data directory"
            ) from exc
        self._conn.close()
        self._db.close()
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        for f in sorted(self.path.glob("graph.kz*")):
            f.rename(self.path / f"schema3-{stamp}{f.name.removeprefix('graph')}")
        (work / "graph.kz").rename(self.file)  # the swap
        _fsync_dir(self.path)
        self._finish_compaction()
        # laid out by COPY as a compaction leaves it: the next compaction counts from here
        write_json(self.path / "compacted.json", {"bytes": self.file.stat().st_size})
        log.info("upgraded %s to schema %s: %s", self.path.name, SCHEMA_VERSION, rows)
        self._db = open_database(self.file, self._pool_bytes)
        self._conn = kuzu.Connection(self._db)

    def _seed(self) -> None:
        """Give each empty rel table one edge written by COPY, between seed nodes of no chat.

        Measured on kuzu 0.11.3: a rel table's first node group, when it is created by
        CREATE/MERGE and a checkpoint, gets its CSR offsets and lengths uncompressed at a full
        node group's capacity, 256 pages = 1 MiB each, in both directions (4 MiB per rel
        table), and every later checkpoint re-lays them (another 4 MiB in the free list). A
        node group created by COPY is compressed (a few pages) and stays so as rows are
        added, updated and deleted in place: one chat of 1,000 messages took 14.6 MB instead
        of 27.9 MB (bench.bulk's disk part). The seed rows must stay (deleting the seed's edge drops the node group, and
        the next one is created by CREATE again); every query filters on `$chat`, which is
        never SEED, and no chat-scoped key (`<tag>:<id>`) is ever SEED (their INT64 keys are
        hashes of different strings)."""
        conn = self.conn
        seeded = False
        for table, source, target in REL_TABLES:
            result = conn.execute(f"CALL storage_info('{table}') RETURN count(*)")
            assert not isinstance(result, list)
            count = result.get_next()
            assert isinstance(count, list)
            if count[0]:
                continue  # edges already (a shard of an older version: compaction fixes it)
            for node in {source, target}:
                conn.execute(
                    f"MERGE (x:{node} {{uid: $k}}) SET x.chat = $s", {"k": SEED_KEY, "s": SEED}
                )
            conn.execute(
                f"COPY {table}(chat) FROM (UNWIND [$k] AS k RETURN k AS a, k AS b, $s AS c)",
                {"k": SEED_KEY, "s": SEED},
            )
            seeded = True
        if seeded:  # in the file at once, so a quiet shard has no WAL to wait for
            conn.execute("CHECKPOINT")

    @property
    def conn(self) -> kuzu.Connection:
        if self._conn is None:
            raise StoreError("the shard is closed")
        return self._conn

    def execute(self, query: str, params: dict[str, Any]) -> kuzu.QueryResult:
        with self.lock:
            if not self.in_tx and self._statements >= RECYCLE_EVERY:
                self._recycle(trim=False)
            self._statements += 1
            conn = self.conn
            cached = params and query.lstrip()[:4].upper() not in ("COPY", "LOAD")
            result = conn.execute(self._prepare(conn, query) if cached else query, params)
            assert not isinstance(result, list)
            return result

    def _prepare(self, conn: kuzu.Connection, query: str) -> PreparedStatement:
        """The connection's prepared statement for the query, prepared once per connection.

        kuzu's execute(str, params) prepares the statement again on every call: 1.1 ms of a
        message's ~10 statements each (2,507 prepares took 2.7 s of 240 messages' 12.8 s,
        measured with cProfile). Parameters are bound at execute, not at prepare (kuzu
        0.11.3's Connection._prepare: "the only parameters supported during prepare are
        dataframes"), so one statement serves every call; COPY and LOAD, whose sources are
        read at prepare, are prepared with their parameters each time. A statement belongs to its
        connection: the cache starts empty whenever the connection is replaced (recycled,
        checkpointed, reopened)."""
        if self._prepared_for is not conn:
            self._prepared, self._prepared_for = {}, conn
        stmt = self._prepared.get(query)
        if stmt is None:
            stmt = self._prepared[query] = PreparedStatement(conn, query)
        return stmt

    def wrote(self) -> None:
        self.writes += 1
        if not self.in_tx and self.writes >= CHECKPOINT_EVERY:
            self.checkpoint()

    def checkpoint(self) -> None:
        """Move the WAL into the database file and replace the connection (its memory)."""
        with self.lock:
            if self.in_tx or self._conn is None:
                return
            self.writes = 0
            self._conn.execute("CHECKPOINT")
            self._recycle()

    def _recycle(self, *, trim: bool = True) -> None:
        assert self._db is not None and self._conn is not None
        self._conn.close()
        self._conn = kuzu.Connection(self._db)
        self._statements = 0
        if trim:  # malloc_trim walks the heap: at checkpoints, not every RECYCLE_EVERY
            release_memory()

    def replace_connection(self) -> None:
        """After a failed BEGIN the connection is unusable (segfault on next use)."""
        with self.lock:
            assert self._db is not None
            self._conn = kuzu.Connection(self._db)
            self._statements = 0

    def reopen(self) -> None:
        """Checkpoint, close the database and open it again: what a rolled-back batch left
        in kuzu's memory goes (StorePool.discard)."""
        with self.lock:
            self.close()
            self._open()

    @property
    def dirty(self) -> bool:
        return self.writes > 0

    def close(self) -> None:
        with self.lock:
            if self._conn is None or self._db is None:
                return
            if self.writes:
                self.checkpoint()
            self._conn.close()
            self._db.close()
            self._conn = self._db = None
            release_memory()

    # ------------------------------------------------------------------ chats it holds
    def chats(self) -> list[str]:
        return chats_in(self.path)

    def add_chat(self, chat: str) -> bool:
        """Register a chat; False when it was already there."""
        chats = self.chats()
        if chat in chats:
            return False
        write_json(self.path / "chats.json", {"chats": [*chats, chat]})
        return True

    def remove_chat(self, chat: str) -> None:
        write_json(self.path / "chats.json", {"chats": [c for c in self.chats() if c != chat]})
        self.rebuilt(chat)

    def to_rebuild(self) -> set[str]:
        return set(read_json(self.path / "rebuild.json", []))

    def rebuilt(self, chat: str) -> None:
        pending = self.to_rebuild()
        if chat in pending:
            write_json(self.path / "rebuild.json", sorted(pending - {chat}))

    # ------------------------------------------------------------------ compaction
    def compaction_due(self) -> bool:
        """True when the file has grown well beyond what it held after its last compaction
        (COMPACT_RATIO times that, plus COMPACT_SLACK; a shard never compacted counts from
        zero), so that disk stays proportional to the data: Kùzu keeps deleted rows' bytes,
        pages a checkpoint freed, over-allocated column chunks, and the full-capacity CSR
        headers of rel tables filled before seeding (see _seed). Compacting at a fixed ratio
        of growth keeps the total work linear in the data. Not beyond COMPACT_MAX: measured,
        a compaction of 101 MB (20 chats of 1,000 messages) takes 4.4-4.9 s and RSS peaks
        220-315 MB above the open shard (1,000 messages: 0.5-0.6 s, +60-80 MB), so a bigger
        shard is compacted only by /forget all."""
        size = self.file.stat().st_size
        done = read_json(self.path / "compacted.json", {"bytes": 0})
        if done.get("erased"):  # a user's erase request: its bytes go, whatever the size
            return True
        return int(done["bytes"]) * COMPACT_RATIO + COMPACT_SLACK < size <= COMPACT_MAX

    def erased(self) -> None:
        """A chat erased some of its data (core/store/history.py's erase): the next quiet
        moment compacts the shard, so those bytes are gone from the files too (compact
        writes compacted.json again, without the mark; kept across a restart until then)."""
        done = read_json(self.path / "compacted.json", {"bytes": 0})
        write_json(self.path / "compacted.json", {**done, "erased": True})

    def compact(self) -> tuple[int, int]:
        """Rebuild the shard's file from what it holds now, so deleted rows' bytes are gone
        from disk (Kùzu has no VACUUM: a deleted node's strings stay in its pages) and its
        tables are laid out as COPY lays them (compressed). EXPORT DATABASE, IMPORT into a
        new file beside it, then swap: a crash before the swap keeps the old file, one after
        it finds the new one (_finish_compaction). Measured: see compaction_due; a 200k-node
        shard without vectors: export 0.7 s + import 0.9 s. Returns the file's bytes (before,
        after)."""
        with self.lock:
            work = self.path / "compact.tmp"
            if "'" in str(work):  # EXPORT/IMPORT take a literal path, not a parameter
                raise StoreError(f"cannot compact a shard under a path with a quote: {work}")
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            self.checkpoint()
            before = self.file.stat().st_size
            self.conn.execute(f"EXPORT DATABASE '{work / 'export'}' (format='parquet')")
            self.close()  # its buffer pool's pages go before the import fills another one
            try:
                self._import(work)
                shutil.rmtree(work / "export")
                old = work / "old"
                old.mkdir()
                for f in self.path.glob("graph.kz*"):
                    f.rename(old / f.name)
                (work / "graph.kz").rename(self.file)  # the swap
                _fsync_dir(self.path)
            finally:  # the shard stays usable whatever happened: old file or new
                self._finish_compaction()
                self._open()
                release_memory()  # what export and import left in malloc's arenas
            after = self.file.stat().st_size
            write_json(self.path / "compacted.json", {"bytes": after})
            return before, after

    def _import(self, work: Path) -> None:
        db = open_database(work / "graph.kz", self._pool_bytes)
        try:
            conn = kuzu.Connection(db)
            try:
                conn.execute(f"IMPORT DATABASE '{work / 'export'}'")
            finally:
                conn.close()
        finally:
            db.close()

    def _finish_compaction(self) -> None:
        work = self.path / "compact.tmp"
        if not work.exists():
            return
        new = work / "graph.kz"
        if not self.file.exists() and new.exists():  # crashed between the two renames
            new.rename(self.file)
            _fsync_dir(self.path)
        shutil.rmtree(work)


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (a power cut could otherwise undo the swap)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
