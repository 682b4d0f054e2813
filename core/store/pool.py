"""Per-chat stores: one lock per chat, an LRU of open databases, chat keys mapped to directories.

Every operation on a chat runs in a worker thread while holding that chat's lock, so a chat's
reads and writes never race (Kùzu allows one writer) while different chats run in parallel.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import shutil
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from core.errors import InvalidInput
from core.store.kuzu_store import ChatStore

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_CHAT_KEY = 200


def chat_dirname(chat: str) -> str:
    # a hash, not the key itself: keys come from users' platforms and must not become paths
    return hashlib.sha256(chat.encode()).hexdigest()[:24]


class StorePool:
    def __init__(
        self,
        root: Path,
        *,
        dim: int,
        model_name: str,
        max_open: int = 4,
        buffer_pool_mb: int = 256,
        idle_checkpoint_s: float = 2.0,
    ) -> None:
        self.root = root / "chats"
        self.root.mkdir(parents=True, exist_ok=True)
        self.dim = dim
        self.model_name = model_name
        self.max_open = max_open
        self.buffer_pool_mb = buffer_pool_mb
        self.idle_checkpoint_s = idle_checkpoint_s
        self._idle: dict[str, asyncio.TimerHandle] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._open: OrderedDict[str, ChatStore] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self.on_open: Callable[[str, ChatStore], None] | None = None

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
            try:
                out.append(str(json.loads(meta.read_text())["chat"]))
            except (OSError, ValueError, KeyError):
                log.warning("unreadable chat metadata at %s", meta)
        return out

    def _open_store(self, chat: str) -> ChatStore:
        store = self._open.get(chat)
        if store is not None:
            self._open.move_to_end(chat)
            return store
        path = self.path(chat)
        store = ChatStore(
            path, dim=self.dim, model_name=self.model_name, buffer_pool_mb=self.buffer_pool_mb
        )
        meta = path / "chat.json"
        if not meta.exists():
            meta.write_text(json.dumps({"chat": chat}))
        self._open[chat] = store
        if self.on_open is not None:
            self.on_open(chat, store)
        return store

    async def _evict(self) -> None:
        """Close least-recently-used stores beyond max_open, each under its own lock, so a
        chat is never reopened while its old handle is still closing."""
        for chat in list(self._open):
            if len(self._open) <= self.max_open:
                return
            lock = self._lock(chat)
            if lock.locked():
                continue
            async with lock:
                store = self._open.pop(chat, None)
                if store is not None:
                    await asyncio.to_thread(store.close)

    async def run(self, chat: str, fn: Callable[[ChatStore], T]) -> T:
        """Run fn(store) in a worker thread while holding the chat's lock."""
        if not chat or len(chat) > MAX_CHAT_KEY:
            raise InvalidInput("bad chat key")
        async with self._lock(chat):
            store = await asyncio.to_thread(self._open_store, chat)
            result = await asyncio.to_thread(fn, store)
            if store.dirty:
                self._checkpoint_when_idle(chat)
        if len(self._open) > self.max_open:
            await self._evict()
        return result

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
        lock = self._lock(chat)
        if lock.locked():  # busy again: its operation re-arms the timer
            return
        async with lock:
            store = self._open.get(chat)
            if store is None or not store.dirty:
                return
            try:
                await asyncio.to_thread(store.checkpoint)
            except Exception:  # the WAL still has the writes; the next checkpoint retries
                log.warning("idle checkpoint of a chat failed", exc_info=True)

    async def delete(self, chat: str) -> None:
        async with self._lock(chat):
            store = self._open.pop(chat, None)
            if store is not None:
                await asyncio.to_thread(store.close)
            await asyncio.to_thread(shutil.rmtree, self.path(chat), True)

    async def close(self) -> None:
        for timer in self._idle.values():
            timer.cancel()
        self._idle.clear()
        for task in list(self._background):
            await task
        for chat in list(self._open):
            async with self._lock(chat):
                store = self._open.pop(chat, None)
                if store is not None:
                    await asyncio.to_thread(store.close)
