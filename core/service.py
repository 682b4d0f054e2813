"""The core facade: ingest, answer, explain, review, forget. Front-ends call only this.

Each public method is a coroutine; blocking work (embedding, Kùzu) runs in worker threads and
every store access holds the chat's lock (core/store/pool.py), so one chat's writes are
serialised while chats proceed in parallel. The core holds no process-global state.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from core.errors import InvalidInput, LlmUnavailable, NotFound
from core.extract import OfflineExtractor
from core.language import (
    STOPWORDS,
    clean_name,
    detect_language,
    is_question,
    key_tokens,
    name_key,
)
from core.llm import budget_scope
from core.models import (
    REVIEW_THRESHOLD,
    Answer,
    EvidenceHit,
    FactStatus,
    FactView,
    IngestResult,
    PendingFact,
    Rejection,
    Reply,
    ScoredEntity,
    Seed,
    Trace,
    TripleIn,
    WorldInfo,
)
from core.ports import Clock, Embedder, Llm, Vector
from core.recall import Hit, RecallConfig, is_when_question
from core.recall import rank as recall_rank
from core.retrieval import (
    directional_reach,
    expand_hops,
    graph_scores,
    path_to,
    personalized_pagerank,
)
from core.store.kuzu_store import (
    ChatStore,
    Edge,
    MessageRow,
    PlannedEntity,
    PlannedFact,
    new_id,
)
from core.store.pool import StorePool
from core.texts import t
from core.worlds import (
    WorldParams,
    absorb,
    merge_all,
    merge_touched,
    params_for,
    question_worlds,
    route,
    world_maturity,
)

if TYPE_CHECKING:
    from core.handoff import ClientInfo, HandoffService
from ontology import Ontology

log = logging.getLogger(__name__)

MAX_NAME_NGRAM = 6
EXTRACTIVE_FACTS = 10  # facts listed (and cited) by an extractive answer
YES_NO_STARTS = frozenset("does do did is are can was were será é o a".split())


class _Unresolvable(Exception):
    """A triple's name cannot become an entity (e.g. nothing left after normalising)."""


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass(frozen=True)
class CoreConfig:
    hops: int = 2
    top_k_seeds: int = 5
    min_seed_similarity: float = 0.60
    alpha: float = 0.65
    gamma: float = 0.6
    ppr_damping: float = 0.85
    max_facts: int = 30
    evidence_k: int = 10
    max_message_chars: int = 8000
    world_mode: str = "single"  # "single": one world per chat; "adaptive": topic routing
    # routing constants; None: the set calibrated for the embedder (core.worlds.params_for)
    world_params: WorldParams | None = None
    # evidence recall over messages (core/recall.py; weights measured by bench/recall.py)
    recall_depth: int = 50
    recall_rrf_k: int = 60
    recall_w_meaning: float = 1.0
    recall_w_words: float = 1.0
    recall_w_entities: float = 1.0
    recall_w_speaker: float = 1.0
    recall_w_time: float = 1.0
    recall_w_neighbours: float = 0.5
    recall_neighbour_hits: int = 3
    recall_time_first: bool = True
    recall_min_tokens: int = 3  # shorter messages are chit-chat and lose recall_short_penalty
    recall_short_penalty: float = 0.15
    recall_time_anchor: str = "clock"  # "clock": now; "latest": the chat's latest message

    def recall(self) -> RecallConfig:
        return RecallConfig(
            k=max(self.evidence_k, 10),
            depth=self.recall_depth,
            rrf_k=self.recall_rrf_k,
            w_meaning=self.recall_w_meaning,
            w_words=self.recall_w_words,
            w_entities=self.recall_w_entities,
            w_speaker=self.recall_w_speaker,
            w_time=self.recall_w_time,
            w_neighbours=self.recall_w_neighbours,
            neighbour_hits=self.recall_neighbour_hits,
            time_first=self.recall_time_first,
            min_tokens=self.recall_min_tokens,
            short_penalty=self.recall_short_penalty,
        )


@dataclass
class _Retrieved:
    answer: Answer
    nodes: list[ScoredEntity]
    edges: list[FactView]
    evidence_text: list[tuple[str, str]]
    evidence_hits: list[Hit] = field(default_factory=list)


class Core:
    def __init__(
        self,
        *,
        pool: StorePool,
        embedder: Embedder,
        ontology: Ontology,
        config: CoreConfig | None = None,
        llm: Llm | None = None,
        clock: Clock | None = None,
        handoff: HandoffService | None = None,  # issue 8: buying interest -> managers
    ) -> None:
        self.pool = pool
        self.embedder = embedder
        self.ontology = ontology
        self.config = config or CoreConfig()
        self.world_params = self.config.world_params or params_for(embedder.model_name)
        self.llm = llm
        self.clock: Clock = clock or SystemClock()
        self.handoff = handoff
        self.extractor = OfflineExtractor(ontology)
        pool.on_open = self._on_open
        self._max_hops = {p.name: p.max_hops for p in ontology.predicates.values()}
        self._kind_by_key: dict[str, str] = {}
        for word, kind in ontology.kind_words().items():
            self._kind_by_key.setdefault(name_key(word), kind)
        self._surface_keys = {
            k
            for pred in ontology.predicates.values()
            for forms in pred.surface.values()
            for form in forms
            for k in key_tokens(form)
        }

    def _on_open(self, chat: str, store: ChatStore) -> None:
        store.single_valued = frozenset(
            p.name for p in self.ontology.predicates.values() if p.cardinality == "one"
        )
        if store.model_mismatch is not None:
            log.warning(
                "chat=%s was embedded with %s: re-embedding with %s",
                chat,
                store.model_mismatch[0],
                self.embedder.model_name,
            )
            store.reembed(self.embedder.embed)

    # ================================================================== ingest
    def _check_text(self, text: str) -> str:
        text = (text or "").replace("\x00", "").strip()
        if not text:
            raise InvalidInput(t("empty", "en"))
        if len(text) > self.config.max_message_chars:
            lang = detect_language(text[:500])
            raise InvalidInput(
                t("too_long", lang, n=len(text), limit=self.config.max_message_chars)
            )
        return text

    async def _embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        return await asyncio.to_thread(self.embedder.embed, list(texts))

    async def remember(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str | None = None,
        ts: datetime | None = None,
    ) -> IngestResult:
        """Store the message first, then extract, validate, resolve and write its facts."""
        text = self._check_text(text)
        author = clean_name(author or "user")[:100] or "user"
        msg_id = (message_id or "").strip()[:200] or new_id("m")
        ts = ts or self.clock.now()
        emb = await self._message_vectors(author, text)
        if self.llm is None:
            return await self.pool.run(
                chat, lambda s: self._ingest_offline(s, msg_id, author, text, ts, emb)
            )
        stored = await self.pool.run(
            chat, lambda s: self._store_message(s, msg_id, author, text, ts, emb, "pending")
        )
        if stored.duplicate:
            return stored
        await self._name_world(chat, stored, text)
        result = await self._extract_with_llm(chat, stored.message_id, author, text, stored.world)
        result.world_born = stored.world_born
        return result

    async def _message_vectors(self, author: str, text: str) -> tuple[Vector, Vector]:
        """(stored vector of "author: text", routing vector). Adaptive routing embeds the text
        alone: the author prefix makes one person's messages on unrelated topics look alike
        (measured by bench/worlds.py)."""
        if self.config.world_mode != "adaptive":
            emb = (await self._embed([f"{author}: {text}"]))[0]
            return emb, emb
        both = await self._embed([f"{author}: {text}", text])
        return both[0], both[1]

    async def _name_world(self, chat: str, stored: IngestResult, text: str) -> None:
        """A newborn world gets its topic name from the LLM when one is configured (the
        keyword name stays when the LLM fails)."""
        if not stored.world_born or self.llm is None:
            return
        try:
            with budget_scope(chat):
                topic = (await self.llm.topic_name(texts=[text])).strip()[:80]
        except LlmUnavailable as exc:
            log.info("chat=%s topic name from keywords (LLM failed: %s)", chat, exc)
            return
        if topic:
            await self.pool.run(chat, lambda s: s.rename_world(stored.world, topic))

    async def _extract_with_llm(
        self, chat: str, msg_id: str, author: str, text: str, world: str
    ) -> IngestResult:
        assert self.llm is not None
        known = await self.pool.run(chat, lambda s: self._known_names(s, world))
        topic = known[0]
        try:
            with budget_scope(chat):
                triples = await self.llm.extract(
                    text=text, author=author, world_topic=topic, known_entities=known[1]
                )
            status = "llm"
        except LlmUnavailable as exc:
            log.warning("chat=%s LLM extraction failed, using offline path: %s", chat, exc)
            triples = None
            status = "failed"  # the retry job tries the LLM again later
        return await self.pool.run(
            chat, lambda s: self._apply(s, msg_id, text, triples, world, status)
        )

    def _known_names(self, store: ChatStore, world: str) -> tuple[str, list[str]]:
        w = store.worlds.get(world)
        names = [e.name for e in store.entities.values() if e.world == world][:200]
        return (w.topic if w else ""), names

    def _store_message(
        self,
        store: ChatStore,
        msg_id: str,
        author: str,
        text: str,
        ts: datetime,
        emb: Vector | tuple[Vector, Vector],
        extraction: str,
    ) -> IngestResult:
        if msg_id in store.message_ids:
            return IngestResult(message_id=msg_id, duplicate=True)
        stored_emb, route_emb = emb if isinstance(emb, tuple) else (emb, emb)
        now = self.clock.now()
        mode, params = self.config.world_mode, self.world_params
        routed = route(store, route_emb, params, mode=mode, text=text, now=now, ts=ts)
        world = routed.world
        if routed.born:
            store.upsert_world(world)
        store.add_message(
            message_id=msg_id,
            author=author,
            text=text,
            ts=ts,
            world=world.id,
            extraction=extraction,
            embedding=stored_emb,
        )
        absorb(store, world, route_emb, now=now)
        wid = merge_touched(store, world.id, params, now) if mode == "adaptive" else world.id
        return IngestResult(
            message_id=msg_id, world=wid, world_born=routed.born and wid == world.id
        )

    def _ingest_offline(
        self,
        store: ChatStore,
        msg_id: str,
        author: str,
        text: str,
        ts: datetime,
        emb: Vector | tuple[Vector, Vector],
    ) -> IngestResult:
        stored = self._store_message(store, msg_id, author, text, ts, emb, "offline")
        if stored.duplicate:
            return stored
        result = self._apply(store, msg_id, text, None, stored.world, "offline")
        result.world_born = stored.world_born
        return result

    def _apply(
        self,
        store: ChatStore,
        msg_id: str,
        text: str,
        triples: list[TripleIn] | None,
        world: str,
        status: str,
    ) -> IngestResult:
        world = store.resolve_world(world)  # merged while the LLM was extracting: the survivor
        if triples is None:
            triples = self.extractor.extract(
                text, known=lambda n: self._known_kind(store, world, n)
            )
        result = self._write_triples(store, triples, source=msg_id, world=world)
        if status != "offline":
            store.set_extraction(msg_id, status)
        return result

    def _known_kind(self, store: ChatStore, world: str, name: str) -> str | None:
        eid = store.by_key.get((world, name_key(name)))
        return store.entities[eid].kind if eid else None

    def _write_triples(
        self, store: ChatStore, triples: Sequence[TripleIn], *, source: str, world: str
    ) -> IngestResult:
        now = self.clock.now()
        result = IngestResult(message_id=source, world=world)
        planned: list[PlannedFact] = []
        fresh: dict[
            str, tuple[str, str, str, str]
        ] = {}  # new entity id -> (kind, name, key, ident)
        for triple in triples:
            reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
            if reason is None:
                try:
                    s_id, s_kind = self._resolve(
                        store,
                        world,
                        triple.subject,
                        triple.subject_kind,
                        triple.subject_ident,
                        fresh,
                    )
                    o_id, o_kind = self._resolve(
                        store, world, triple.object, triple.object_kind, triple.object_ident, fresh
                    )
                except _Unresolvable as exc:
                    reason = str(exc)
                else:  # a known entity keeps its first kind: check the triple against it
                    reason = self.ontology.check(s_kind, triple.predicate, o_kind)
            if reason is not None:
                log.info("rejected triple (%s) in world %s: %s", triple.predicate, world, reason)
                result.rejected.append(Rejection(triple=triple, reason=reason))
                continue
            if triple.confidence < REVIEW_THRESHOLD:
                result.pending.append(store.add_pending(triple, [source] if source else [], now))
                continue
            pred = self.ontology.predicates[triple.predicate.strip().upper()]
            planned.append(
                PlannedFact(
                    subject=self._planned(store, world, s_id, s_kind, fresh),
                    predicate=pred.name,
                    object=self._planned(store, world, o_id, o_kind, fresh),
                    confidence=triple.confidence,
                    single_valued=pred.cardinality == "one",
                )
            )
        if planned:
            planned = self._attach_embeddings(planned, fresh)
            outcome = store.write_facts(planned, source=source, now=now, world=world)
            result.stored = outcome.stored
            result.superseded = outcome.superseded
        return result

    def _resolve(
        self,
        store: ChatStore,
        world: str,
        name: str,
        kind: str,
        ident: str | None,
        fresh: dict[str, tuple[str, str, str, str]],
    ) -> tuple[str, str]:
        """(entity id, kind). Identifiers are chat-wide; bare names per world."""
        display = clean_name(name)
        key = name_key(display)
        if not key:
            raise _Unresolvable(f"empty name {name!r}")
        if ident:
            eid = store.by_ident.get(ident) or "e_" + hashlib.sha1(ident.encode()).hexdigest()[:16]
        else:
            eid = store.by_key.get((world, key)) or (
                "e_" + hashlib.sha1(f"{world}|{key}".encode()).hexdigest()[:16]
            )
        existing = store.entities.get(eid)
        if existing is not None and existing.kind != kind:
            return eid, existing.kind  # the first kind sticks; the predicate check decides
        if existing is None:
            prev = fresh.get(eid)
            if prev is not None:
                return eid, prev[0]
            fresh[eid] = (kind, display, key, ident or "")
        return eid, kind

    def _planned(
        self,
        store: ChatStore,
        world: str,
        eid: str,
        kind: str,
        fresh: dict[str, tuple[str, str, str, str]],
    ) -> PlannedEntity:
        ent = store.entities.get(eid)
        if ent is not None:
            return PlannedEntity(eid, ent.kind, ent.name, ent.key, ent.world, ent.ident, None)
        f_kind, name, key, ident = fresh[eid]
        return PlannedEntity(eid, f_kind, name, key, world, ident, None)

    def _attach_embeddings(
        self, planned: list[PlannedFact], fresh: dict[str, tuple[str, str, str, str]]
    ) -> list[PlannedFact]:
        names = {eid: fresh[eid][1] for eid in fresh}
        if not names:
            return planned
        ids = list(names)
        vecs = self.embedder.embed([names[i] for i in ids])
        by_id = dict(zip(ids, vecs, strict=True))

        def with_vec(e: PlannedEntity) -> PlannedEntity:
            vec = by_id.get(e.id)
            return (
                e
                if vec is None
                else PlannedEntity(e.id, e.kind, e.name, e.key, e.world, e.ident, vec)
            )

        return [
            PlannedFact(
                with_vec(p.subject), p.predicate, with_vec(p.object), p.confidence, p.single_valued
            )
            for p in planned
        ]

    async def remember_triple(
        self, chat: str, triple: TripleIn, *, author: str = "user", message_id: str | None = None
    ) -> IngestResult:
        """An explicit fact (CLI, /remember a | kind | P | b | kind): stored with its message."""
        reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
        if reason is not None:  # refused before anything is stored
            log.info("rejected explicit triple (%s): %s", triple.predicate, reason)
            return IngestResult(message_id="", rejected=[Rejection(triple=triple, reason=reason)])
        text = f"{triple.subject} {triple.predicate} {triple.object}"
        msg_id = (message_id or "").strip()[:200] or new_id("m")
        emb = await self._message_vectors(author, text)
        now = self.clock.now()

        def run(store: ChatStore) -> IngestResult:
            stored = self._store_message(store, msg_id, author, text, now, emb, "explicit")
            if stored.duplicate:
                return stored
            return self._write_triples(store, [triple], source=msg_id, world=stored.world)

        return await self.pool.run(chat, run)

    async def remember_fact_from(self, chat: str, triple: TripleIn, *, source: str) -> IngestResult:
        """A fact derived from an already stored message (e.g. a hand-off's INTERESTED_IN),
        written in that message's world with the message as its source."""
        reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
        if reason is not None:
            rejected = [Rejection(triple=triple, reason=reason)]
            return IngestResult(message_id=source, rejected=rejected)

        def run(store: ChatStore) -> IngestResult:
            origin = store.messages([source])
            world = origin[0].world if origin else next(iter(store.worlds), "")
            return self._write_triples(store, [triple], source=source, world=world)

        return await self.pool.run(chat, run)

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int:
        """Re-run the LLM on messages whose extraction failed; returns how many succeeded."""
        if self.llm is None:
            return 0
        rows: list[MessageRow] = await self.pool.run(
            chat, lambda s: s.messages_with_extraction("failed", limit)
        )
        done = 0
        for row in rows:
            await self._extract_with_llm(chat, row.id, row.author, row.text, row.world)
            still = await self.pool.run(chat, partial(ChatStore.messages, ids=[row.id]))
            done += bool(still) and still[0].extraction == "llm"
        return done

    # ================================================================== answer
    async def handle_message(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str | None = None,
        ts: datetime | None = None,
        client: ClientInfo | None = None,
    ) -> Reply:
        """A free-form message: questions are answered, statements remembered."""
        text = self._check_text(text)
        lang = detect_language(text)
        if is_question(text):
            answer = await self.ask(chat, text, author=author)
            reply = Reply(kind="answer", text=answer.answer, answer=answer)
        else:
            result = await self.remember(
                chat, author=author, text=text, message_id=message_id, ts=ts
            )
            reply = Reply(
                kind="remembered" if result.stored or result.pending else "noted",
                text=render_ingest_text(result, lang),
                ingest=result,
            )
        # ---- hand-off (issue 8, core/handoff.py): buying interest notifies managers and adds
        # a "a person will follow up" line to the reply. Never fails the reply.
        if self.handoff is not None:
            reply = await self.handoff.after_message(
                self,
                chat,
                reply,
                author=author,
                text=text,
                message_id=message_id,
                ts=ts,
                lang=lang,
                client=client,
            )
        # ---- end hand-off
        return reply

    async def observe(
        self,
        chat: str,
        *,
        author: str,
        text: str,
        message_id: str | None = None,
        ts: datetime | None = None,
        client: ClientInfo | None = None,
    ) -> IngestResult:
        """A message the bot overhears (a group message not addressed to it): remembered,
        questions included, and buying interest in it still reaches the managers. The bot
        says nothing in the chat, so there is no reply."""
        result = await self.remember(chat, author=author, text=text, message_id=message_id, ts=ts)
        if self.handoff is not None and not result.duplicate:
            kind: Literal["remembered", "noted"] = (
                "remembered" if result.stored or result.pending else "noted"
            )
            await self.handoff.after_message(
                self,
                chat,
                Reply(kind=kind, text="", ingest=result),
                author=author,
                text=text,
                message_id=result.message_id,
                ts=ts,
                lang=detect_language(text),
                client=client,
            )
        return result

    async def ask(self, chat: str, question: str, *, author: str | None = None) -> Answer:
        question = self._check_text(question)
        lang = detect_language(question)
        q_emb = (await self._embed([question]))[0]
        got = await self.pool.run(chat, lambda s: self._retrieve(s, question, q_emb, lang))
        answer = got.answer
        cited = [f.id for f in answer.facts[:EXTRACTIVE_FACTS]]  # what the extractive text lists
        if self.llm is not None and answer.facts:
            try:
                with budget_scope(chat):
                    reply = await self.llm.answer(
                        question=question,
                        language=lang,
                        facts=answer.facts,
                        paths=answer.paths,
                        evidence=got.evidence_text,
                    )
                allowed = {f.id for f in answer.facts}
                cited = [c for c in reply.cited_fact_ids if c in allowed]
                answer = answer.model_copy(
                    update={"answer": reply.text, "model": self.llm.answer_model}
                )
            except LlmUnavailable as exc:
                log.warning("chat=%s LLM answer failed, extractive answer used: %s", chat, exc)
        trace = Trace(
            id=answer.trace_id,
            question=question,
            created_at=self.clock.now(),
            seeds=answer.seeds,
            nodes=got.nodes,
            edges=got.edges,
            paths=answer.paths,
            evidence=answer.evidence,
            answer=answer.answer,
            model=answer.model,
            worlds=answer.worlds,
            cited=cited,
            evidence_hits=[
                EvidenceHit(
                    id=h.id, signals=list(h.signals), score=h.score, ts=h.ts, author=h.author
                )
                for h in got.evidence_hits
            ],
        )
        await self.pool.run(
            chat, lambda s: s.add_trace(trace.id, trace.model_dump_json(), trace.created_at)
        )
        return answer

    def _literal_entities(self, store: ChatStore, question: str, worlds: set[str]) -> list[str]:
        """Entities named in the question (lemmatised n-grams, longest match wins)."""
        toks = key_tokens(clean_name(question))
        found: list[str] = []
        covered = [False] * len(toks)
        for n in range(min(MAX_NAME_NGRAM, len(toks)), 0, -1):
            for i in range(len(toks) - n + 1):
                if any(covered[i : i + n]):
                    continue
                key = " ".join(toks[i : i + n])
                hits = [store.by_key[(w, key)] for w in worlds if (w, key) in store.by_key]
                if hits:
                    found.extend(h for h in hits if h not in found)
                    covered[i : i + n] = [True] * n
        return found

    def _kind_targets(self, question: str) -> set[str]:
        return {self._kind_by_key[k] for k in key_tokens(question) if k in self._kind_by_key}

    def _content_phrase(self, question: str) -> str:
        words = [
            w
            for w in clean_name(question).split()
            if name_key(w)
            and name_key(w) not in STOPWORDS
            and w.lower() not in STOPWORDS
            and name_key(w) not in self._kind_by_key
            and name_key(w) not in self._surface_keys
        ]
        return " ".join(words).strip("?!.,") or question.strip("?!. ")

    def _retrieve(self, store: ChatStore, question: str, q_emb: Vector, lang: str) -> _Retrieved:
        cfg = self.config
        worlds = set(
            question_worlds(store, q_emb, self.world_params, mode=cfg.world_mode, text=question)
        ) or {""}
        trace_id = new_id("t")
        base = Answer(answer="", language=lang, worlds=sorted(worlds), trace_id=trace_id)
        literal = self._literal_entities(store, question, worlds)
        clauses = self.extractor.parse(question, question=True)
        unknown = [
            name
            for c in clauses
            for name in (c.subject, *c.objects)
            if name and not self._literal_entities(store, name, worlds)
        ]
        vectors = store.entity_vectors
        sims = vectors.scores(q_emb)  # one scan; every cosine below is read from it

        def cosine(eid: str) -> float:
            if eid in literal:
                return 1.0
            row = vectors.row(eid)
            return 0.0 if row is None else float(sims[row])

        vec_seeds = [
            (eid, s)
            for eid, s in vectors.best(sims, cfg.top_k_seeds)
            if s >= cfg.min_seed_similarity and store.entities[eid].world in worlds
        ]
        if unknown and not literal:
            vec_seeds = []  # the question names something we do not know: say so, don't guess
        targets = sorted(
            (
                eid
                for kind in self._kind_targets(question)
                for eid in store.by_kind.get(kind, ())
                if store.entities[eid].world in worlds
            ),
            key=lambda i: -cosine(i),
        )[:20]
        sources = literal or [e for e, _ in vec_seeds]
        if not sources:
            evidence_ids, evidence_text, hits = self._evidence(store, question, q_emb, literal, [])
            names = ", ".join(unknown) if unknown else self._content_phrase(question)
            when = self._when_line(question, lang, hits, evidence_text)
            answer = base.model_copy(
                update={
                    "answer": when
                    or (t("no_facts", lang, names=names) if names else t("no_facts_at_all", lang)),
                    "unknown": unknown or [names],
                    "evidence": evidence_ids,
                }
            )
            return _Retrieved(answer, [], [], evidence_text, hits)

        seed_ids = list(dict.fromkeys([*sources, *(targets if literal else [])]))
        edges = expand_hops(
            seed_ids,
            hops=cfg.hops,
            max_hops=self._max_hops,
            edges_from=store.edges_from,
            edges_to=store.edges_to,
        )
        reach = directional_reach(
            sources, edges.values(), max_hops=self._max_hops, limit=2 * cfg.hops
        )
        kept = set(reach)
        s_vec = {n: cosine(n) for n in kept}
        sub_edges = [e for e in edges.values() if e.src in kept and e.dst in kept]
        nodes = sorted(kept)
        personal = {eid: max(s_vec.get(eid, 0.0), 0.0) for eid in sources}
        ppr = personalized_pagerank(nodes, sub_edges, personal, damping=cfg.ppr_damping)
        top = max(ppr.values(), default=0.0) or 1.0
        s_graph = graph_scores(reach, s_vec, alpha=cfg.alpha, gamma=cfg.gamma)
        score = {
            n: cfg.alpha * max(s_vec.get(n, 0.0), 0.0) + (1 - cfg.alpha) * ppr.get(n, 0.0) / top
            for n in nodes
        }
        scored = sorted(
            (
                ScoredEntity(
                    id=n,
                    name=store.entities[n].name,
                    kind=store.entities[n].kind,
                    s_vec=round(s_vec.get(n, 0.0), 4),
                    s_graph=round(s_graph.get(n, 0.0), 4),
                    ppr=round(ppr.get(n, 0.0), 4),
                    score=round(score[n], 4),
                )
                for n in nodes
                if n in store.entities
            ),
            key=lambda x: -x.score,
        )
        wanted = [c.predicate.name for c in clauses]
        path_edges = self._best_paths(reach, score, targets, set(sources), wanted)
        yes_no = self._yes_no(store, question, clauses, worlds, lang)
        if yes_no is not None:
            path_edges = [yes_no[1]] if yes_no[1] else []
        facts = self._select_facts(path_edges, sub_edges, score)
        paths = [
            [store.entities[p[0].src].name, *(store.entities[e.dst].name for e in p)]
            for p in path_edges
        ]
        evidence_ids, evidence_text, hits = self._evidence(
            store, question, q_emb, literal, [s for f in facts for s in f.sources]
        )
        seeds = [
            Seed(entity=store.entities[e].name, score=round(s_vec.get(e, 0.0), 4)) for e in sources
        ]
        text = self._extractive(
            lang, paths, facts, targets, reach, store, yes_no[0] if yes_no else None, unknown
        )
        when = self._when_line(question, lang, hits, evidence_text)
        text = f"{when}\n{text}" if when else text
        answer = base.model_copy(
            update={
                "answer": text,
                "seeds": seeds,
                "facts": facts,
                "paths": paths,
                "evidence": evidence_ids,
                "unknown": unknown,
            }
        )
        return _Retrieved(
            answer, scored[:50], [e.fact for e in sub_edges][:200], evidence_text, hits
        )

    def _best_paths(
        self,
        reach: dict[str, Any],
        score: dict[str, float],
        targets: list[str],
        sources: set[str],
        wanted: list[str],
    ) -> list[list[Edge]]:
        candidates = [n for n in targets if reach.get(n) is not None]
        if not candidates:
            candidates = sorted(
                (n for n in reach if n not in sources and reach[n] is not None),
                key=lambda n: -score.get(n, 0.0),
            )
        chains = [path_to(n, reach) for n in candidates]
        if wanted:  # paths made of the predicate the question asks about come first
            chains.sort(key=lambda c: -sum(e.fact.predicate in wanted for e in c) / len(c))
        chosen: list[list[Edge]] = []
        for chain in chains:
            ids = [e.fact.id for e in chain]
            if any(ids == [e.fact.id for e in c][: len(ids)] for c in chosen):
                continue  # a prefix of a path already shown
            chosen = [c for c in chosen if [e.fact.id for e in c] != ids[: len(c)]]
            chosen.append(chain)
            if len(chosen) >= 5:
                break
        return chosen

    def _select_facts(
        self, paths: list[list[Edge]], sub_edges: list[Edge], score: dict[str, float]
    ) -> list[FactView]:
        ordered: dict[str, FactView] = {}
        for chain in paths:
            for e in chain:
                ordered.setdefault(e.fact.id, e.fact)
        for e in sorted(sub_edges, key=lambda e: -(score.get(e.src, 0) + score.get(e.dst, 0))):
            if len(ordered) >= self.config.max_facts:
                break
            ordered.setdefault(e.fact.id, e.fact)
        return list(ordered.values())[: self.config.max_facts]

    def _yes_no(
        self, store: ChatStore, question: str, clauses: list[Any], worlds: set[str], lang: str
    ) -> tuple[str, list[Edge]] | None:
        """'Does A depend on B?': a directed chain of that predicate from A to B, or no.

        Returns the reply line and the chain that supports it (or the reverse chain shown
        to explain a "no"; empty when nothing connects them).
        """
        first = (clean_name(question).split() or [""])[0].lower()
        for c in clauses:
            if len(c.objects) != 1 or not c.subject:
                continue
            if first not in YES_NO_STARTS and detect_language(question) == "en":
                continue
            subj = self._literal_entities(store, c.subject, worlds)
            obj = self._literal_entities(store, c.objects[0], worlds)
            if not subj or not obj:
                continue
            pred = c.predicate.name
            hop = self._max_hops.get(pred, self.config.hops)
            chain = self._chain(store, subj[0], obj[0], pred, hop)
            if chain:
                return f"{t('yes', lang)}: " + self._names(store, chain), chain
            s_name, o_name = store.entities[subj[0]].name, store.entities[obj[0]].name
            text = f"{t('no', lang)}. " + t("no_fact_that", lang, s=s_name, p=pred, o=o_name)
            reverse = self._chain(store, obj[0], subj[0], pred, hop)
            if reverse:
                text += " " + t("reverse_known", lang, path=self._names(store, reverse))
            return text, reverse
        return None

    @staticmethod
    def _names(store: ChatStore, chain: list[Edge]) -> str:
        return " → ".join(
            [store.entities[chain[0].src].name, *(store.entities[e.dst].name for e in chain)]
        )

    def _chain(self, store: ChatStore, src: str, dst: str, pred: str, hops: int) -> list[Edge]:
        edges = expand_hops(
            [src],
            hops=hops,
            max_hops={pred: hops},
            edges_from=lambda ids: [e for e in store.edges_from(ids) if e.fact.predicate == pred],
            edges_to=lambda ids: [],
        )
        reach = directional_reach([src], edges.values(), max_hops={pred: hops}, limit=hops)
        return path_to(dst, reach) if reach.get(dst) is not None else []

    def _extractive(
        self,
        lang: str,
        paths: list[list[str]],
        facts: list[FactView],
        targets: list[str],
        reach: dict[str, Any],
        store: ChatStore,
        yes_no: str | None,
        unknown: list[str],
    ) -> str:
        lines: list[str] = []
        if yes_no:
            lines.append(yes_no)
        if unknown:
            lines.append(t("no_facts", lang, names=", ".join(unknown)))
        if not facts:
            if not lines:
                lines.append(t("no_facts_at_all", lang))
            return "\n".join(lines)
        if not yes_no:
            lines.append(t("known", lang))
            hits = [store.entities[n] for n in targets if reach.get(n) is not None]
            lines.extend(f"• {ent.kind}: {ent.name}" for ent in hits[:5])
        lines.extend(f"{t('paths', lang)}: " + " → ".join(path) for path in paths)
        lines.append(f"{t('facts', lang)}:")
        lines.extend(
            f"• {f.subject} {f.predicate} {f.object} [{f.id}]" for f in facts[:EXTRACTIVE_FACTS]
        )
        return "\n".join(lines)

    def _evidence(
        self,
        store: ChatStore,
        question: str,
        q_emb: Vector,
        literal: list[str],
        provenance: list[str],
    ) -> tuple[list[str], list[tuple[str, str]], list[Hit]]:
        """Evidence messages, most relevant first (hybrid recall, core/recall.py), chat-wide:
        world routing never hides a message a chat-wide search would find."""
        cfg = self.config.recall()
        entity_messages = list(dict.fromkeys(provenance))
        if literal:  # the question's entities: their facts' sources, then their mentions
            entity_messages += store.fact_sources(literal, cfg.depth)
            entity_messages += store.mentions_of(literal, cfg.depth)
        now = self.clock.now()
        if self.config.recall_time_anchor == "latest":
            now = store.recall.latest() or now
        hits = recall_rank(
            store.recall,
            store.message_vectors,
            store.message_vectors.scores(q_emb),
            question,
            entity_messages=entity_messages,
            now=now,
            cfg=cfg,
        )
        return [h.id for h in hits], [(h.id, f"{h.author}: {h.text}") for h in hits[:10]], hits

    @staticmethod
    def _when_line(
        question: str, lang: str, hits: list[Hit], evidence: list[tuple[str, str]]
    ) -> str | None:
        """A "when" question cites the best evidence message with its date."""
        if not hits or not evidence or not is_when_question(question):
            return None
        best, said = hits[0], dict(evidence).get(hits[0].id, "")
        said = said if len(said) <= 240 else said[:239] + "…"
        return t("when_said", lang, date=f"{best.ts:%Y-%m-%d}", said=said, id=best.id)

    # ================================================================== explain & manage
    async def why(self, chat: str, trace_id: str | None = None) -> Trace | None:
        def run(store: ChatStore) -> str | None:
            tid = trace_id or store.last_trace_id
            return store.trace(tid) if tid else None

        body = await self.pool.run(chat, run)
        return Trace.model_validate_json(body) if body else None

    def _entity_ids(self, store: ChatStore, name: str) -> list[str]:
        key = name_key(name)
        return [eid for (_, k), eid in store.by_key.items() if k == key]

    async def facts(
        self, chat: str, entity: str | None = None, *, limit: int = 50, history: bool = False
    ) -> list[FactView]:
        def run(store: ChatStore) -> list[FactView]:
            ids = None
            if entity:
                ids = list(dict.fromkeys(self._entity_ids(store, entity)))
                if not ids:
                    raise NotFound(entity)
            return store.facts(ids, history=history, limit=limit)

        return await self.pool.run(chat, run)

    async def forget_entity(self, chat: str, name: str) -> int:
        def run(store: ChatStore) -> int:
            ids = list(dict.fromkeys(self._entity_ids(store, name)))
            if not ids:
                raise NotFound(name)
            return store.forget_entities(ids)

        n = await self.pool.run(chat, run)
        log.info("chat=%s forgot an entity and %d facts", chat, n)
        return n

    async def forget_chat(self, chat: str) -> None:
        await self.pool.delete(chat)
        log.info("chat=%s forgotten entirely", chat)

    async def pending(self, chat: str) -> list[PendingFact]:
        return await self.pool.run(chat, lambda s: s.pending())

    async def review(self, chat: str, pending_id: str, approve: bool) -> FactView | None:
        def run(store: ChatStore) -> FactView | None:
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
            result = self._write_triples(store, [triple], source=source, world=world)
            return result.stored[0] if result.stored else None

        return await self.pool.run(chat, run)

    async def worlds(self, chat: str) -> list[WorldInfo]:
        def run(store: ChatStore) -> list[WorldInfo]:
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
        def run(store: ChatStore) -> dict[str, int]:
            return {
                "messages": store.message_count(),
                "entities": len(store.entities),
                "facts": store.fact_count(),
                "pending": len(store.pending()),
            }

        return await self.pool.run(chat, run)

    async def decay(self, chat: str, *, half_life: timedelta, floor: float) -> int:
        """Close (never erase) facts whose decayed confidence fell below the floor.

        Stored confidence is the value at the last confirmation; the decayed value is derived
        from the time since, so running the job twice changes nothing twice.
        """
        now = self.clock.now()

        def run(store: ChatStore) -> int:
            doomed = [
                fid
                for fid, conf, confirmed in store.active_facts_for_decay()
                if decayed_confidence(conf, now - confirmed, half_life) < floor
            ]
            if doomed:
                store.set_fact_status(doomed, FactStatus.CLOSED.value, now)
            return len(doomed)

        return await self.pool.run(chat, run)

    async def merge_worlds(self, chat: str) -> list[tuple[str, str]]:
        """The merge job for one chat: (merged id, surviving id) pairs. Single mode keeps one
        world per chat, so there is nothing to merge."""
        now = self.clock.now()
        params = self.world_params
        pairs = await self.pool.run(chat, lambda s: merge_all(s, params, now))
        for old, new in pairs:
            log.info("chat=%s world %s merged into %s", chat, old, new)
        return pairs

    async def remove_dead_worlds(self, chat: str, *, idle: timedelta) -> list[str]:
        """Death: live worlds with no active facts and no message for `idle` are removed."""
        now = self.clock.now()

        def run(store: ChatStore) -> list[str]:
            dead = [
                w.id
                for w in list(store.worlds.values())
                if not w.merged_into and w.facts == 0 and now - w.last_active >= idle
            ]
            for wid in dead:
                store.delete_world(wid)
            return dead

        dead = await self.pool.run(chat, run)
        if dead:
            log.info("chat=%s removed %d dead worlds: %s", chat, len(dead), ", ".join(dead))
        return dead

    async def resolve_world(self, chat: str, world_id: str) -> str:
        """The live world an old id (from a trace or an answer) now lives in."""
        return await self.pool.run(chat, lambda s: s.resolve_world(world_id))

    async def close(self) -> None:
        await self.pool.close()
        aclose = getattr(self.llm, "aclose", None)
        if aclose is not None:
            await aclose()


def decayed_confidence(confidence: float, age: timedelta, half_life: timedelta) -> float:
    if half_life.total_seconds() <= 0:
        return confidence
    return float(confidence * 0.5 ** (max(age.total_seconds(), 0.0) / half_life.total_seconds()))


def maturity(facts: int, mean_confidence: float) -> float:
    """Maturity = mean fact confidence * min(facts / 10, 1), clipped to [0, 1]."""
    return float(min(max(mean_confidence * min(facts / 10, 1.0), 0.0), 1.0))


def render_ingest_text(result: IngestResult, lang: str) -> str:
    if result.duplicate:
        return t("duplicate", lang)
    parts = []
    if result.stored:
        parts.append(t("remembered", lang, n=len(result.stored)))
        parts.extend(f"• {f.subject} {f.predicate} {f.object}" for f in result.stored[:10])
    if result.pending:
        parts.append(t("pending", lang, n=len(result.pending)))
    if result.rejected:
        reasons = "; ".join(r.reason for r in result.rejected[:3])
        parts.append(t("rejected", lang, n=len(result.rejected), reasons=reasons))
    return "\n".join(parts) or t("noted", lang)
