"""Hand-off records in one SQLite file (the HandoffRepository port's adapter).

Why SQLite and not Kùzu: hand-offs are cross-chat operational records (a manager's /leads spans
every client chat), so they cannot live in a client's per-chat graph; "first manager wins"
needs an atomic compare-and-set, which one SQLite UPDATE inside a transaction gives.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from core.models import HandOff
from core.ports import HandoffRepository


class HandoffStore:
    """Hand-offs in one SQLite file; every method is blocking (call from a thread)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS handoff (id TEXT PRIMARY KEY, chat TEXT NOT NULL, "
            "client_key TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL, "
            "body TEXT NOT NULL)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS handoff_client ON handoff(chat, client_key)")
        self._db.execute("CREATE INDEX IF NOT EXISTS handoff_status ON handoff(status)")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def save(self, h: HandOff) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO handoff(id, chat, client_key, status, created_at, body) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET status = excluded.status, "
                "body = excluded.body",
                (
                    h.id,
                    h.chat,
                    h.client_key,
                    h.status,
                    h.created_at.isoformat(),
                    h.model_dump_json(),
                ),
            )

    def get(self, handoff_id: str) -> HandOff | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM handoff WHERE id = ?", (handoff_id,)
            ).fetchone()
        return HandOff.model_validate_json(row[0]) if row else None

    def latest_for(self, chat: str, client_key: str) -> HandOff | None:
        """The newest hand-off of this client in this chat that is not closed."""
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM handoff WHERE chat = ? AND client_key = ? AND status != 'closed' "
                "ORDER BY created_at DESC LIMIT 1",
                (chat, client_key),
            ).fetchone()
        return HandOff.model_validate_json(row[0]) if row else None

    def by_status(self, statuses: Sequence[str], limit: int = 100) -> list[HandOff]:
        marks = ",".join("?" * len(statuses))
        with self._lock:
            rows = self._db.execute(
                f"SELECT body FROM handoff WHERE status IN ({marks}) "
                "ORDER BY created_at DESC LIMIT ?",
                (*statuses, limit),
            ).fetchall()
        return [HandOff.model_validate_json(r[0]) for r in rows]

    def needing_work(self) -> list[HandOff]:
        """Open hand-offs (deliveries, reminders) and any with a failed card edit."""
        with self._lock:
            rows = self._db.execute(
                "SELECT body FROM handoff WHERE status = 'open' OR body LIKE '%\"stale\":[\"%' "
                "ORDER BY created_at"
            ).fetchall()
        return [HandOff.model_validate_json(r[0]) for r in rows]


def _implements_port(store: HandoffStore) -> HandoffRepository:
    """Never called: mypy checks here that the SQLite adapter implements the port."""
    return store
