"""Kùzu plumbing for one chat database: the handle's life (attach, detach, checkpoint),
statements and transactions. The chat store's layers build on this one (core/store/kuzu_store.py).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import kuzu
import numpy as np
import numpy.typing as npt

from core.errors import StoreError
from core.store.active_graph import ActiveGraph
from core.store.memory import release_memory

log = logging.getLogger(__name__)

MIN_POOL_MB = 32
# a write whose text matches this may change active facts or mentions: drop the ActiveGraph
_TOUCHES_GRAPH = re.compile(r"FACT|MENTIONS|DELETE|COPY")
CHECKPOINT_EVERY = 200  # write statements between explicit checkpoints (see _checkpoint)


def _utc(ts: datetime | None) -> datetime | None:
    if ts is None:
        return None
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def _naive(ts: datetime) -> datetime:
    """Kùzu TIMESTAMP holds naive UTC."""
    return ts.astimezone(UTC).replace(tzinfo=None) if ts.tzinfo else ts


def pool_size(cap_mb: int) -> int:
    """Buffer pool for one chat database.

    Measured on kuzu 0.11.3: the pool is reserved, not touched, at open (an empty chat costs
    ~36 MiB RSS with a 16, 32 or 64 MiB pool alike), so a generous pool costs a small chat
    nothing; but a pool smaller than the chat's data fails CHECKPOINT with "buffer pool is
    full" (100k facts in 32 MiB). So one fixed size, large enough for big chats.
    """
    return int(max(cap_mb, MIN_POOL_MB) << 20)


class KuzuConnection:
    """A chat database handle that can be detached and re-attached, with its write count."""

    path: Path
    dim: int
    _pool_bytes: int
    _db: kuzu.Database | None
    _conn_: kuzu.Connection | None
    _writes: int
    _in_tx: bool
    _graph: ActiveGraph | None  # loaded on first read (see ActiveGraph)
    _graph_sync: bool  # True while write_facts keeps the graph in step itself

    # The database handle and the in-memory indexes have separate lives. The handle is what
    # costs memory (~20-45 MB in Kùzu 0.11, see the module docstring) and is cheap to get back
    # (6.7 ms to open a chat of 1k or of 100k facts, measured); the indexes are cheap to keep
    # and slow to rebuild (3.3 s at 100k facts). So the pool detaches the handle of a chat
    # that is not in use and keeps its indexes; the next operation re-attaches it. Nothing
    # else writes the file meanwhile (one process owns the data directory), so the indexes
    # stay true.
    # The database handle and the in-memory indexes have separate lives. The handle is what
    # costs memory (~20-45 MB in Kùzu 0.11, see the module docstring) and is cheap to get back
    # (6.7 ms to open a chat of 1k or of 100k facts, measured); the indexes are cheap to keep
    # and slow to rebuild (3.3 s at 100k facts). So the pool detaches the handle of a chat
    # that is not in use and keeps its indexes; the next operation re-attaches it. Nothing
    # else writes the file meanwhile (one process owns the data directory), so the indexes
    # stay true.
    @property
    def attached(self) -> bool:
        return self._conn_ is not None

    def attach(self) -> None:
        if self._conn_ is not None:
            return
        self._db = kuzu.Database(
            str(self.path / "graph.kz"),
            buffer_pool_size=self._pool_bytes,
            max_db_size=1 << 36,  # 64 GiB of address space, not the default 8 TiB
        )
        self._conn_ = kuzu.Connection(self._db)

    def detach(self) -> None:
        """Close the database handle (checkpointing first), keep the in-memory indexes."""
        if self._conn_ is None or self._db is None:
            return
        if self._writes:
            self._checkpoint()
        self._conn_.close()
        self._db.close()
        self._conn_ = self._db = None
        release_memory()

    def close(self) -> None:
        self.detach()

    @property
    def _conn(self) -> kuzu.Connection:
        if self._conn_ is None:
            self.attach()
        assert self._conn_ is not None
        return self._conn_

    def _rows(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        result = self._conn.execute(query, params or {})
        assert not isinstance(result, list)
        rows: list[list[Any]] = []
        while result.has_next():
            rows.append(result.get_next())  # type: ignore[arg-type]
        return rows

    def _exec(self, query: str, params: dict[str, Any] | None = None) -> None:
        self._conn.execute(query, params or {})
        self._writes += 1
        if self._graph is not None and not self._graph_sync and _TOUCHES_GRAPH.search(query):
            self._graph = None
        if not self._in_tx and self._writes >= CHECKPOINT_EVERY:
            self._checkpoint()

    @property
    def dirty(self) -> bool:
        """Writes since the last checkpoint. Until a checkpoint Kùzu keeps them in memory as
        well as in the WAL: ~20 MB of heap for a chat after its first messages (measured)."""
        return self._writes > 0

    def checkpoint(self) -> None:
        """Checkpoint now and give the memory it frees back to the OS (the pool calls this
        for a chat that has gone quiet)."""
        if self._writes and not self._in_tx:
            self._checkpoint()
            release_memory()

    def _checkpoint(self) -> None:
        # Measured on kuzu 0.11.3: every update keeps buffer-pool pages until a checkpoint, and
        # the automatic one (WAL size) comes too late for a small pool: ~460 updates of one
        # node filled a 16 MiB pool ("buffer pool is full"). A checkpoint costs ~1.5 ms.
        self._writes = 0
        self._conn.execute("CHECKPOINT")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_tx:  # nested (a message with its facts, a bulk batch): the outer commits
            yield
            return
        self._in_tx = True
        try:
            yield from self._transaction()
        finally:
            self._in_tx = False
        if self._writes >= CHECKPOINT_EVERY:
            self._checkpoint()

    def _transaction(self) -> Iterator[None]:
        try:
            self._exec("BEGIN TRANSACTION")
        except RuntimeError as exc:
            # a failed BEGIN leaves the connection unusable (segfault on next use): replace it
            assert self._db is not None
            self._conn_ = kuzu.Connection(self._db)
            raise StoreError(f"cannot begin a write transaction: {exc}") from exc
        try:
            yield
        except BaseException:
            with contextlib.suppress(RuntimeError):  # Kùzu may have rolled back already
                self._exec("ROLLBACK")
            raise
        self._exec("COMMIT")

    def _vectors(self, query: str) -> Iterator[tuple[list[Any], npt.NDArray[np.float32] | None]]:
        """Rows whose last column is an embedding; mismatched dimensions yield None."""
        for row in self._rows(query):
            emb = row[-1]
            vec = (
                np.asarray(emb, dtype=np.float32)
                if emb is not None and len(emb) == self.dim
                else None
            )
            yield row[:-1], vec
