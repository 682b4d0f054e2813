"""SQLite adapter of the durable inbound log (port: core/inbound.py).

Why SQLite: a proven durable log with atomic commits, rather than a file format of our own.
WAL mode with synchronous=FULL makes every commit survive a kill -9 and a power cut (the WAL is
fsynced at each commit), and readers never block the writer. One file for the whole data
directory (`inbound.sqlite3`): records are keyed by chat, and only the core reads them back
for that same chat, so no chat can see another's records.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from core.inbound import RECORD_KINDS, ChatRecord, Delivery

_SCHEMA = """
CREATE TABLE IF NOT EXISTS delivery (
    source TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0,
    received_at REAL NOT NULL, done_at REAL, PRIMARY KEY (source, id));
CREATE INDEX IF NOT EXISTS delivery_open ON delivery (source, done, received_at);
CREATE TABLE IF NOT EXISTS record (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, chat TEXT NOT NULL, id TEXT NOT NULL,
    kind TEXT NOT NULL, author TEXT NOT NULL, text TEXT NOT NULL, ts TEXT NOT NULL,
    triple TEXT NOT NULL DEFAULT '', done INTEGER NOT NULL DEFAULT 0,
    reply_to TEXT NOT NULL DEFAULT '', UNIQUE (chat, id));
CREATE INDEX IF NOT EXISTS record_open ON record (done) WHERE done = 0;
"""
# done deliveries are kept this long to recognise a platform's re-delivery (Telegram keeps an
# unconfirmed update for 24 hours; Slack retries within minutes)
DELIVERY_RETENTION_S = 7 * 24 * 3600


class SqliteInboundLog:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        # one connection shared by threads under a lock: commits are serialised anyway
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            # a deleted row's bytes are overwritten, not left in free pages: /forget all and
            # a handled delivery leave no readable text behind in the file
            self._db.execute("PRAGMA secure_delete=ON")
            self._db.executescript(_SCHEMA)
            columns = {r[1] for r in self._db.execute("PRAGMA table_info(record)")}
            if "reply_to" not in columns:  # a log written before replies were kept
                self._db.execute("ALTER TABLE record ADD COLUMN reply_to TEXT NOT NULL DEFAULT ''")
            self._db.execute(
                "DELETE FROM delivery WHERE done = 1 AND done_at < ?",
                (time.time() - DELIVERY_RETENTION_S,),
            )

    @contextlib.contextmanager
    def _unsynced(self) -> Iterator[None]:
        """A "done" mark is committed without its own fsync (synchronous=NORMAL: it survives
        a kill, a power cut may lose it). Losing one only means the message is processed again
        at start, which finds it stored and changes nothing; it halves the fsyncs per message
        (measured in bench/durable.py)."""
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield
        finally:
            self._db.execute("PRAGMA synchronous=FULL")

    # ------------------------------------------------------------------ deliveries
    def record_deliveries(self, source: str, items: list[tuple[str, str]]) -> None:
        if not items:
            return
        now = time.time()
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT OR IGNORE INTO delivery (source, id, body, received_at) VALUES (?,?,?,?)",
                [(source, i, body, now) for i, body in items],
            )

    def delivery(self, source: str, delivery_id: str) -> Delivery | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body, done FROM delivery WHERE source = ? AND id = ?", (source, delivery_id)
            ).fetchone()
        return None if row is None else Delivery(source, delivery_id, row[0], bool(row[1]))

    def finish_delivery(self, source: str, delivery_id: str) -> None:
        with self._lock, self._unsynced(), self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                # the id is what recognises a re-delivery; the body (the user's text) was
                # only needed to replay an unfinished delivery, so it goes now
                "UPDATE delivery SET done = 1, done_at = ?, body = '' WHERE source = ? AND id = ?",
                (time.time(), source, delivery_id),
            )

    def unfinished_deliveries(self, source: str) -> list[Delivery]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, body FROM delivery WHERE source = ? AND done = 0 "
                "ORDER BY received_at, rowid",
                (source,),
            ).fetchall()
        return [Delivery(source, r[0], r[1], False) for r in rows]

    # ------------------------------------------------------------------ chat records
    def begin(self, record: ChatRecord) -> ChatRecord:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR IGNORE INTO record (chat, id, kind, author, text, ts, triple, reply_to) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (
                    record.chat,
                    record.id,
                    record.kind,
                    record.author,
                    record.text,
                    record.ts.isoformat(),
                    record.triple,
                    record.reply_to,
                ),
            )
            row = self._db.execute(
                f"SELECT {_COLUMNS} FROM record WHERE chat = ? AND id = ?",
                (record.chat, record.id),
            ).fetchone()
        return _record(row)

    def begin_many(self, records: list[ChatRecord]) -> set[str]:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            done = {
                str(r[0])
                for chat in {r.chat for r in records}
                for r in self._db.execute(
                    "SELECT id FROM record WHERE chat = ? AND done = 1 AND id IN "
                    "(SELECT value FROM json_each(?))",
                    (chat, json.dumps([x.id for x in records if x.chat == chat])),
                )
            }
            self._db.executemany(
                "INSERT OR IGNORE INTO record (chat, id, kind, author, text, ts, triple) "
                "VALUES (?,?,?,?,?,?,?)",
                [
                    (r.chat, r.id, r.kind, r.author, r.text, r.ts.isoformat(), r.triple)
                    for r in records
                ],
            )
        return done

    def finish(self, chat: str, record_id: str) -> None:
        self.finish_many(chat, [record_id])

    def finish_many(self, chat: str, record_ids: list[str]) -> None:
        with self._lock, self._unsynced(), self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "UPDATE record SET done = 1 WHERE chat = ? AND id = ?",
                [(chat, i) for i in record_ids],
            )

    def replace_text(self, chat: str, record_id: str, text: str) -> None:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "UPDATE record SET text = ?, done = 0 WHERE chat = ? AND id = ?",
                (text, chat, record_id),
            )

    def records(self, chat: str) -> list[ChatRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM record WHERE chat = ? ORDER BY seq", (chat,)
            ).fetchall()
        return [_record(r) for r in rows]

    def unfinished(self) -> list[ChatRecord]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM record WHERE done = 0 ORDER BY seq"
            ).fetchall()
        return [_record(r) for r in rows]

    def forget_chat(self, chat: str) -> None:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM record WHERE chat = ?", (chat,))
        with self._lock:  # the WAL still holds the deleted pages until a checkpoint
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def erase(self, chat: str, record_ids: list[str]) -> None:
        if not record_ids:
            return
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "DELETE FROM record WHERE chat = ? AND id = ?", [(chat, i) for i in record_ids]
            )
        with self._lock:  # as forget_chat: the WAL holds the deleted pages until a checkpoint
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            self._db.close()


_COLUMNS = "chat, id, kind, author, text, ts, triple, done, reply_to"


def _record(row: tuple[str, str, str, str, str, str, str, int, str]) -> ChatRecord:
    ts = datetime.fromisoformat(row[5])
    return ChatRecord(
        chat=row[0],
        id=row[1],
        kind=next((k for k in RECORD_KINDS if k == row[2]), "message"),
        author=row[3],
        text=row[4],
        ts=ts if ts.tzinfo else ts.replace(tzinfo=UTC),
        triple=row[6],
        done=bool(row[7]),
        reply_to=row[8] or "",
    )
