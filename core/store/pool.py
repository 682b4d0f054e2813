"""Every chat's store: chats hashed onto a few shard databases, one lock per chat and one per
shard, an LRU of chats' in-memory indexes.

A chat lives in shard int(sha256(chat)) % N (core/store/shard.py: why shards, and the measured
costs of one database per chat). Shards open on first use and stay open: an open chat costs only
its indexes. Every operation on a chat runs in a worker thread while holding the chat's lock and
then its shard's lock (always in that order), so a chat's operations never race and a shard has
one writer (Kùzu 0.11 fails a second concurrent write transaction at once); chats of different
shards run in parallel. The shard lock is an asyncio lock taken before the worker thread starts,
first come first served, so chats waiting for a busy shard hold no thread.

`max_cached` bounds the chats whose indexes stay in memory (small for most chats, seconds to
rebuild for big ones). `max_open` and `max_open_burst` bounded per-chat database handles and are
accepted for compatibility only: handles are now the N shards.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from core.errors import InvalidInput, StoreError
from core.ports import GraphStore, GraphStores, Vector
from core.store.connection import pool_size
from core.store.kuzu_store import ChatStore
from core.store.shard import (
    DEFAULT_SHARDS,
    NOT_BROKEN,
    ShardDb,
    chat_tag,
    chats_in,
    read_json,
    shard_dirname,
    shard_of,
    write_json,
)
from core.store.transfer import delete_chat, migrate_legacy

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_CHAT_KEY = 200


def chat_dirname(chat: str) -> str:
    """A chat's directory in the layout of older versions (one database per chat)."""
    return hashlib.sha256(chat.encode()).hexdigest()[:24]


def set_aside(path: Path) -> Path:
    """Move unreadable files aside (never deleted: someone may want them back)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    path.rename(aside)
    return aside


def check_layout(root: Path, shards: int) -> None:
    """Record the number of shards in a new data directory; refuse another number (a chat's
    shard is its hash modulo N: with another N every chat would look empty)."""
    root.mkdir(parents=True, exist_ok=True)
    layout = read_json(root / "layout.json", None)
    if layout is None:
        write_json(root / "layout.json", {"shards": shards})
    elif int(layout["shards"]) != shards:
        raise StoreError(
            f"the data directory holds {layout['shards']} shards, not {shards}: move the chats "
            f"first (python -m bot reshard --shards {shards}) or set GRAPHMEM_SHARDS="
            f"{layout['shards']}"
        )


class StorePool:
    def __init__(
        self,
        root: Path,
        *,
        dim: int,
        model_name: str,
        shards: int = DEFAULT_SHARDS,
        max_open: int = 4,
        max_cached: int = 256,
        max_open_burst: int = 4,
        buffer_pool_mb: int = 256,
        idle_checkpoint_s: float = 2.0,
    ) -> None:
        del max_open, max_open_burst  # per-chat handles are gone (see the module docstring)
        self.data_dir = root
        self.root = root / "shards"
        self.shards = max(1, shards)
        check_layout(self.root, self.shards)
        self.dim = dim
        self.model_name = model_name
        self.max_cached = max_cached
        self.buffer_pool_mb = buffer_pool_mb
        self.idle_checkpoint_s = idle_checkpoint_s
        self._idle: dict[int, asyncio.TimerHandle] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._open: OrderedDict[str, ChatStore] = OrderedDict()  # cached chats, LRU
        self._dbs: dict[int, ShardDb] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._shard_locks: dict[int, asyncio.Lock] = {}
        self._single_valued: frozenset[str] = frozenset()
        self._embed: Callable[[list[str]], Vector] | None = None
        self._on_created: Callable[[str], None] | None = None
        self._can_rebuild: Callable[[str], bool] = lambda chat: False
        self._rebuild: Callable[[str, GraphStore], None] | None = None
        # chats of older versions, one database each, move into their shards once
        migrate_legacy(root / "chats", self.path, self._new_shard)

    def configure(
        self, *, single_valued: frozenset[str], embed: Callable[[list[str]], Vector]
    ) -> None:
        """The ontology's cardinality-one predicates, and the embedder that re-embeds a chat
        written with another model when it opens (Core calls this once)."""
        self._single_valued = single_valued
        self._embed = embed

    def recover_with(
        self,
        *,
        on_created: Callable[[str], None],
        can_rebuild: Callable[[str], bool],
        rebuild: Callable[[str, GraphStore], None],
    ) -> None:
        """A shard whose database cannot be opened is set aside and its chats rebuilt, when
        `can_rebuild(chat)` says the durable record holds every one of them, by
        `rebuild(chat, fresh store)` as each chat is next used (in the worker thread, under
        the chat's and the shard's locks); otherwise opening it is a StoreError."""
        self._on_created = on_created
        self._can_rebuild = can_rebuild
        self._rebuild = rebuild

    def _lock(self, chat: str) -> asyncio.Lock:
        lock = self._locks.get(chat)
        if lock is None:
            lock = self._locks[chat] = asyncio.Lock()
        return lock

    def _shard_lock(self, index: int) -> asyncio.Lock:
        lock = self._shard_locks.get(index)
        if lock is None:
            lock = self._shard_locks[index] = asyncio.Lock()
        return lock

    def shard_index(self, chat: str) -> int:
        return shard_of(chat, self.shards)

    def path(self, chat: str) -> Path:
        """The directory of the shard that holds the chat (its Kùzu files, graph.kz*)."""
        return self.root / shard_dirname(self.shard_index(chat))

    def legacy_path(self, chat: str) -> Path:
        """Where an older version kept the chat's own database (moved in at start)."""
        return self.data_dir / "chats" / chat_dirname(chat)

    def exists(self, chat: str) -> bool:
        return chat in chats_in(self.path(chat))

    def chats(self) -> list[str]:
        return sorted(c for i in range(self.shards) for c in chats_in(self.root / shard_dirname(i)))

    def _new_shard(self, path: Path) -> ShardDb:
        return ShardDb(path, buffer_pool_bytes=pool_size(self.buffer_pool_mb))

    # ------------------------------------------------------------------ opening
    def _shard(self, index: int) -> ShardDb:
        db = self._dbs.get(index)
        if db is not None:
            return db
        path = self.root / shard_dirname(index)
        try:
            db = self._new_shard(path)
        except RuntimeError as exc:  # Kùzu could not open (or replay the WAL of) the shard
            if any(cause in str(exc) for cause in NOT_BROKEN):
                raise StoreError(f"the chat's database is busy: {exc}") from exc
            chats = chats_in(path)
            if self._rebuild is None or not all(self._can_rebuild(c) for c in chats):
                raise StoreError(f"the chat's database cannot be opened: {exc}") from exc
            aside = set_aside(path)
            log.warning(
                "shard database %s cannot be opened (%s): moved to %s, rebuilding its %d chats "
                "from the inbound log",
                path.name,
                str(exc).splitlines()[0][:200],
                aside.name,
                len(chats),
            )
            path.mkdir()
            write_json(path / "chats.json", {"chats": chats})
            write_json(path / "rebuild.json", sorted(chats))
            db = self._new_shard(path)
        self._dbs[index] = db
        return db

    def _open_store(self, chat: str) -> ChatStore:
        """The chat's store (worker thread, chat's and shard's locks held)."""
        store = self._open.get(chat)
        if store is not None:
            self._open.move_to_end(chat)
            return store
        shard = self._shard(self.shard_index(chat))
        store = ChatStore(
            shard.path, dim=self.dim, model_name=self.model_name, shard=shard, chat=chat
        )
        if shard.add_chat(chat) and self._on_created is not None:
            self._on_created(chat)
        store.single_valued = self._single_valued
        if store.model_mismatch is not None and self._embed is not None:
            log.warning(
                "chat=%s was embedded with %s: re-embedding with %s",
                chat,
                store.model_mismatch[0],
                self.model_name,
            )
            store.reembed(self._embed)
        elif store.unembedded and self._embed is not None:
            repaired = store.repair_vectors(self._embed)
            log.warning(
                "chat=%s: %d stored vectors were missing or zero, embedded again", chat, repaired
            )
        if chat in shard.to_rebuild() and self._rebuild is not None:
            store.rebuild = True
            self._rebuild(chat, store)
            store.rebuild = False
            shard.rebuilt(chat)
        self._open[chat] = store
        return store

    # ------------------------------------------------------------------ operations
    async def run(self, chat: str, fn: Callable[[ChatStore], T]) -> T:
        """Run fn(store) in a worker thread while holding the chat's lock, then its shard's."""
        if not chat or len(chat) > MAX_CHAT_KEY:
            raise InvalidInput("bad chat key")
        index = self.shard_index(chat)

        def call() -> T:
            store = self._open_store(chat)
            with store.shard.lock:
                return fn(store)

        async with self._lock(chat), self._shard_lock(index):
            result = await asyncio.to_thread(call)
            db = self._dbs.get(index)
            if db is not None and db.dirty:
                self._checkpoint_when_idle(index)
        if len(self._open) > self.max_cached:
            await self._evict()
        return result

    async def _evict(self) -> None:
        """Forget the least recently used chats' indexes beyond max_cached (a chat in use is
        skipped: it is recent anyway). Nothing to close: the shard stays open."""
        for chat in list(self._open):
            if len(self._open) <= self.max_cached:
                break
            lock = self._lock(chat)
            if lock.locked():
                continue
            async with lock:
                self._open.pop(chat, None)

    @property
    def attached(self) -> int:
        """Open databases: the shards used so far."""
        return len(self._dbs)

    def _checkpoint_when_idle(self, index: int) -> None:
        """Checkpoint a shard once it has been quiet for idle_checkpoint_s. Kùzu holds recent
        writes in memory until a checkpoint (~20 MB for a chat's first messages, measured)
        and a checkpoint takes 35-85 ms, too slow for every message but free for a shard
        nobody is talking to. Every operation on the shard restarts the timer."""
        if self.idle_checkpoint_s <= 0:
            return
        timer = self._idle.pop(index, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._idle[index] = loop.call_later(self.idle_checkpoint_s, self._idle_fired, index)

    def _idle_fired(self, index: int) -> None:
        self._idle.pop(index, None)
        task = asyncio.get_running_loop().create_task(self._idle_checkpoint(index))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _idle_checkpoint(self, index: int) -> None:
        """Checkpoint a quiet shard, then compact it when its file has grown well beyond its
        data (ShardDb.compaction_due). A compaction holds the shard (measured: 0.5-0.6 s for
        a chat of 1,000 messages, 4.4-4.9 s for 20 of them): its chats' operations wait, in
        the event loop's queue; the loop itself runs on (Kùzu releases the GIL: ticks of 10 ms
        were at most 34 ms apart during a 3.3 s compaction)."""
        lock = self._shard_lock(index)
        if lock.locked():  # busy again: its operation re-arms the timer
            return
        async with lock:
            db = self._dbs.get(index)
            if db is None or not db.dirty:
                return
            try:
                await asyncio.to_thread(db.checkpoint)
            except Exception:  # the WAL still has the writes; the next checkpoint retries
                log.warning("idle checkpoint of a shard failed", exc_info=True)
                return
            if not db.compaction_due():
                return
            t0 = time.perf_counter()
            try:
                before, after = await asyncio.to_thread(db.compact)
            except Exception:  # the old file stays in use (ShardDb.compact)
                log.warning("compaction of shard %s failed", db.path.name, exc_info=True)
                return
            log.info(
                "compacted %s: %.1f -> %.1f MB in %.2f s",
                db.path.name,
                before / 2**20,
                after / 2**20,
                time.perf_counter() - t0,
            )

    async def settled(self) -> None:
        """Wait until every shard is quiet: its idle timer fired, its checkpoint and any
        compaction done (benchmarks and tests; nothing in the bot needs to wait)."""
        while self._idle or self._background:
            if self._background:
                await asyncio.gather(*self._background)
            else:
                await asyncio.sleep(0.05)

    async def release(self, chat: str) -> None:
        """Checkpoint the chat's shard now and replace its connection: Kùzu 0.11 holds memory
        for a connection's statements until it is closed (a bulk import grew by ~100 MB per
        256 facts on one handle, measured), so a bulk import calls this after each batch."""
        index = self.shard_index(chat)
        async with self._lock(chat), self._shard_lock(index):
            db = self._dbs.get(index)
            if db is not None:
                await asyncio.to_thread(db.checkpoint)

    async def discard(self, chat: str) -> None:
        """Forget a chat's in-memory indexes (after a rolled-back bulk write left them ahead of
        the database); the next operation reloads them from disk. The shard's database is
        opened again too: after a batch kuzu 0.11.3 rolled back, the lines retried one by one
        failed with "Write-write conflict of updating the same row" and the process then
        died of SIGSEGV (a 10,000-message import, 2 runs of 2); with the database reopened,
        the same import ran to its end with no conflict (1 run: seen, not proven)."""
        index = self.shard_index(chat)
        async with self._lock(chat), self._shard_lock(index):
            self._open.pop(chat, None)
            db = self._dbs.get(index)
            if db is not None:
                await asyncio.to_thread(db.reopen)

    async def delete(self, chat: str) -> None:
        """Erase every node, edge, vector, message and record of the chat, then compact its
        shard so the bytes are gone from the files too (core/store/shard.py's compact)."""
        index = self.shard_index(chat)
        async with self._lock(chat), self._shard_lock(index):
            self._open.pop(chat, None)
            if not self.exists(chat):
                return

            def erase() -> None:
                shard = self._shard(index)
                delete_chat(shard, chat_tag(chat))
                shard.remove_chat(chat)
                shard.compact()

            await asyncio.to_thread(erase)

    async def close(self) -> None:
        for timer in self._idle.values():
            timer.cancel()
        self._idle.clear()
        for task in list(self._background):
            await task
        for index in list(self._dbs):
            async with self._shard_lock(index):
                db = self._dbs.pop(index)
                await asyncio.to_thread(db.close)
        self._open.clear()


def _implements_ports(pool: StorePool, store: ChatStore) -> tuple[GraphStores, GraphStore]:
    """Never called: mypy checks here that the adapters implement the ports they stand for."""
    return pool, store
