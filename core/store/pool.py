"""Per-chat stores: one lock per chat, two LRUs, chat keys mapped to directories.

Every operation on a chat runs in a worker thread while holding that chat's lock, so a chat's
reads and writes never race (Kùzu allows one writer) while different chats run in parallel.

Two bounds, because a chat has two parts with different costs (measured, kuzu 0.11.3): its
database handle costs ~20-45 MB and re-opens in ~7 ms whatever the chat's size; its in-memory
indexes (vectors, words, entity maps) are small for most chats and take seconds to rebuild for
big ones. `max_open` bounds the handles (the least recently used is detached: checkpointed and
closed, indexes kept); `max_cached` bounds the chats kept in memory at all.

The handle bound is soft for chats in use: a chat used within the last `idle_checkpoint_s`
keeps its handle, up to `max_open_burst` handles, and is detached once it goes quiet. Measured
in-process with 20 chats busy at once and max_open 4, a strict bound re-opened a handle (and
checkpointed another) on nearly every message: 12 ops/s against 69 with all open. But
`max_open_burst` is a hard bound, enforced before a handle opens (see _make_room), and small by
default (4): through Telegram with 50 busy chats, every open handle is ~45 MB of RSS, and 32 of
them took the bot with its model from ~450 MB to ~1.6-1.9 GB (README, "Many chats at once").
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import shutil
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from core.errors import InvalidInput, StoreError
from core.ports import GraphStore, GraphStores, Vector
from core.store.kuzu_store import ChatStore

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_CHAT_KEY = 200


def chat_dirname(chat: str) -> str:
    # a hash, not the key itself: keys come from users' platforms and must not become paths
    return hashlib.sha256(chat.encode()).hexdigest()[:24]


# Kùzu errors at open that say nothing about the files: another process holds the database,
# or memory ran short. Such a chat is reported, never set aside.
_NOT_BROKEN = ("Could not set lock", "Buffer manager exception")


def set_aside(path: Path) -> Path:
    """Move a chat's unreadable files aside (never deleted: someone may want them back)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    path.rename(aside)
    return aside


class StorePool:
    def __init__(
        self,
        root: Path,
        *,
        dim: int,
        model_name: str,
        max_open: int = 4,
        max_cached: int = 256,
        max_open_burst: int = 4,
        buffer_pool_mb: int = 256,
        idle_checkpoint_s: float = 2.0,
    ) -> None:
        self.root = root / "chats"
        self.root.mkdir(parents=True, exist_ok=True)
        self.dim = dim
        self.model_name = model_name
        self.max_open = max_open
        self.max_cached = max(max_cached, max_open)
        self.max_open_burst = max(max_open_burst, max_open)
        self._used: dict[str, float] = {}  # chat -> loop time of its last operation
        self.buffer_pool_mb = buffer_pool_mb
        self.idle_checkpoint_s = idle_checkpoint_s
        self._idle: dict[str, asyncio.TimerHandle] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._open: OrderedDict[str, ChatStore] = OrderedDict()  # cached chats, LRU
        self._attached: OrderedDict[str, None] = OrderedDict()  # chats with an open handle, LRU
        self._locks: dict[str, asyncio.Lock] = {}
        self._freed = asyncio.Event()  # set (and replaced) when an operation ends
        self._single_valued: frozenset[str] = frozenset()
        self._embed: Callable[[list[str]], Vector] | None = None
        self._on_created: Callable[[str], None] | None = None
        self._can_rebuild: Callable[[str], bool] = lambda chat: False
        self._rebuild: Callable[[str, GraphStore], None] | None = None

    def configure(
        self, *, single_valued: frozenset[str], embed: Callable[[list[str]], Vector]
    ) -> None:
        """The ontology's cardinality-one predicates, and the embedder that re-embeds a chat
        written with another model when it opens (Core calls this once)."""
        self._single_valued = single_valued
        self._embed = embed

    def _lock(self, chat: str) -> asyncio.Lock:
        lock = self._locks.get(chat)
        if lock is None:
            lock = self._locks[chat] = asyncio.Lock()
        return lock

    def path(self, chat: str) -> Path:
        return self.root / chat_dirname(chat)

    def exists(self, chat: str) -> bool:
        return (self.path(chat) / "chat.json").exists()

    def chats(self) -> list[str]:
        out = []
        for meta in sorted(self.root.glob("*/chat.json")):
            if ".broken-" in meta.parent.name:  # set aside, see set_aside
                continue
            try:
                out.append(str(json.loads(meta.read_text())["chat"]))
            except (OSError, ValueError, KeyError):
                log.warning("unreadable chat metadata at %s", meta)
        return out

    def _open_store(self, chat: str) -> ChatStore:
        store = self._open.get(chat)
        if store is not None:
            self._open.move_to_end(chat)
            store.attach()
            return store
        path = self.path(chat)
        try:
            store = self._new_store(path)
        except RuntimeError as exc:  # Kùzu could not open (or replay the WAL of) the database
            if any(cause in str(exc) for cause in _NOT_BROKEN):
                raise StoreError(f"the chat's database is busy: {exc}") from exc
            if self._rebuild is None or not self._can_rebuild(chat):
                raise StoreError(f"the chat's database cannot be opened: {exc}") from exc
            aside = set_aside(path)
            log.warning(
                "chat database %s cannot be opened (%s): moved to %s, rebuilding it from the "
                "inbound log",
                path.name,
                str(exc).splitlines()[0][:200],
                aside.name,
            )
            store = self._new_store(path)
            store.rebuild = True
        meta = path / "chat.json"
        if not meta.exists():
            if self._on_created is not None:
                self._on_created(chat)
            meta.write_text(json.dumps({"chat": chat}))
        self._open[chat] = store
        store.single_valued = self._single_valued
        if store.model_mismatch is not None and self._embed is not None:
            log.warning(
                "chat=%s was embedded with %s: re-embedding with %s",
                chat,
                store.model_mismatch[0],
                self.model_name,
            )
            store.reembed(self._embed)
        if store.rebuild and self._rebuild is not None:
            self._rebuild(chat, store)
            store.rebuild = False
        return store

    def _new_store(self, path: Path) -> ChatStore:
        return ChatStore(
            path, dim=self.dim, model_name=self.model_name, buffer_pool_mb=self.buffer_pool_mb
        )

    def recover_with(
        self,
        *,
        on_created: Callable[[str], None],
        can_rebuild: Callable[[str], bool],
        rebuild: Callable[[str, GraphStore], None],
    ) -> None:
        """A chat whose database cannot be opened is set aside and rebuilt, when
        `can_rebuild(chat)` says its durable record holds it, by `rebuild(chat, fresh store)`
        (in the worker thread, under the chat's lock); otherwise opening it is a StoreError."""
        self._on_created = on_created
        self._can_rebuild = can_rebuild
        self._rebuild = rebuild

    async def _evict(self) -> None:
        """Detach the least recently used handles beyond max_open, then drop the least
        recently used chats beyond max_cached, each under its chat's lock, so a chat is never
        used while its handle is closing. A chat in use is skipped (it is recent anyway)."""
        now = asyncio.get_running_loop().time()
        for chat in list(self._attached):
            if len(self._attached) <= self.max_open:
                break
            busy = now - self._used.get(chat, 0.0) < self.idle_checkpoint_s
            if busy and len(self._attached) <= self.max_open_burst:
                break  # the least recent is in use, so all are: detached once quiet
            lock = self._lock(chat)
            if lock.locked():
                continue
            async with lock:
                if chat in list(self._attached)[-self.max_open :]:
                    continue  # used again while we waited
                self._attached.pop(chat, None)
                store = self._open.get(chat)
                if store is not None:
                    await asyncio.to_thread(store.detach)
        for chat in list(self._open):
            if len(self._open) <= self.max_cached:
                break
            lock = self._lock(chat)
            if lock.locked():
                continue
            async with lock:
                await self._drop(chat)

    async def _drop(self, chat: str) -> None:
        """Forget a chat's store and close it; the caller holds the chat's lock."""
        self._attached.pop(chat, None)
        self._used.pop(chat, None)
        store = self._open.pop(chat, None)
        if store is not None:
            await asyncio.to_thread(store.close)

    async def run(self, chat: str, fn: Callable[[ChatStore], T]) -> T:
        """Run fn(store) in a worker thread while holding the chat's lock."""
        if not chat or len(chat) > MAX_CHAT_KEY:
            raise InvalidInput("bad chat key")
        try:
            async with self._lock(chat):
                if chat not in self._attached:
                    await self._make_room()
                # counted before the handle opens, so chats opening at once see each other
                self._attached[chat] = None
                self._attached.move_to_end(chat)
                try:
                    store = await asyncio.to_thread(self._open_store, chat)
                except BaseException:
                    self._attached.pop(chat, None)
                    raise
                result = await asyncio.to_thread(fn, store)
                self._used[chat] = asyncio.get_running_loop().time()
                if store.dirty or len(self._attached) > self.max_open:
                    self._checkpoint_when_idle(chat)
        finally:
            self._room_freed()
        if len(self._attached) > self.max_open or len(self._open) > self.max_cached:
            await self._evict()
        return result

    async def _make_room(self) -> None:
        """Wait until one more handle fits under max_open_burst, detaching the least recently
        used handle of a chat not in use, or waiting for a chat to finish. The bound holds
        when the handle opens, not after the operation: measured through Telegram with 50
        busy chats, handles opened faster than the evictions after each operation closed
        them (24 open, 1.3-1.9 GB RSS at ~45 MB each) whatever max_open_burst said."""
        while len(self._attached) >= self.max_open_burst:
            victim = next((c for c in self._attached if not self._lock(c).locked()), None)
            if victim is None:  # every handle is in use: wait for one operation to end
                freed = self._freed
                # the timeout covers a lock released by a path that does not signal
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(freed.wait(), 0.1)
                continue
            async with self._lock(victim):
                store = self._open.get(victim)
                if store is not None:
                    await asyncio.to_thread(store.detach)
                # dropped from the count only once closed: the handle's memory is gone
                self._attached.pop(victim, None)

    def _room_freed(self) -> None:
        self._freed.set()
        self._freed = asyncio.Event()

    @property
    def attached(self) -> int:
        return len(self._attached)

    def _checkpoint_when_idle(self, chat: str) -> None:
        """Checkpoint a chat once it has been quiet for idle_checkpoint_s. Kùzu holds a
        chat's recent writes in memory until a checkpoint (~20 MB for a chat's first messages,
        measured) and a checkpoint takes 35-85 ms (1k-100k facts), too slow for every message
        but free for a chat nobody is talking to. Every operation restarts the timer."""
        if self.idle_checkpoint_s <= 0:
            return
        timer = self._idle.pop(chat, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._idle[chat] = loop.call_later(self.idle_checkpoint_s, self._idle_fired, chat)

    def _idle_fired(self, chat: str) -> None:
        self._idle.pop(chat, None)
        task = asyncio.get_running_loop().create_task(self._idle_checkpoint(chat))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _idle_checkpoint(self, chat: str) -> None:
        """A chat went quiet: checkpoint it, then detach the handles a burst left open
        beyond max_open."""
        lock = self._lock(chat)
        if lock.locked():  # busy again: its operation re-arms the timer
            return
        async with lock:
            store = self._open.get(chat)
            if store is not None and store.dirty:
                try:
                    await asyncio.to_thread(store.checkpoint)
                except Exception:  # the WAL still has the writes; the next checkpoint retries
                    log.warning("idle checkpoint of a chat failed", exc_info=True)
        if len(self._attached) > self.max_open:
            await self._evict()

    async def release(self, chat: str) -> None:
        """Detach a chat's database handle now (checkpoint, close; indexes kept). Kùzu 0.11
        holds memory for a handle's writes until it is closed, checkpoint or not: a bulk import
        grew by ~100 MB per 256 facts on one handle and stayed at ~400 MB when it released the
        handle after each batch (measured); the next operation re-attaches in ~15 ms."""
        async with self._lock(chat):
            self._attached.pop(chat, None)
            store = self._open.get(chat)
            if store is not None:
                await asyncio.to_thread(store.detach)

    async def discard(self, chat: str) -> None:
        """Forget a chat's in-memory indexes (after a rolled-back bulk write left them ahead of
        the database); the next operation reloads them from disk."""
        async with self._lock(chat):
            await self._drop(chat)

    async def delete(self, chat: str) -> None:
        async with self._lock(chat):
            await self._drop(chat)
            await asyncio.to_thread(shutil.rmtree, self.path(chat), True)

    async def close(self) -> None:
        for timer in self._idle.values():
            timer.cancel()
        self._idle.clear()
        for task in list(self._background):
            await task
        for chat in list(self._open):
            async with self._lock(chat):
                await self._drop(chat)


def _implements_ports(pool: StorePool, store: ChatStore) -> tuple[GraphStores, GraphStore]:
    """Never called: mypy checks here that the adapters implement the ports they stand for."""
    return pool, store
