"""Hand-off of buying interest to managers (issue 8).

A client who asks for a price, a demo, a contract or an invoice, says they want to buy, or asks
for a person, is handed off to the configured managers: a card (who, company, role, what they
want, why we think so, the facts the graph holds about them, the last messages) goes to every
manager through the registered `Notifier`s (Telegram, Slack: bot/*/handoff.py). The first
manager to press "Take" owns the lead; every other copy of the card then shows who took it.

Pieces:
- `detect_intent`: the LLM's `classify_intent` when the configured Llm has one (optional, looked
  up with getattr), else (or when it fails) multilingual rules (en / pt / ru) for clear cases.
- `HandOff`: the stored record; `HandoffStore`: persistence (SQLite, see below).
- `HandoffService`: Core's optional collaborator. `Core.handle_message` calls `after_message`
  once the message was answered or remembered; the service writes INTERESTED_IN (client ->
  product) with the message as its source, creates or updates the hand-off (one per client and
  window, never a duplicate card), sends the cards, and adds a localized "a person will follow
  up" line to the client's reply. `tick()` (a scheduler job, bot/jobs.py) retries failed
  deliveries and card edits, and re-sends untaken hand-offs after a delay, at most N times.

Why SQLite and not Kùzu: hand-offs are cross-chat operational records (a manager's /leads spans
every client chat), so they cannot live in a client's per-chat graph; putting them in a graph
database would buy nothing (no traversal) and "first manager wins" needs an atomic
compare-and-set, which one SQLite UPDATE inside a transaction gives. The file
(`<data_dir>/handoff.sqlite3`) holds only hand-off records: the facts shown on a card are read
from the client's own chat store (through the chat's lock) and copied onto the card, so no chat's
graph is ever opened on behalf of another chat, and the managers, the intended audience, see
only what was chosen for the card.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, Field

from core.errors import LlmUnavailable
from core.language import clean_name, name_key
from core.models import Reply, TripleIn
from core.ports import Clock
from core.store.kuzu_store import new_id

if TYPE_CHECKING:
    from core.service import Core
    from core.store.kuzu_store import ChatStore

log = logging.getLogger(__name__)

Status = Literal["open", "taken", "closed"]
SEND_TIMEOUT_S = 15.0  # one notification; a hung manager chat must not hold the client's reply

FOLLOW_UP = {
    "en": "A person from our team will follow up with you shortly.",
    "pt": "Uma pessoa da nossa equipe vai entrar em contato com você em breve.",
    "ru": "С вами скоро свяжется сотрудник нашей команды.",
}


def follow_up_line(lang: str) -> str:
    return FOLLOW_UP.get(lang, FOLLOW_UP["en"])


# ====================================================================== intent
@dataclass(frozen=True)
class Intent:
    """A buying signal: what the client wants (price, demo, ...), how sure, and why."""

    wants: tuple[str, ...]
    confidence: float
    reason: str
    product: str | None = None
    source: str = "rules"  # "rules" or "llm"


# (want, confidence, pattern). Word starts are anchored; Russian stems cover inflections.
_RULES: list[tuple[str, float, re.Pattern[str]]] = [
    (want, conf, re.compile(pattern + r"(?!\w)", re.IGNORECASE))
    for want, conf, pattern in [
        (
            "price",
            0.9,
            r"\b(?:price|prices|pricing|how much (?:is|does|do|would|for)|quote for"
            r"|cost of|what does it cost"
            r"|pre[çc]o|pre[çc]os|quanto custa|quanto fica|quanto sai|valor do plano"
            r"|cota[çc][ãa]o|or[çc]amento para"
            r"|цен[аыуе]|стоимост\w*|сколько стоит|сколько будет стоить|прайс\w*)",
        ),
        (
            "demo",
            0.85,
            r"\b(?:demo|demos|demonstration|free trial|trial account"
            r"|demonstra[çc][ãa]o|teste gr[áa]tis|per[íi]odo de teste"
            r"|демо|демо-\w+|демонстрац\w*|пробн\w+ (?:период|доступ|верси\w+))",
        ),
        # a contract the client asks for, not one that was signed ("Acme signed the contract")
        (
            "contract",
            0.85,
            r"\b(?:(?:send|draft|prepare)(?: me| us)? (?:the |a )?contract"
            r"|contract (?:draft|proposal|terms)|ready to sign|want to sign"
            r"|(?:enviar|mandar|enviem|mandem)(?: o| um)? contrato"
            r"|minuta do contrato|assinar o contrato|fechar (?:o )?contrato"
            r"|(?:пришлите|отправьте|вышлите|подготовьте) (?:нам |мне )?"
            r"(?:договор|контракт)\w*|проект договора|готовы подписать"
            r"|заключить (?:договор|контракт))",
        ),
        (
            "invoice",
            0.9,
            r"\b(?:invoice|invoices|bill us|bill me"
            r"|fatura|faturas|nota fiscal|boleto"
            r"|сч[её]т на оплату|сч[её]т-фактур\w*|выстав\w* сч[её]т\w*)",
        ),
        (
            "buy",
            0.9,
            r"\b(?:buy|buying|purchase|purchasing|want to order|place an order"
            r"|subscribe|sign up for"
            r"|comprar|compraria|quero comprar|adquirir|assinar o plano|fechar neg[óo]cio"
            r"|куп(?:ить|лю|им|ят)|покупк\w*|приобрест\w*|приобрет\w*"
            r"|оформить заказ|заказать)",
        ),
        (
            "person",
            0.85,
            r"\b(?:talk to (?:a |an )?(?:person|human|someone|sales|manager|agent)"
            r"|speak (?:to|with) (?:a |an )?(?:person|human|someone|sales|manager)"
            r"|contact (?:me|us)|call me"
            r"|falar com (?:uma |um |o |a )?(?:pessoa|humano|atendente|vendedor"
            r"|consultor|gerente|algu[ée]m)|me liguem|entrem em contato"
            r"|поговорить с (?:человеком|менеджером|оператором|продавц\w*)"
            r"|свяжитесь со мной|позовите (?:менеджера|человека)|перезвоните)",
        ),
    ]
]

_PRODUCT = re.compile(
    r"\b((?:plano|plan|тариф|пакет|package|licen[cs]e|licen[çc]a|assinatura|subscription)"
    r"(?:\s+(?!para\b|for\b|para\b|на\b|для\b)[\w-]+)?)"
    r"|\b([\w-]+\s+(?:plan|package|license|subscription))\b",
    re.IGNORECASE,
)
_PRODUCT_LEAD_WORDS = frozenset({"the", "a", "an", "our", "your", "this", "that"})


def rules_intent(text: str) -> Intent | None:
    """Clear buying signals in English, Portuguese or Russian; None when there is none."""
    wants: list[str] = []
    hits: list[str] = []
    confidence = 0.0
    for want, conf, pattern in _RULES:
        m = pattern.search(text)
        if m:
            wants.append(want)
            hits.append(m.group(0))
            confidence = max(confidence, conf)
    if not wants:
        return None
    reason = "asked about " + ", ".join(wants) + " (" + "; ".join(f"'{h}'" for h in hits) + ")"
    return Intent(tuple(wants), confidence, reason, product_phrase(text), "rules")


def product_phrase(text: str) -> str | None:
    """'o plano anual' -> 'plano anual', 'the annual plan' -> 'annual plan'."""
    m = _PRODUCT.search(text)
    if not m:
        return None
    words = [w for w in (m.group(1) or m.group(2)).split() if w.lower() not in _PRODUCT_LEAD_WORDS]
    phrase = clean_name(" ".join(words))
    return phrase or None


async def detect_intent(
    text: str, llm: Any | None, *, language: str, min_confidence: float
) -> Intent | None:
    """The LLM's verdict when it offers `classify_intent`, else the rules.

    `classify_intent(text=..., language=...)` is optional on the Llm port: it returns an object
    with `interested` (bool), `want` (str or list), `confidence`, `reason` and optionally
    `product`. When it fails (LlmUnavailable or anything else) the rules decide.
    """
    classify = getattr(llm, "classify_intent", None) if llm is not None else None
    if classify is not None:
        try:
            verdict = await classify(text=text, language=language)
        except LlmUnavailable as exc:
            log.warning("intent classification failed, using the rules: %s", exc)
        except Exception:
            log.warning("intent classification failed, using the rules", exc_info=True)
        else:
            confidence = float(getattr(verdict, "confidence", 0.0))
            if not getattr(verdict, "interested", False) or confidence < min_confidence:
                return None
            want = getattr(verdict, "want", "interest")
            wants = tuple(want) if isinstance(want, list | tuple) else (str(want),)
            product = getattr(verdict, "product", None) or product_phrase(text)
            return Intent(wants, confidence, str(getattr(verdict, "reason", "")), product, "llm")
    intent = rules_intent(text)
    return intent if intent is not None and intent.confidence >= min_confidence else None


# ====================================================================== model
class ClientInfo(BaseModel):
    """Who is speaking, as the front-end knows them (for the card and for dedupe)."""

    name: str
    platform: str = ""
    user_id: str | None = None
    username: str | None = None
    link: str | None = None

    def key(self) -> str:
        return f"{self.platform}:{self.user_id}" if self.user_id else f"name:{name_key(self.name)}"


class HandOff(BaseModel):
    id: str
    chat: str
    client: ClientInfo
    client_key: str
    company: str | None = None
    role: str | None = None
    wants: list[str] = Field(default_factory=list)
    product: str | None = None
    reason: str = ""
    confidence: float = 0.0
    facts: list[str] = Field(default_factory=list)
    last_messages: list[str] = Field(default_factory=list)
    language: str = "en"
    status: Status = "open"
    created_at: datetime
    updated_at: datetime
    last_signal_at: datetime
    last_sent_at: datetime
    signals: int = 1
    resends: int = 0
    taken_by: str | None = None  # manager key, e.g. "telegram:501"
    taken_by_name: str | None = None
    taken_at: datetime | None = None
    closed_at: datetime | None = None
    closed_by: str | None = None  # manager key
    closed_by_name: str | None = None
    # target key ("telegram:501", "slack:C123") -> ids of the card messages sent there
    notified: dict[str, list[str]] = Field(default_factory=dict)
    stale: list[str] = Field(default_factory=list)  # "target|ref" cards whose edit failed
    revision: int = 0  # bumped on every change a card shows


class TakeOutcome(BaseModel):
    result: Literal["taken", "already_taken", "closed", "not_found"]
    handoff: HandOff | None = None


class CloseOutcome(BaseModel):
    result: Literal["closed", "already_closed", "not_found"]
    handoff: HandOff | None = None


class Notifier(Protocol):
    """A way to reach managers (Telegram chats, a Slack channel). Implemented in bot/.

    `name` prefixes target keys and must not contain ':'. `send` returns an id of the message it
    posted (used later to edit it); both methods raise on failure, and the service retries.
    """

    name: str

    def targets(self) -> Sequence[str]: ...

    async def send(self, target: str, handoff: HandOff) -> str: ...

    async def update(self, target: str, ref: str, handoff: HandOff) -> None: ...


# ====================================================================== card text
def render_card(h: HandOff) -> str:
    """The card as plain text (front-ends escape it and add their button)."""
    client = h.client.name + (f" (@{h.client.username})" if h.client.username else "")
    lines = [f"Lead {h.id}: {client}"]
    if h.client.link:
        lines.append(f"Chat: {h.client.link}")
    who = " · ".join(
        x
        for x in (f"Company: {h.company}" if h.company else "", f"Role: {h.role}" if h.role else "")
        if x
    )
    if who:
        lines.append(who)
    want = ", ".join(h.wants) + (f" · {h.product}" if h.product else "")
    lines.append(f"Wants: {want} (confidence {h.confidence:.2f})")
    if h.reason:
        lines.append(f"Why: {h.reason}")
    if h.facts:
        lines.append("Facts:")
        lines.extend(f"• {f}" for f in h.facts)
    if h.last_messages:
        lines.append("Last messages:")
        lines.extend(f"› {m}" for m in h.last_messages)
    if h.signals > 1:
        lines.append(f"Signals: {h.signals} (last {h.last_signal_at:%Y-%m-%d %H:%M} UTC)")
    lines.append(status_line(h))
    return "\n".join(lines)


def status_line(h: HandOff) -> str:
    if h.status == "taken":
        return f"Status: taken by {h.taken_by_name or h.taken_by}"
    if h.status == "closed":
        by = h.closed_by_name or h.closed_by
        return "Status: closed" + (f" by {by}" if by else "")
    return "Status: open" + (f" (reminder {h.resends})" if h.resends else "")


def render_leads(items: Sequence[HandOff]) -> str:
    if not items:
        return "No leads."
    out = []
    for h in items:
        company = f" ({h.company})" if h.company else ""
        owner = f" → {h.taken_by_name or h.taken_by}" if h.status == "taken" else ""
        out.append(
            f"• {h.id} · {h.status}{owner} · {h.client.name}{company} · {', '.join(h.wants)}"
            f" · {h.created_at:%Y-%m-%d %H:%M}"
        )
    return "\n".join(out)


# ====================================================================== persistence
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


# ====================================================================== the service
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
        self, store: HandoffStore, *, clock: Clock, config: HandoffConfig | None = None
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
    async def after_message(
        self,
        core: Core,
        chat: str,
        reply: Reply,
        *,
        author: str,
        text: str,
        message_id: str | None,
        ts: datetime | None,
        lang: str,
        client: ClientInfo | None,
    ) -> Reply:
        """Called by Core.handle_message once the message was answered or remembered."""
        if reply.ingest is not None and reply.ingest.duplicate:
            return reply  # a redelivered message was handled the first time
        intent = await detect_intent(
            text, core.llm, language=lang, min_confidence=self.config.min_confidence
        )
        if intent is None:
            return reply
        who = client or ClientInfo(name=author)
        try:
            h = await self.raise_interest(
                core,
                chat,
                intent,
                client=who,
                author=author,
                text=text,
                message_id=message_id,
                ts=ts,
                lang=lang,
                reply=reply,
            )
        except Exception:
            log.exception("chat=%s hand-off failed", chat)
            return reply
        if h is None:
            return reply
        line = follow_up_line(lang)
        update: dict[str, Any] = {"text": f"{reply.text}\n\n{line}".strip(), "handoff": h.id}
        if reply.answer is not None:  # Slack renders the answer itself, not reply.text
            update["answer"] = reply.answer.model_copy(
                update={"answer": f"{reply.answer.answer}\n\n{line}".strip()}
            )
        return reply.model_copy(update=update)

    async def raise_interest(
        self,
        core: Core,
        chat: str,
        intent: Intent,
        *,
        client: ClientInfo,
        author: str,
        text: str,
        message_id: str | None,
        ts: datetime | None,
        lang: str,
        reply: Reply | None = None,
    ) -> HandOff | None:
        """INTERESTED_IN into the graph, then a new hand-off or an update of the open one."""
        ingest = reply.ingest if reply is not None else None
        if ingest is None:  # a question is not stored by ask(): store it, it is the source
            ingest = await core.remember(
                chat, author=author, text=text, message_id=message_id, ts=ts
            )
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
        async with self._lock:
            h = await self.get(handoff_id)
            if h is None:
                return TakeOutcome(result="not_found")
            if h.status != "open":
                result = "already_taken" if h.status == "taken" else "closed"
                return TakeOutcome(result=result, handoff=h)
            now = self.clock.now()
            h = h.model_copy(
                update={
                    "status": "taken",
                    "taken_by": manager,
                    "taken_by_name": name,
                    "taken_at": now,
                    "updated_at": now,
                    "revision": h.revision + 1,
                }
            )
            await self._io(self.store.save, h)
        log.info("hand-off %s taken by %s", handoff_id, manager)
        await self._refresh(handoff_id)
        return TakeOutcome(result="taken", handoff=await self.get(handoff_id))

    async def close(
        self, handoff_id: str, *, manager: str | None = None, name: str | None = None
    ) -> CloseOutcome:
        """Close a lead (done, or not a lead at all), open or taken; every card then says so
        and loses its buttons. A new signal from the same client later starts a new lead."""
        async with self._lock:
            h = await self.get(handoff_id)
            if h is None:
                return CloseOutcome(result="not_found")
            if h.status == "closed":
                return CloseOutcome(result="already_closed", handoff=h)
            now = self.clock.now()
            h = h.model_copy(
                update={
                    "status": "closed",
                    "closed_at": now,
                    "closed_by": manager,
                    "closed_by_name": name,
                    "updated_at": now,
                    "revision": h.revision + 1,
                }
            )
            await self._io(self.store.save, h)
        log.info("hand-off %s closed by %s", handoff_id, manager or "the system")
        await self._refresh(handoff_id)
        return CloseOutcome(result="closed", handoff=await self.get(handoff_id))

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


# ====================================================================== graph context
def _known_product(store: ChatStore, text: str) -> str | None:
    """A product this chat already knows that the message names (longest name first)."""
    keys = f" {name_key(text)} "
    names = sorted(
        (store.entities[e].name for e in store.by_kind.get("product", ()) if e in store.entities),
        key=len,
        reverse=True,
    )
    for name in names:
        if f" {name_key(name)} " in keys:
            return name
    return None


def _context(store: ChatStore, author: str, max_facts: int, max_messages: int) -> dict[str, Any]:
    """Company, role, the relevant facts and the last messages, from this chat only."""
    key = name_key(author)
    me = [eid for (_, k), eid in store.by_key.items() if k == key]
    mine = store.edges_from(me) if me else []
    company = role = None
    companies: list[str] = []
    for e in mine:
        if e.fact.predicate in ("WORKS_AT", "DECIDES_FOR") and e.fact.object_kind == "company":
            companies.append(e.dst)
            company = company or e.fact.object
        if e.fact.predicate == "HAS_ROLE":
            role = e.fact.object
    if not companies:  # nothing ties the client to a company: the companies this chat names
        companies = sorted(store.by_kind.get("company", ()))[:3]
        if len(companies) == 1:
            company = store.entities[companies[0]].name
    about = [*mine]
    if companies:
        about += store.edges_from(companies) + store.edges_to(companies)
    facts: dict[str, str] = {}
    for e in about:  # the client first, then their company: decision makers, products, budget
        facts.setdefault(e.fact.id, e.fact.sentence())
    recent = store.recent_messages(max_messages)
    return {
        "company": company,
        "role": role,
        "facts": list(facts.values())[:max_facts],
        "last_messages": [f"{m.author}: {m.text[:300]}" for m in recent],
    }


def parse_card_value(value: str) -> str:
    """A Take button's value/callback payload: the hand-off id, validated."""
    data = json.loads(value) if value.startswith("{") else {"id": value}
    handoff_id = str(data.get("id", ""))
    if not re.fullmatch(r"h_[0-9a-f]{12}", handoff_id):
        raise ValueError("not a hand-off id")
    return handoff_id
