"""The core facade: ingest, answer, explain, review, forget, maintain. Front-ends call only this.

Each public method is a coroutine over a pipeline module with one job (core/pipeline/: ingest,
write, retrieve, select, render, answer, maintenance); blocking work (embedding, Kùzu) runs in
worker threads and every graph access holds the chat's lock (the GraphStores port), so one
chat's writes are serialised while chats proceed in parallel. The core holds no process-global
state. After each handled message the optional MessageListener (the hand-off) is told.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from core import durable
from core.clock import SystemClock
from core.config import CoreConfig
from core.contract import CoreApi, HandoffDesk
from core.errors import CoreError, NotFound
from core.handoff.person import asks_for_person, left_to_follow_up, no_person
from core.inbound import InboundLog
from core.index.spelling import question_respelled
from core.language import asks_to_be_told, detect_language, is_question
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
from core.pipeline import erase
from core.pipeline.answer import Answerer
from core.pipeline.bulk import BulkIngest
from core.pipeline.context import Context
from core.pipeline.history import History
from core.pipeline.maintenance import Maintenance, decayed_confidence
from core.pipeline.render import render_ingest_text
from core.ports import (
    ChatMemory,
    Clock,
    Embedder,
    GraphStore,
    GraphStores,
    Llm,
    MessageHandled,
    Remembers,
)
from core.sentences import courtesy
from core.texts import t
from core.worlds import kind_clash, params_for, world_maturity, world_of_its_own
from ontology import Ontology

log = logging.getLogger(__name__)


class Core(Remembers):
    def __init__(
        self,
        *,
        pool: GraphStores,
        embedder: Embedder,
        ontology: Ontology,
        config: CoreConfig | None = None,
        llm: Llm | None = None,
        clock: Clock | None = None,
        handoff: HandoffDesk | None = None,  # issue 8: buying interest -> managers
        inbound: InboundLog | None = None,  # issue 12: the durable record (core/durable.py)
    ) -> None:
        self.pool = pool
        self.inbound = inbound
        self.embedder = embedder
        self.ontology = ontology
        self.config = config or CoreConfig()
        self.world_params = self.config.world_params or params_for(
            embedder, self.config.calibration_dir, **dict(self.config.world_overrides)
        )
        self.llm = llm
        self.handoff = handoff
        pool.configure(
            single_valued=frozenset(
                p.name for p in ontology.predicates.values() if p.cardinality == "one"
            ),
            embed=embedder.embed,
        )
        self.clock = clock or SystemClock()
        if inbound is not None:  # a chat whose graph cannot be opened is rebuilt from it
            pool.recover_with(
                on_created=lambda chat: durable.record_created(inbound, chat, self.clock.now()),
                can_rebuild=lambda chat: durable.rebuildable(inbound, chat),
                rebuild=lambda chat, store: self._history.rebuild(
                    chat, store, inbound.records(chat)
                ),
            )

    @property
    def clock(self) -> Clock:
        return self._clock

    @clock.setter
    def clock(self, clock: Clock) -> None:
        """Replacing the clock (tests pin time) rebuilds the stages that share it."""
        self._clock = clock
        ctx = Context(
            pool=self.pool,
            embedder=self.embedder,
            ontology=self.ontology,
            config=self.config,
            world_params=self.world_params,
            clock=clock,
            llm=self.llm,
            inbound=self.inbound,
            offers_person=self.handoff is not None,
        )
        self._ingest = BulkIngest(ctx)
        self._history = History(ctx)
        previous = self.__dict__.get("_answers")
        self._answers = Answerer(ctx)
        if previous is not None:  # answers given before the new clock keep their traces
            self._answers.adopt_traces(previous)
        self._maintenance = Maintenance(ctx, self._ingest)
        self._ingest.regroup = self._maintenance.regroup_if_due

    # ================================================================== ingest
    async def remember_message(self, chat: str, message: IncomingMessage) -> IngestResult:
        """Store the message first, then extract, validate, resolve and write its facts; then
        regroup the chat's worlds when it is due (core/pipeline/due.py: live routing
        left several young worlds, or the chat grew by a share since the job last ran).
        (`remember(chat, author=..., text=...)`, its keyword form, comes from ports.Remembers.)"""
        return await self._ingest.remember(chat, message)

    async def remember_triple(
        self, chat: str, triple: TripleIn, *, author: str = "user", message_id: str | None = None
    ) -> IngestResult:
        """An explicit fact (CLI, /remember a | kind | P | b | kind): stored with its message."""
        return await self._ingest.remember_triple(
            chat, triple, author=author, message_id=message_id
        )

    async def remember_many(
        self, chat: str, items: Sequence[ImportItem]
    ) -> list[IngestResult | CoreError]:
        """An import's batch (`python -m bot ingest`): each item's result or the error that
        refused it, in order, as remember / remember_triple would give; written in one
        transaction with the embeddings computed together (core/pipeline/bulk.py)."""
        return await self._ingest.remember_many(chat, items)

    async def remember_fact_from(self, chat: str, triple: TripleIn, *, source: str) -> IngestResult:
        """A fact derived from an already stored message (e.g. a hand-off's INTERESTED_IN),
        written in that message's world with the message as its source."""
        return await self._ingest.remember_fact_from(chat, triple, source=source)

    async def correct(
        self, chat: str, *, message_id: str, author: str, text: str, ts: datetime | None = None
    ) -> IngestResult:
        """An edited message is a correction: the new text replaces the old one and the facts
        only the old text gave are superseded, not erased (issue 12)."""
        return await self._history.correct(
            chat, message_id=message_id, author=author, text=text, ts=ts
        )

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
        """A message of an export (`python -m bot export`), stored without extraction."""
        return await self._history.restore_message(
            chat, author=author, text=text, message_id=message_id, ts=ts, reply_to=reply_to
        )

    def has_chat(self, chat: str) -> bool:
        return self.pool.exists(chat)

    async def restore_fact(self, chat: str, fact: FactView) -> bool:
        """A fact of an export, as it was; False when already there or refused."""
        return await self._history.restore_fact(chat, fact)

    # ================================================================== answer
    async def language(self, chat: str, text: str = "") -> str:
        if not self.has_chat(chat):  # asking must not create the chat
            return detect_language(text)
        return await self._answers.language(chat, text)

    async def ask(self, chat: str, question: str, *, author: str | None = None) -> Answer:
        return await self._answers.ask(chat, question, author=author)

    async def handle_message(self, chat: str, message: IncomingMessage) -> Reply:
        """A free-form message: questions are answered, statements remembered."""
        text = self._answers.check_text(message.text)
        lang = await self._answers.language(chat, text)
        # a question whose first word is misspelled and that has no "?" is one too, and so is
        # a request to be told about something ("tell me about Ana", core.language)
        asked = text if is_question(text) else question_respelled(text)
        if is_question(asked) or asks_to_be_told(text):
            answer = await self.ask(chat, asked, author=message.author)
            reply = Reply(kind="answer", text=answer.answer, answer=answer, language=lang)
        else:
            result = await self.remember_message(chat, message)
            said = render_ingest_text(result, lang)
            # a message that only greets or thanks is answered in kind, not "Noted (no facts
            # recognised)"; it is stored as any message is
            polite = courtesy(text)
            if polite is not None and not (result.stored or result.pending or result.rejected):
                said = t(polite, lang)
            reply = Reply(kind=_ingest_kind(result), text=said, ingest=result, language=lang)
        # hand-off (issue 8, core/handoff/): buying interest notifies managers and marks the
        # reply, so the front-end says a person will follow up. Never fails the reply.
        if self.handoff is not None:
            event = MessageHandled(chat, message.model_copy(update={"text": text}), reply, lang)
            return left_to_follow_up(await self.handoff.after_message(self, event), lang)
        if asks_for_person(text):  # no manager to pass the client to: said (core/handoff/person.py)
            return no_person(reply, lang)
        return reply

    async def observe(self, chat: str, message: IncomingMessage) -> IngestResult:
        """A message the bot overhears (a group message not addressed to it): remembered,
        questions included, and buying interest in it still reaches the managers. The bot
        says nothing in the chat, so there is no reply."""
        result = await self.remember_message(chat, message)
        if self.handoff is not None and not result.duplicate:
            lang = await self._answers.language(chat, message.text)
            said = Reply(kind=_ingest_kind(result), text="", ingest=result, language=lang)
            stored = message.model_copy(update={"message_id": result.message_id})
            await self.handoff.after_message(self, MessageHandled(chat, stored, said, lang))
        return result

    # ================================================================== explain & manage
    async def why(self, chat: str, trace_id: str | None = None) -> Trace | None:
        def run(store: GraphStore) -> str | None:
            tid = trace_id or store.last_trace_id
            return store.trace(tid) if tid else None

        await self._answers.traces_stored(chat)
        body = await self.pool.run(chat, run)
        return Trace.model_validate_json(body) if body else None

    async def facts(
        self, chat: str, entity: str | None = None, *, limit: int = 50, history: bool = False
    ) -> list[FactView]:
        def run(store: GraphStore) -> list[FactView]:
            ids = None
            if entity:
                ids = list(erase.named(store, self._ingest.names(store), entity))
                if not ids:
                    raise NotFound(entity)
            return store.facts(ids, history=history, limit=limit)

        return await self.pool.run(chat, run)

    async def forget_entity(self, chat: str, name: str) -> Forgotten:
        """A user's erase request for a name: its entities, their facts and every message that
        names them (core/pipeline/erase.py); NotFound when nothing in the chat does."""
        done, renamed = await self._history.forget(chat, name)
        await self._maintenance.rename_with_llm(chat, renamed)
        return done

    async def forget_preview(self, chat: str, name: str) -> Forgotten:
        """What forget_entity would take, nothing changed (the front-ends' confirmation)."""
        if not self.has_chat(chat):  # asking must not create the chat
            raise NotFound(name)
        return await self._history.erase_preview(chat, name)

    async def finish_forget(self, chat: str, name: str, record_id: str) -> Forgotten:
        """An erase request a kill left unfinished, carried out at the next start."""
        done, renamed = await self._history.finish_forget(chat, name, record_id)
        await self._maintenance.rename_with_llm(chat, renamed)
        return done

    async def forget_chat(self, chat: str) -> None:
        await self._answers.traces_stored(chat, drop=True)  # or a late write recreates it
        await self.pool.delete(chat)
        self._ingest.ctx.regroup_due.forget(chat)  # its counts went with its meta record
        self._answers.forget_language(chat)
        if self.inbound is not None:  # or a rebuild would bring the chat back
            await asyncio.to_thread(self.inbound.forget_chat, chat)
        log.info("chat=%s forgotten entirely", chat)

    async def pending(self, chat: str) -> list[PendingFact]:
        return await self.pool.run(chat, lambda s: s.pending())

    async def review(self, chat: str, pending_id: str, approve: bool) -> FactView | None:
        def run(store: GraphStore) -> FactView | None:
            found = store.pending(pending_id)
            if not found:
                raise NotFound(pending_id)
            item = found[0]
            store.drop_pending(item.id)
            if not approve:
                return None
            # a person confirmed it: it enters memory with full confidence
            triple = item.triple.model_copy(update={"confidence": 1.0})
            source = item.sources[0] if item.sources else ""
            origin = store.messages([source]) if source else []
            world = origin[0].world if origin else next(iter(store.worlds), "")
            names = [(triple.subject, triple.subject_kind), (triple.object, triple.object_kind)]
            if origin and kind_clash(store, world, names):  # the name's other meaning
                world = world_of_its_own(store, source, self.clock.now()) or world
            result = self._ingest.write_triples(store, [triple], source=source, world=world)
            return result.stored[0] if result.stored else None

        return await self.pool.run(chat, run)

    async def worlds(self, chat: str) -> list[WorldInfo]:
        def run(store: GraphStore) -> list[WorldInfo]:
            out = [
                WorldInfo(
                    id=w.id,
                    topic=w.topic,
                    maturity=round(world_maturity(w), 3),
                    facts=w.facts,
                    messages=w.messages,
                    access_count=w.access_count,
                    created_at=w.created_at,
                    last_active=w.last_active,
                    merged_into=w.merged_into or None,
                )
                for w in store.worlds.values()  # counts kept in memory by the store
            ]
            return sorted(out, key=lambda w: w.last_active, reverse=True)

        return await self.pool.run(chat, run)

    async def export(self, chat: str) -> dict[str, Any]:
        data = await self.pool.run(chat, lambda s: s.export())
        return {"chat": chat, "exported_at": self.clock.now().isoformat(), **data}

    async def stats(self, chat: str) -> dict[str, int]:
        def run(store: GraphStore) -> dict[str, int]:
            return {
                "messages": store.message_count(),
                "entities": len(store.entities),
                "facts": store.fact_count(),
                "pending": len(store.pending()),
            }

        return await self.pool.run(chat, run)

    # ================================================================== maintenance
    def chats(self) -> list[str]:
        """Every chat with stored data."""
        return self.pool.chats()

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int:
        """Re-run the LLM on messages whose extraction failed; returns how many succeeded."""
        return await self._maintenance.retry_failed_extractions(chat, limit)

    async def decay(self, chat: str, *, half_life: timedelta, floor: float) -> int:
        """Close (never erase) facts whose decayed confidence fell below the floor."""
        return await self._maintenance.decay(chat, half_life=half_life, floor=floor)

    async def regroup_worlds(self, chat: str) -> dict[str, int]:
        """Re-examine a chat's worlds: re-assign, merge, split, rename (core.regroup)."""
        return await self._maintenance.regroup_worlds(chat)

    async def merge_worlds(self, chat: str) -> list[tuple[str, str]]:
        """The merge job for one chat: (merged id, surviving id) pairs."""
        return await self._maintenance.merge_worlds(chat)

    async def remove_dead_worlds(self, chat: str, *, idle: timedelta) -> list[str]:
        """Death: live worlds with no active facts and no message for `idle` are removed."""
        return await self._maintenance.remove_dead_worlds(chat, idle=idle)

    async def resolve_world(self, chat: str, world_id: str) -> str:
        """The live world an old id (from a trace or an answer) now lives in."""
        return await self.pool.run(chat, lambda s: s.resolve_world(world_id))

    async def close(self) -> None:
        await self._answers.traces_stored()
        await self.pool.close()
        if self.inbound is not None:
            self.inbound.close()
        aclose = getattr(self.llm, "aclose", None)
        if aclose is not None:
            await aclose()


def _ingest_kind(result: IngestResult) -> Literal["remembered", "noted"]:
    return "remembered" if result.stored or result.pending else "noted"


__all__ = ["Core", "CoreConfig", "SystemClock", "decayed_confidence", "render_ingest_text"]


def _implements_ports(core: Core) -> tuple[ChatMemory, CoreApi]:
    """Never called: mypy checks here that Core offers the hand-off and the front-ends what
    they need."""
    return core, core
