"""A scriptable stand-in for the core, for front-end behaviour the real core cannot easily
produce (a 10,000-character answer, a crash, a slow answer).

It implements core.contract.CoreApi, the contract the front-ends call, and `make lint` type-checks
this file: a stub that drifts from the contract fails there (see _implements_contract)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

from core.contract import CoreApi, Leads
from core.errors import CoreError
from core.inbound import InboundLog
from core.language import detect_language
from core.models import (
    Answer,
    FactView,
    Forgotten,
    ImportItem,
    IncomingMessage,
    IngestResult,
    PendingFact,
    Reply,
    Trace,
    TripleIn,
    WorldInfo,
)
from core.ports import Remembers


class StubCore(Remembers):
    handoff: Leads | None = None
    inbound: InboundLog | None = None  # no durable log: front-ends acknowledge at once

    def __init__(
        self, *, reply_text: str = "ok", fail: Exception | None = None, delay: float = 0.0
    ) -> None:
        self.reply_text = reply_text
        self.fail = fail
        self.delay = delay
        self.calls: list[tuple[str, str, str]] = []  # (method, chat, text)
        self.started = asyncio.Event()

    async def handle_message(self, chat: str, message: IncomingMessage) -> Reply:
        text = message.text
        self.calls.append(("handle_message", chat, text))
        self.started.set()
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        return Reply(kind="answer", text=self.reply_text)

    def _unscripted(self, method: str, chat: str, text: str = "") -> NoReturn:
        self.calls.append((method, chat, text))
        raise AssertionError(f"the stub core does not {method}")

    async def remember_message(self, chat: str, message: IncomingMessage) -> IngestResult:
        self._unscripted("remember", chat, message.text)

    async def observe(self, chat: str, message: IncomingMessage) -> IngestResult:
        self._unscripted("observe", chat, message.text)

    async def ask(self, chat: str, question: str, *, author: str | None = None) -> Answer:
        self._unscripted("ask", chat, question)

    async def remember_triple(
        self, chat: str, triple: TripleIn, *, author: str = "user", message_id: str | None = None
    ) -> IngestResult:
        self._unscripted("remember_triple", chat)

    async def remember_many(
        self, chat: str, items: Sequence[ImportItem]
    ) -> list[IngestResult | CoreError]:
        self._unscripted("remember_many", chat)

    async def why(self, chat: str, trace_id: str | None = None) -> Trace | None:
        self._unscripted("why", chat)

    async def facts(
        self, chat: str, entity: str | None = None, *, limit: int = 50, history: bool = False
    ) -> list[FactView]:
        self._unscripted("facts", chat)

    async def forget_entity(self, chat: str, name: str) -> Forgotten:
        self._unscripted("forget_entity", chat, name)

    async def forget_preview(self, chat: str, name: str) -> Forgotten:
        self._unscripted("forget_preview", chat, name)

    async def finish_forget(self, chat: str, name: str, record_id: str) -> Forgotten:
        self._unscripted("finish_forget", chat, name)

    async def forget_chat(self, chat: str) -> None:
        self._unscripted("forget_chat", chat)

    async def pending(self, chat: str) -> list[PendingFact]:
        self._unscripted("pending", chat)

    async def review(self, chat: str, pending_id: str, approve: bool) -> FactView | None:
        self._unscripted("review", chat)

    async def worlds(self, chat: str) -> list[WorldInfo]:
        self._unscripted("worlds", chat)

    async def language(self, chat: str, text: str = "") -> str:
        return detect_language(text)

    async def export(self, chat: str) -> dict[str, Any]:
        self._unscripted("export", chat)

    async def stats(self, chat: str) -> dict[str, int]:
        self._unscripted("stats", chat)

    def has_chat(self, chat: str) -> bool:
        return False

    async def correct(
        self, chat: str, *, message_id: str, author: str, text: str, ts: datetime | None = None
    ) -> IngestResult:
        self._unscripted("correct", chat, text)

    async def restore_message(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str,
        ts: datetime | None,
        reply_to: str | None = None,
    ) -> IngestResult:
        self._unscripted("restore_message", chat, text)

    async def restore_fact(self, chat: str, fact: FactView) -> bool:
        self._unscripted("restore_fact", chat)

    def chats(self) -> list[str]:
        return []

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int:
        self._unscripted("retry_failed_extractions", chat)

    async def decay(self, chat: str, *, half_life: timedelta, floor: float) -> int:
        self._unscripted("decay", chat)

    async def merge_worlds(self, chat: str) -> list[tuple[str, str]]:
        self._unscripted("merge_worlds", chat)

    async def regroup_worlds(self, chat: str) -> dict[str, int]:
        self._unscripted("regroup_worlds", chat)

    async def remove_dead_worlds(self, chat: str, *, idle: timedelta) -> list[str]:
        self._unscripted("remove_dead_worlds", chat)

    async def close(self) -> None:
        return None


def _implements_contract(stub: StubCore) -> CoreApi:
    """Never called: mypy checks here that the stub still is what the front-ends call."""
    return stub
