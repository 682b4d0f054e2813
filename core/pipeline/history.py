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
from core.inbound import ChatRecord
from core.language import clean_name
from core.models import FactView, IncomingMessage, IngestResult, TripleIn
from core.pipeline.context import RouteVectors
from core.pipeline.ingest import Checked, Ingest
from core.pipeline.maintenance import regroup_now
from core.pipeline.write import _Unresolvable
from core.ports import GraphStore
from core.rows import Extraction, PlannedFact, message_ref, new_id

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

    async def record_forget(self, chat: str, name: str) -> None:
        """An erase request in the record, so a rebuild forgets the entity again there."""
        forget_id = new_id("forget")
        now = self.clock.now()
        await durable.begin(
            self.inbound, chat, forget_id, kind="forget", author="", text=name, ts=now
        )
        await durable.finish(self.inbound, chat, forget_id)

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
                worlds = {ent.world for ent in store.entities.values()}
                # the entities the name meant, found as Core.forget_entity found them
                if ids := list(self.names(store).find(worlds, rec.text, levels="el").ids):
                    store.forget_entities(ids)
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
