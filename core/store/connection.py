"""Kùzu plumbing for one chat's view of its shard (core/store/shard.py): statements scoped to
the chat, transactions, checkpoints. The chat store's layers build on this one
(core/store/kuzu_store.py).

Every statement that names `$chat` gets the chat's tag as that parameter, and every primary
key a statement looks up is chat-scoped with `_u` (the INT64 key of `<tag>:<id>`,
core/store/keys.py); ids in the rows returned and in the in-memory indexes stay as the core
knows them. All statements are parameterised. Vectors of messages and entities are stored
packed (core/store/packed.py): write them with `_packed`, read them with `_vectors`.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from core.errors import StoreError
from core.store.active_graph import ActiveGraph
from core.store.keys import node_key
from core.store.packed import pack_vector, unpack_vector
from core.store.shard import ShardDb

log = logging.getLogger(__name__)

MIN_POOL_MB = 32
# a write whose text matches this may change active facts or mentions: drop the ActiveGraph
_TOUCHES_GRAPH = re.compile(r"FACT|MENTIONS|DELETE|COPY")


def _utc(ts: datetime | None) -> datetime | None:
    if ts is None:
        return None
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def _naive(ts: datetime) -> datetime:
    """Kùzu TIMESTAMP holds naive UTC."""
    return ts.astimezone(UTC).replace(tzinfo=None) if ts.tzinfo else ts


def pool_size(cap_mb: int) -> int:
    """Buffer pool for one shard database.

    Measured on kuzu 0.11.3: the pool is reserved, not touched, at open (an empty database
    costs ~36 MiB RSS with a 16, 32 or 64 MiB pool alike), so a generous pool costs a small
    shard nothing; but a pool smaller than the data fails CHECKPOINT with "buffer pool is
    full" (100k facts in 32 MiB). So one fixed size, large enough for big shards.
    """
    return int(max(cap_mb, MIN_POOL_MB) << 20)


class KuzuConnection:
    """A chat's statements on its shard: scoped by its tag, serialised by the shard's lock."""

    shard: ShardDb
    tag: str  # the chat's tag in the shard (core/store/shard.py's chat_tag)
    dim: int
    _in_tx: bool
    _graph: ActiveGraph | None  # loaded on first read (see ActiveGraph)
    _graph_sync: bool  # True while write_facts keeps the graph in step itself

    def _u(self, item_id: str) -> int:
        """The chat-scoped primary key of a node of this chat."""
        return node_key(f"{self.tag}:{item_id}")

    def _us(self, ids: Iterable[str]) -> list[int]:
        return [node_key(f"{self.tag}:{i}") for i in ids]

    @staticmethod
    def _packed(vec: npt.NDArray[np.float32] | None) -> str:
        """A message's or entity's vector as its `emb` column stores it."""
        return pack_vector(vec)

    def _as_stored(self, vec: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The vector as the chat reads it back once it is stored (packed, then unpacked), so
        an in-memory index holds the same vectors before and after the chat is loaded again."""
        back = unpack_vector(pack_vector(vec), self.dim)
        return vec if back is None else back

    @property
    def attached(self) -> bool:
        """The shard stays open: a chat's view is always attached."""
        return True

    def attach(self) -> None:
        return None

    def detach(self) -> None:
        """Checkpoint the shard (what closing a per-chat handle used to free)."""
        self.checkpoint()

    def close(self) -> None:
        return None

    def _params(self, query: str, params: dict[str, Any] | None) -> dict[str, Any]:
        # Kùzu refuses a parameter the statement does not name, so $chat only where named
        out = dict(params or {})
        if "$chat" in query:
            out["chat"] = self.tag
        return out

    def _rows(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        with self.shard.lock:
            result = self.shard.execute(query, self._params(query, params))
            rows: list[list[Any]] = []
            while result.has_next():
                rows.append(result.get_next())  # type: ignore[arg-type]
            return rows

    def _exec(self, query: str, params: dict[str, Any] | None = None) -> None:
        with self.shard.lock:
            self.shard.execute(query, self._params(query, params))
            if self._graph is not None and not self._graph_sync and _TOUCHES_GRAPH.search(query):
                self._graph = None
            self.shard.wrote()

    @property
    def dirty(self) -> bool:
        """Writes of the shard since its last checkpoint. Until a checkpoint Kùzu keeps them
        in memory as well as in the WAL (~20 MB for a chat's first messages, measured)."""
        return self.shard.dirty

    def checkpoint(self) -> None:
        """Checkpoint the shard now (the pool calls this for a shard gone quiet)."""
        if self.shard.dirty and not self._in_tx:
            self.shard.checkpoint()

    def _checkpoint(self) -> None:
        self.shard.checkpoint()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_tx:  # nested (a message with its facts, a bulk batch): the outer commits
            yield
            return
        with self.shard.lock:  # one writer per shard: other chats' writes wait
            self._in_tx = self.shard.in_tx = True
            try:
                yield from self._transaction()
            finally:
                self._in_tx = self.shard.in_tx = False
            if self.shard.writes >= 200:
                self.shard.checkpoint()

    def _commit_and_begin(self) -> None:
        """Inside the outermost transaction (its lock held): commit what it wrote so far and
        begin the next one, which the outer transaction then commits or rolls back."""
        self.shard.execute("COMMIT", {})
        self.shard.wrote()
        self.shard.execute("BEGIN TRANSACTION", {})

    def _transaction(self) -> Iterator[None]:
        try:
            self.shard.execute("BEGIN TRANSACTION", {})
        except RuntimeError as exc:
            self.shard.replace_connection()
            raise StoreError(f"cannot begin a write transaction: {exc}") from exc
        try:
            yield
        except BaseException:
            with contextlib.suppress(RuntimeError):  # Kùzu may have rolled back already
                self.shard.execute("ROLLBACK", {})
            raise
        self.shard.execute("COMMIT", {})
        self.shard.wrote()

    def _vectors(
        self, query: str, params: dict[str, Any] | None = None
    ) -> Iterator[tuple[list[Any], npt.NDArray[np.float32] | None]]:
        """Rows whose last column is an embedding (packed text, or a FLOAT[] centroid);
        mismatched dimensions yield None."""
        for row in self._rows(query, params):
            emb = row[-1]
            if isinstance(emb, str):
                yield row[:-1], unpack_vector(emb, self.dim)
                continue
            vec = (
                np.asarray(emb, dtype=np.float32)
                if emb is not None and len(emb) == self.dim
                else None
            )
            yield row[:-1], vec
