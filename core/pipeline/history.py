"""Rewriting a chat's history (issue 12): an edited message corrects what it said, an export
is restored as it was, an erase request is recorded, and a chat whose graph could not be opened
is rebuilt from its durable record (core/durable.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from functools import partial

import numpy as np
import numpy.typing as npt

from core import durable
from core.clock import as_utc
from core.config import WorldMode
from core.errors import NotFound
from core.inbound import ChatRecord
from core.language import clean_name
from core.models import FactView, Forgotten, IncomingMessage, IngestResult, TripleIn
from core.pipeline import erase
from core.pipeline.context import RouteVectors
from core.pipeline.ingest import Checked, Ingest
from core.pipeline.maintenance import regroup_now
from core.pipeline.write import _Unresolvable
from core.ports import GraphStore
from core.rows import Extraction, PlannedFact, message_ref, new_id
from core.world_names import OfflineNaming, first_name, rename_offline

log = logging.getLogger(__name__)


class History(Ingest):
    async def correct(
        self, chat: str, *, message_id: str, author: str, text: str, ts: datetime | None = None
    ) -> IngestResult:
        """The new text replaces the old one (graph and record), the facts only the old text
        gave are superseded (history stays), the new text's facts are written; one transaction.
        An edit of a message never seen is remembered as a new message."""
        text = self.check_text(text)
        author = clean_name(author or "user")[:100] or "user"
        known = await self.pool.run(chat, lambda s: message_id in s.message_ids)
        if not known:
            return await self.remember(
                chat, IncomingMessage(author=author, text=text, message_id=message_id, ts=ts)
            )
        if self.inbound is not None:
            await asyncio.to_thread(self.inbound.replace_text, chat, message_id, text)
        emb = await self.message_vector(text)
        now = self.clock.now()

        def run(store: GraphStore) -> IngestResult:
            with store.transaction():  # the old version or the new one, never half of each
                world = store.resolve_world(store.messages([message_id])[0].world)
                closed = store.correct_message(message_id, text, emb, now)
                result = self.apply(store, message_id, text, None, world, Extraction.OFFLINE)
            result.superseded = [*closed, *result.superseded]
            store.refresh_world_stats()
            return result

        result = await self.pool.run(chat, run)
        await durable.finish(self.inbound, chat, message_id)
        return result

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
        """A message of an export, stored without extraction: its facts come from the export."""
        text = self.check_text(text)
        author = clean_name(author or "user")[:100] or "user"
        stamp = as_utc(ts) or self.clock.now()
        vector = await self.message_vector(text)
        checked = Checked(message_id, author, text, stamp, vector, message_ref(reply_to))

        def run(store: GraphStore) -> IngestResult:
            with store.transaction():
                return self.store_message(store, checked, Extraction.IMPORT)

        return await self.pool.run(chat, run)

    async def restore_fact(self, chat: str, fact: FactView) -> bool:
        """A fact of an export, written as it was (status, validity, confidence, sources);
        False when it is already there or the ontology refuses it."""
        if self.ontology.check(fact.subject_kind, fact.predicate, fact.object_kind) is not None:
            return False
        pred = self.ontology.predicates[fact.predicate.strip().upper()].name
        fact = fact.model_copy(update={"predicate": pred})

        def run(store: GraphStore) -> bool:
            origin = store.messages(fact.sources[:1])
            world = origin[0].world if origin else next(iter(store.worlds), "")
            fresh: dict[str, tuple[str, str, str, str]] = {}
            try:
                s_id, s_kind = self.resolve(
                    store, world, fact.subject, fact.subject_kind, None, fresh
                )
                o_id, o_kind = self.resolve(
                    store, world, fact.object, fact.object_kind, None, fresh
                )
            except _Unresolvable:
                return False
            subject = self.planned(store, world, s_id, s_kind, fresh)
            obj = self.planned(store, world, o_id, o_kind, fresh)
            [with_vectors] = self.attach_embeddings(
                [PlannedFact(subject, pred, obj, fact.confidence, False)], fresh, {}
            )
            return store.restore_fact(
                with_vectors.subject,
                with_vectors.object,
                fact,
                fact_id=new_id("f"),
                now=self.clock.now(),
            )

        return await self.pool.run(chat, run)

    async def forget(self, chat: str, name: str) -> tuple[Forgotten, list[str]]:
        """A user's erase request for a name (core/pipeline/erase.py says what it takes away).
        Recorded first, so a kill before it is done is finished at the next start
        (`finish_forget`) and a rebuild replays it at its place; returns what was erased and
        the worlds renamed because their name used it (an LLM may name them better)."""
        if not await self.pool.run(chat, lambda s: bool(erase.plan(s, self.names(s), name))):
            raise NotFound(name)
        forget_id = new_id("forget")
        await durable.begin(
            self.inbound, chat, forget_id, kind="forget", author="", text=name, ts=self.clock.now()
        )
        return await self.finish_forget(chat, name, forget_id)

    async def erase_preview(self, chat: str, name: str) -> Forgotten:
        """What forgetting the name would take (nothing is changed), for the confirmation a
        front-end asks for; NotFound when nothing in the chat names it."""

        def run(store: GraphStore) -> Forgotten:
            found = erase.plan(store, self.names(store), name)
            if not found:
                raise NotFound(name)
            ids = list(found.entity_ids)
            facts = len(store.facts(ids, history=True, limit=1 << 30)) if ids else 0
            return Forgotten(facts=facts, messages=len(found.message_ids))

        return await self.pool.run(chat, run)

    async def finish_forget(
        self, chat: str, name: str, record_id: str
    ) -> tuple[Forgotten, list[str]]:
        """Carry out a recorded erase request (again, after a kill: what is already gone is
        not found twice) and mark its record done."""
        done = await self.pool.run(chat, partial(self._erase, name=name))
        await durable.finish(self.inbound, chat, record_id)
        return done

    def _erase(self, store: GraphStore, name: str) -> tuple[Forgotten, list[str]]:
        """The erase in the pool's thread: the durable record's messages first (a kill after
        it leaves the graph's, which the request's recovery erases), then the graph's."""
        found = erase.plan(store, self.names(store), name)
        if not found:
            return Forgotten(), []
        if self.inbound is not None:
            self.inbound.erase(store.chat, list(found.message_ids))
        facts = store.erase(found.entity_ids, found.message_ids, found.said_in)
        named = {w.id for w in store.worlds.values() if found.said_in(w.topic)}
        if named:  # a world named after it is named again from what it still holds
            naming = self.offline_names() or OfflineNaming(
                self.ctx.predicate_verbs, self.ctx.vectors_of_words
            )
            with store.transaction():
                rename_offline(store, naming, only=named)
                for wid in named:
                    if found.said_in(store.worlds[wid].topic):  # nothing left to name it by
                        store.rename_world(wid, first_name("", set()))
        log.info(
            "chat=%s erased a name: %d facts, %d messages",
            store.chat,
            facts,
            len(found.message_ids),
        )
        return Forgotten(facts=facts, messages=len(found.message_ids)), sorted(named)

    def rebuild(self, chat: str, store: GraphStore, records: Sequence[ChatRecord]) -> None:
        """Ingest a chat's durable record into the fresh database that replaced its broken
        one (in the pool's thread, under the chat's lock). With an LLM the messages are marked
        for the extraction retry job, which takes them through the LLM later."""
        status = Extraction.FAILED if self.llm is not None else Extraction.OFFLINE
        adaptive = self.config.world_mode == WorldMode.ADAPTIVE
        routing = RouteVectors()  # this rebuild's own: it runs in the pool's thread
        for rec in records:
            if rec.kind == "created":
                continue
            if rec.kind == "forget":  # an erase request, at its place in the history
                self._erase(store, rec.text)
                continue
            emb = self.embedder.embed([rec.text])[0]  # as Ingest.message_vector
            if adaptive:
                routing.put(rec.text, emb)
            kind = Extraction.EXPLICIT if rec.kind == "fact" else status
            with store.transaction():
                said = Checked(rec.id, rec.author, rec.text, rec.ts, emb, rec.reply_to)
                got = self.store_message(store, said, kind)
                if got.duplicate:
                    continue
                if rec.kind == "fact":
                    triple = TripleIn.model_validate_json(rec.triple)
                    self.write_triples(store, [triple], source=rec.id, world=got.world, loose=False)
                else:
                    self.apply(store, rec.id, rec.text, None, got.world, status)
            if adaptive and self.ctx.regroup_due.pending(store):
                # where the message path ran the job, so the rebuilt chat has the worlds the
                # chat had (without it a kill that broke the database changed them: facts
                # superseded or sent to review that were not, bench/crash.py)
                regroup_now(
                    store,
                    partial(self._route_vectors_now, routing),
                    self.world_params,
                    self.ctx.regroup_due,
                    self.clock.now(),
                    offline_names=self.offline_names(),
                )
        log.warning("chat=%s rebuilt from the inbound log: %d records", chat, len(records))

    def _route_vectors_now(self, cache: RouteVectors, texts: list[str]) -> npt.NDArray[np.float32]:
        """Routing vectors of texts in this thread (the rebuild holds the chat's lock)."""
        known = cache.lookup(texts)
        missing = [t for t, v in known.items() if v is None]
        vectors = list(self.embedder.embed(missing)) if missing else []
        return np.stack(cache.given(texts, known, vectors)).astype(np.float32)
