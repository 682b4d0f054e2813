"""What the front-ends (bot/: Telegram, Slack, console, CLI, jobs) may call: a typed contract.

Front-ends depend on `CoreApi`, not on core.service.Core, so a test double that drifts from the
real core fails type-checking (tests/telegram/stub_core.py), and the hand-off is an optional,
typed part of it (`CoreApi.handoff`, None when no manager is configured) instead of an
attribute probed with getattr.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from core.errors import CoreError
from core.inbound import InboundLog
from core.models import (
    Answer,
    CloseOutcome,
    FactView,
    Forgotten,
    HandOff,
    ImportItem,
    IncomingMessage,
    IngestResult,
    PendingFact,
    Reply,
    TakeOutcome,
    Trace,
    TripleIn,
    WorldInfo,
)
from core.ports import MessageListener, Notifier, Remembers


class Leads(Protocol):
    """The hand-off as the managers' front-ends and the scheduler use it."""

    def add_notifier(self, notifier: Notifier) -> None: ...

    def remove_notifier(self, name: str) -> None: ...

    async def take(self, handoff_id: str, *, manager: str, name: str) -> TakeOutcome: ...

    async def close(
        self, handoff_id: str, *, manager: str | None = None, name: str | None = None
    ) -> CloseOutcome: ...

    async def leads(self, *, include_closed: bool = False, limit: int = 20) -> list[HandOff]: ...

    async def tick(self) -> dict[str, int]:
        """The scheduler job: retries and reminders."""
        ...

    async def aclose(self) -> None: ...


class HandoffDesk(MessageListener, Leads, Protocol):
    """The hand-off Core is composed with: told after each message, used by managers."""


class CoreApi(Remembers, Protocol):
    """The core as front-ends see it (core/service.py's Core implements it); `remember` and
    `remember_message` come from ports.Remembers."""

    @property
    def handoff(self) -> Leads | None: ...

    @property
    def inbound(self) -> InboundLog | None:
        """The durable inbound log (issue 12): front-ends record deliveries in it before they
        acknowledge them; None when the core runs without one."""
        ...

    async def handle_message(self, chat: str, message: IncomingMessage) -> Reply:
        """A message addressed to the bot: questions answered, statements remembered."""
        ...

    async def observe(self, chat: str, message: IncomingMessage) -> IngestResult:
        """A message the bot overhears: remembered, nothing said."""
        ...

    async def ask(self, chat: str, question: str, *, author: str | None = None) -> Answer: ...

    async def remember_triple(
        self, chat: str, triple: TripleIn, *, author: str = "user", message_id: str | None = None
    ) -> IngestResult: ...

    async def remember_many(
        self, chat: str, items: Sequence[ImportItem]
    ) -> list[IngestResult | CoreError]:
        """An import's batch: each item's result or the error that refused it, in order."""
        ...

    async def why(self, chat: str, trace_id: str | None = None) -> Trace | None: ...

    async def facts(
        self, chat: str, entity: str | None = None, *, limit: int = 50, history: bool = False
    ) -> list[FactView]: ...

    async def forget_entity(self, chat: str, name: str) -> Forgotten: ...

    async def forget_preview(self, chat: str, name: str) -> Forgotten:
        """What forget_entity would take, nothing changed; NotFound when nothing names it."""
        ...

    async def finish_forget(self, chat: str, name: str, record_id: str) -> Forgotten:
        """An erase request recorded and not done (a kill), carried out at start."""
        ...

    async def forget_chat(self, chat: str) -> None: ...

    async def pending(self, chat: str) -> list[PendingFact]: ...

    async def review(self, chat: str, pending_id: str, approve: bool) -> FactView | None: ...

    async def worlds(self, chat: str) -> list[WorldInfo]: ...

    async def language(self, chat: str, text: str = "") -> str:
        """The language to reply in: the text's own, else the chat's recent messages' (a
        command with no words, "/kb worlds"), English when neither says."""
        ...

    async def export(self, chat: str) -> dict[str, Any]: ...

    def has_chat(self, chat: str) -> bool:
        """Whether anything was ever stored for `chat` (export of an unknown chat fails)."""
        ...

    # issue 12: edits, and the round trip of an export
    async def correct(
        self, chat: str, *, message_id: str, author: str, text: str, ts: datetime | None = None
    ) -> IngestResult: ...

    async def restore_message(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str,
        ts: datetime | None,
        reply_to: str | None = None,
    ) -> IngestResult: ...

    async def restore_fact(self, chat: str, fact: FactView) -> bool: ...

    async def stats(self, chat: str) -> dict[str, int]: ...

    # maintenance (bot/jobs.py)
    def chats(self) -> list[str]:
        """Every chat with stored data."""
        ...

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int: ...

    async def decay(self, chat: str, *, half_life: timedelta, floor: float) -> int: ...

    async def merge_worlds(self, chat: str) -> list[tuple[str, str]]: ...

    async def regroup_worlds(self, chat: str) -> dict[str, int]: ...

    async def remove_dead_worlds(self, chat: str, *, idle: timedelta) -> list[str]: ...

    async def close(self) -> None: ...
