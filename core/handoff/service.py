"""The hand-off service (issue 8): interest in, cards out, the delivery state machine.

A client who asks for a price, a demo, a contract or an invoice, says they want to buy, or asks
for a person, is handed off to the configured managers: a card (who, company, role, what they
want, why we think so, the facts the graph holds about them, the last messages) goes to every
manager through the registered `Notifier`s (Telegram, Slack: bot/*/handoff.py). The first
manager to press "Take" owns the lead; every other copy of the card then shows who took it.

`HandoffService` is Core's optional collaborator (a MessageListener): after a message was
answered or remembered it writes INTERESTED_IN (client -> product) with the message as its
source, creates or updates the hand-off (one per client and window, never a duplicate card),
sends the cards, and adds a localized "a person will follow up" line to the client's reply.
`tick()` (a scheduler job, bot/jobs.py) retries failed deliveries and card edits, and re-sends
untaken hand-offs after a delay, at most N times. Records are cross-chat, so they live in
SQLite (repository.py); the facts on a card are read from the client's own chat only
(context.py) and copied onto the card.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from core.contract import HandoffDesk
from core.handoff.context import _context, _known_product
from core.handoff.intent import Intent, detect_intent
from core.language import clean_name
from core.models import (
    ClientInfo,
    CloseOutcome,
    HandOff,
    IncomingMessage,
    Reply,
    TakeOutcome,
    TripleIn,
)
from core.ports import ChatMemory, Clock, HandoffRepository, MessageHandled, Notifier
from core.rows import new_id

log = logging.getLogger(__name__)

SEND_TIMEOUT_S = 15.0  # one notification; a hung manager chat must not hold the client's reply


@dataclass(frozen=True)
class HandoffConfig:
    window: timedelta = timedelta(minutes=60)  # further signals within it update, not duplicate
    resend_after: timedelta = timedelta(minutes=30)
    max_resends: int = 3
    min_confidence: float = 0.6
    max_facts: int = 12
    max_messages: int = 5


class HandoffService:
    def __init__(
        self, store: HandoffRepository, *, clock: Clock, config: HandoffConfig | None = None
    ) -> None:
        self.store = store
        self.clock = clock
        self.config = config or HandoffConfig()
        self.notifiers: dict[str, Notifier] = {}
        self._lock = asyncio.Lock()  # read-modify-write of records; never held over the network

    # ---------------------------------------------------------------- notifiers
    def add_notifier(self, notifier: Notifier) -> None:
        if ":" in notifier.name:
            raise ValueError("a notifier name must not contain ':'")
        self.notifiers[notifier.name] = notifier

    def remove_notifier(self, name: str) -> None:
        self.notifiers.pop(name, None)

    def _targets(self) -> list[str]:
        return [f"{n.name}:{t}" for n in self.notifiers.values() for t in n.targets()]

    def _notifier(self, key: str) -> tuple[Notifier | None, str]:
        name, _, target = key.partition(":")
        return self.notifiers.get(name), target

    # ---------------------------------------------------------------- records
    async def _io(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def get(self, handoff_id: str) -> HandOff | None:
        result: HandOff | None = await self._io(self.store.get, handoff_id)
        return result

    async def leads(self, *, include_closed: bool = False, limit: int = 20) -> list[HandOff]:
        statuses = ["open", "taken", "closed"] if include_closed else ["open", "taken"]
        result: list[HandOff] = await self._io(self.store.by_status, statuses, limit)
        return result

    # ---------------------------------------------------------------- the Core hook
    async def after_message(self, core: ChatMemory, event: MessageHandled) -> Reply:
        """Told by Core once a message was answered, remembered or overheard."""
        reply, said = event.reply, event.message
        if reply.ingest is not None and reply.ingest.duplicate:
            return reply  # a redelivered message was handled the first time
        intent = await detect_intent(
            said.text, core.llm, language=event.lang, min_confidence=self.config.min_confidence
        )
        if intent is None:
            return reply
        try:
            h = await self.raise_interest(
                core, event.chat, intent, said, lang=event.lang, reply=reply
            )
        except Exception:
            log.exception("chat=%s hand-off failed", event.chat)
            return reply
        if h is None:
            return reply
        return reply.model_copy(update={"handoff": h.id})  # the front-end says a person follows up

    async def raise_interest(
        self,
        core: ChatMemory,
        chat: str,
        intent: Intent,
        said: IncomingMessage,
        *,
        lang: str,
        reply: Reply | None = None,
    ) -> HandOff | None:
        """INTERESTED_IN into the graph, then a new hand-off or an update of the open one."""
        author, text = said.author, said.text
        client = said.client or ClientInfo(name=author)
        ingest = reply.ingest if reply is not None else None
        if ingest is None:  # a question is not stored by ask(): store it, it is the source
            ingest = await core.remember_message(chat, said)
            if ingest.duplicate:
                return None
        source = ingest.message_id
        known = await core.pool.run(chat, lambda s: _known_product(s, text))
        product = known or intent.product
        obj_kind = "product" if product else "deal"
        obj = product or f"{'/'.join(intent.wants)} request"
        triple = TripleIn(
            subject=clean_name(author)[:200] or "client",
            subject_kind="person",
            predicate="INTERESTED_IN",
            object=obj[:200],
            object_kind=obj_kind,
            confidence=max(min(intent.confidence, 1.0), self.config.min_confidence),
        )
        await core.remember_fact_from(chat, triple, source=source)
        ctx = await core.pool.run(
            chat, lambda s: _context(s, author, self.config.max_facts, self.config.max_messages)
        )
        now = self.clock.now()
        async with self._lock:
            h = await self._io(self.store.latest_for, chat, client.key())
            fresh = h is None or now - h.last_signal_at > self.config.window
            if fresh:
                h = HandOff(
                    id=new_id("h"),
                    chat=chat,
                    client=client,
                    client_key=client.key(),
                    wants=list(intent.wants),
                    product=product,
                    reason=intent.reason,
                    confidence=intent.confidence,
                    language=lang,
                    created_at=now,
                    updated_at=now,
                    last_signal_at=now,
                    last_sent_at=now,
                    **ctx,
                )
            else:
                assert h is not None
                h = h.model_copy(
                    update={
                        "wants": list(dict.fromkeys([*h.wants, *intent.wants])),
                        "product": product or h.product,
                        "reason": intent.reason,
                        "confidence": max(h.confidence, intent.confidence),
                        "signals": h.signals + 1,
                        "last_signal_at": now,
                        "updated_at": now,
                        "revision": h.revision + 1,
                        "client": client,
                        **ctx,
                    }
                )
            await self._io(self.store.save, h)
        log.info("chat=%s hand-off %s %s", chat, h.id, "raised" if fresh else "updated")
        if fresh:
            await self._deliver(h.id, self._targets())
        else:
            await self._refresh(h.id)
            if h.status == "open":
                await self._deliver(h.id, [t for t in self._targets() if t not in h.notified])
        return await self.get(h.id)

    # ---------------------------------------------------------------- taking
    async def take(self, handoff_id: str, *, manager: str, name: str) -> TakeOutcome:
        """The first manager wins; the cards everywhere then show who took it."""
        taken = {"status": "taken", "taken_by": manager, "taken_by_name": name}
        h, before = await self._move(handoff_id, frozenset({"open"}), taken, "taken_at")
        if h is None or before != "open":
            refused = "closed" if before == "closed" else "already_taken"
            return TakeOutcome(result="not_found" if h is None else refused, handoff=h)
        log.info("hand-off %s taken by %s", handoff_id, manager)
        return TakeOutcome(result="taken", handoff=h)

    async def close(
        self, handoff_id: str, *, manager: str | None = None, name: str | None = None
    ) -> CloseOutcome:
        """Close a lead (done, or not a lead at all), open or taken; every card then says so
        and loses its buttons. A new signal from the same client later starts a new lead."""
        closed = {"status": "closed", "closed_by": manager, "closed_by_name": name}
        h, before = await self._move(handoff_id, frozenset({"open", "taken"}), closed, "closed_at")
        if h is None or before == "closed":
            return CloseOutcome(result="not_found" if h is None else "already_closed", handoff=h)
        log.info("hand-off %s closed by %s", handoff_id, manager or "the system")
        return CloseOutcome(result="closed", handoff=h)

    async def _move(
        self, handoff_id: str, allowed: frozenset[str], update: dict[str, Any], stamp: str
    ) -> tuple[HandOff | None, str]:
        """Move a hand-off from a status in `allowed` (atomically, under the lock), stamping
        `stamp` with the time, then update every card. Returns the hand-off (as it is now, or
        unchanged when refused) and its status before."""
        async with self._lock:
            h = await self.get(handoff_id)
            if h is None or h.status not in allowed:
                return h, h.status if h is not None else ""
            before, now = h.status, self.clock.now()
            changed = {**update, stamp: now, "updated_at": now, "revision": h.revision + 1}
            await self._io(self.store.save, h.model_copy(update=changed))
        await self._refresh(handoff_id)
        return await self.get(handoff_id), before

    # ---------------------------------------------------------------- delivery
    async def _deliver(self, handoff_id: str, targets: Sequence[str]) -> int:
        """Send the card to each target; failures stay undelivered and `tick` retries them."""
        h = await self.get(handoff_id)
        if h is None or not targets:
            return 0
        sent: list[tuple[str, str]] = []
        for key in targets:
            notifier, target = self._notifier(key)
            if notifier is None:
                continue
            try:
                async with asyncio.timeout(SEND_TIMEOUT_S):
                    ref = await notifier.send(target, h)
            except Exception as exc:
                log.warning(
                    "hand-off %s: sending to %s failed (%s); will retry",
                    handoff_id,
                    key,
                    type(exc).__name__,
                )
                continue
            sent.append((key, str(ref)))
        if not sent:
            return 0
        async with self._lock:
            current = await self.get(handoff_id)
            assert current is not None
            notified = {k: list(v) for k, v in current.notified.items()}
            stale = list(current.stale)
            for key, ref in sent:
                notified.setdefault(key, []).append(ref)
                if current.revision != h.revision:  # changed (e.g. taken) while we were sending
                    stale.append(f"{key}|{ref}")
            await self._io(
                self.store.save, current.model_copy(update={"notified": notified, "stale": stale})
            )
        if current.revision != h.revision:
            await self._flush_stale(handoff_id)
        return len(sent)

    async def _refresh(self, handoff_id: str) -> None:
        """Edit every card of this hand-off to its current content."""
        async with self._lock:
            h = await self.get(handoff_id)
            if h is None:
                return
            stale = list(
                dict.fromkeys(
                    [*h.stale, *(f"{k}|{r}" for k, refs in h.notified.items() for r in refs)]
                )
            )
            await self._io(self.store.save, h.model_copy(update={"stale": stale}))
        await self._flush_stale(handoff_id)

    async def _flush_stale(self, handoff_id: str) -> int:
        h = await self.get(handoff_id)
        if h is None or not h.stale:
            return 0
        done: list[str] = []
        for item in h.stale:
            key, _, ref = item.rpartition("|")
            notifier, target = self._notifier(key)
            if notifier is None:
                continue
            try:
                async with asyncio.timeout(SEND_TIMEOUT_S):
                    await notifier.update(target, ref, h)
            except Exception as exc:
                log.warning(
                    "hand-off %s: updating a card in %s failed (%s); will retry",
                    handoff_id,
                    key,
                    type(exc).__name__,
                )
                continue
            done.append(item)
        async with self._lock:
            current = await self.get(handoff_id)
            assert current is not None
            if current.revision == h.revision:
                remaining = [s for s in current.stale if s not in done]
            else:  # it changed again meanwhile: everything we edited is behind
                remaining = list(current.stale)
            await self._io(self.store.save, current.model_copy(update={"stale": remaining}))
        return len(done)

    async def tick(self) -> dict[str, int]:
        """The scheduler job: retry failed deliveries and edits, re-send untaken hand-offs."""
        delivered = resent = updated = 0
        now = self.clock.now()
        for h in await self._io(self.store.needing_work):
            try:
                if h.stale:
                    updated += await self._flush_stale(h.id)
                if h.status != "open":
                    continue
                missing = [t for t in self._targets() if t not in h.notified]
                if missing:
                    delivered += await self._deliver(h.id, missing)
                due = now - h.last_sent_at >= self.config.resend_after
                if due and h.resends < self.config.max_resends and h.notified:
                    async with self._lock:
                        cur = await self.get(h.id)
                        if cur is None or cur.status != "open":
                            continue
                        cur = cur.model_copy(
                            update={
                                "resends": cur.resends + 1,
                                "last_sent_at": now,
                                "revision": cur.revision + 1,
                            }
                        )
                        await self._io(self.store.save, cur)
                    resent += bool(await self._deliver(h.id, self._targets()))
            except Exception:
                log.exception("hand-off %s: job step failed", h.id)
        if delivered or resent or updated:
            log.info(
                "hand-off job: %d delivered, %d re-sent, %d cards updated",
                delivered,
                resent,
                updated,
            )
        return {
            "handoff_delivered": delivered,
            "handoff_resent": resent,
            "handoff_updated": updated,
        }

    async def aclose(self) -> None:
        await self._io(self.store.close)


def _implements_port(service: HandoffService) -> HandoffDesk:
    """Never called: mypy checks here that the service is what Core and the front-ends expect."""
    return service
