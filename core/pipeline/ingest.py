"""Ingest one message: store it first (routed to a world, absorbed), then extract (LLM, or
the ontology's surface forms offline), then resolve and write its facts (write.py)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from core import durable
from core.config import WorldMode
from core.errors import LlmUnavailable
from core.language import clean_name, name_key
from core.llm import budget_scope
from core.models import IncomingMessage, IngestResult, Rejection, TripleIn
from core.pipeline.context import Context
from core.pipeline.write import Writer
from core.ports import GraphStore, Vector
from core.rows import Extraction, message_ref, new_id
from core.sentences import courtesy
from core.world_names import first_name
from core.worlds import absorb, fold_newborn, merge_touched, newborn_merges_into, route

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Checked:
    """A message that passed the checks, ready to store: its id, cleaned author, checked text,
    time, and vector (of its text alone: stored, and routed by; Ingest.message_vector)."""

    msg_id: str
    author: str
    text: str
    ts: datetime
    emb: Vector
    reply_to: str = ""  # the stored message of the chat it replies to, when one is known


class Ingest(Writer):
    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        # runs the regrouping job when it is due (core/pipeline/due.py); True when it ran.
        # Core sets the maintenance stage's; a lone Ingest never regroups
        self.regroup: Callable[[str], Awaitable[bool]] = _never

    async def remember(self, chat: str, message: IncomingMessage) -> IngestResult:
        """Store the message first, then extract, validate, resolve and write its facts."""
        text = self.check_text(message.text)
        author = clean_name(message.author or "user")[:100] or "user"
        msg_id = message_ref(message.message_id) or new_id("m")
        ts = message.ts or self.clock.now()
        # recorded durably first, done only once its facts are written (core/durable.py)
        reply_to = message_ref(message.reply_to)
        settled = await durable.begin(
            self.inbound,
            chat,
            msg_id,
            kind="message",
            author=author,
            text=text,
            ts=ts,
            reply_to=reply_to,
        )
        checked = Checked(msg_id, author, text, ts, await self.message_vector(text), reply_to)
        if self.llm is None:
            stored = await self.pool.run(
                chat, lambda s: self.ingest_offline(s, checked, settled=settled)
            )
        else:
            stored = await self.pool.run(
                chat, lambda s: self.store_message(s, checked, Extraction.PENDING)
            )
            if not stored.duplicate:
                await self.name_world(chat, stored, text)
                result = await self.extract_with_llm(chat, msg_id, author, text, stored.world)
                result.world_born = stored.world_born
                stored = result
        if await self.regroup(chat) and not stored.duplicate:  # its world may have changed
            stored.world = await self.pool.run(chat, lambda s: _world_of(s, msg_id))
        # done only now: a kill before the due regrouping ran takes the message up again
        await durable.finish(self.inbound, chat, msg_id)
        return stored

    async def message_vector(self, text: str) -> Vector:
        """A message's vector, stored and routed by: its text alone, one embedding. Routing
        always embedded the text alone (an author prefix made one
        person's messages on unrelated topics look alike, bench/worlds.py); the stored vector
        embedded "author: text" until 2026-12-03, a second embedding per message. The text
        alone retrieves better (bench.recall, recall@10 of the evidence: MiniLM 0.847 ->
        0.875, the questions naming a speaker 0.733 -> 0.867; USE 0.944 -> 0.958): an
        author's messages are found by the speaker signal (core/recall), which reads the
        author's name, not the vector. It is also a quote's sentence vector when the message
        is one sentence (core/quote.py), read instead of embedded when a question is asked."""
        emb: Vector = (await self.embed([text]))[0]
        self.ctx.route_vectors.put(text, emb)  # for the regrouping job (core.regroup)
        return emb

    async def name_world(self, chat: str, stored: IngestResult, text: str) -> None:
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

    async def extract_with_llm(
        self, chat: str, msg_id: str, author: str, text: str, world: str
    ) -> IngestResult:
        assert self.llm is not None
        known = await self.pool.run(chat, lambda s: self.known_names(s, world))
        topic = known[0]
        try:
            with budget_scope(chat):
                triples = await self.llm.extract(
                    text=text, author=author, world_topic=topic, known_entities=known[1]
                )
            status = Extraction.LLM
        except LlmUnavailable as exc:
            log.warning("chat=%s LLM extraction failed, using offline path: %s", chat, exc)
            triples = None
            status = Extraction.FAILED  # the retry job tries the LLM again later
        return await self.pool.run(
            chat, lambda s: self.apply(s, msg_id, text, triples, world, status)
        )

    def known_names(self, store: GraphStore, world: str) -> tuple[str, list[str]]:
        w = store.worlds.get(world)
        names = [e.name for e in store.entities.values() if e.world == world][:200]
        return (w.topic if w else ""), names

    def store_message(
        self, store: GraphStore, message: Checked, extraction: Extraction
    ) -> IngestResult:
        msg_id, text, ts, emb = message.msg_id, message.text, message.ts, message.emb
        if msg_id in store.message_ids:
            # stored before a crash cut its LLM extraction short: extracted now (issue 12)
            seen = store.messages([msg_id])
            pending = Extraction.PENDING
            if extraction == pending and seen and seen[0].extraction == pending:
                return IngestResult(message_id=msg_id, world=store.resolve_world(seen[0].world))
            return IngestResult(message_id=msg_id, duplicate=True)
        now = self.clock.now()
        mode, params = self.config.world_mode, self.world_params
        last = store.worlds.get(store.last_world)  # the world of the message before it
        if (
            mode == WorldMode.ADAPTIVE
            and courtesy(text) is not None
            and last
            and not last.merged_into
        ):
            return self._courtesy(store, message, extraction, last.id)
        routed = route(store, emb, params, mode=mode, text=text, now=now, ts=ts)
        world = routed.world
        into = None
        if routed.born and mode == WorldMode.ADAPTIVE:
            into = newborn_merges_into(store, world, emb, params)
        if routed.born and into is None:
            world.topic = first_name(text, self.ctx.verbs_in(text))
            store.upsert_world(world)
        _add(store, message, extraction, (into or world).id)
        if into is not None:  # born and merged at once: the message went there directly
            fold_newborn(store, into, emb, now)
            result = IngestResult(message_id=msg_id, world=into.id, world_born=False)
        else:
            absorb(store, world, emb, now=now)
            wid = (
                merge_touched(store, world.id, params, now)
                if mode == WorldMode.ADAPTIVE
                else world.id
            )
            result = IngestResult(
                message_id=msg_id, world=wid, world_born=routed.born and wid == world.id
            )
        if mode == WorldMode.ADAPTIVE and extraction in (Extraction.OFFLINE, Extraction.PENDING):
            self.ctx.regroup_due.after_message(store, born=result.world_born)
        return result

    def _courtesy(
        self, store: GraphStore, message: Checked, extraction: Extraction, world: str
    ) -> IngestResult:
        """A message that only thanks or greets ("obrigado!", "bom dia pessoal") is stored in
        the world of the message before it, that world's centroid untouched, instead of being
        routed: routed, it founded a world of its own, and in a chat of two topics and two
        messages that third young world made the regrouping job due, which merged the two
        topics into one world (found in the console, 2026-12-07)."""
        _add(store, message, extraction, world)
        if extraction in (Extraction.OFFLINE, Extraction.PENDING):
            self.ctx.regroup_due.after_message(store, born=False)
        return IngestResult(message_id=message.msg_id, world=world, world_born=False)

    def ingest_offline(
        self, store: GraphStore, message: Checked, *, settled: bool = False
    ) -> IngestResult:
        """`settled`: the message's durable record was done before this call, so its facts
        were written; stored again, it is a duplicate and nothing else."""
        with store.transaction():  # the message and its facts, or neither (issue 12)
            stored = self.store_message(store, message, Extraction.OFFLINE)
            if stored.duplicate:
                return (None if settled else self._torn(store, message)) or stored
            result = self.apply(
                store, message.msg_id, message.text, None, stored.world, Extraction.OFFLINE
            )
        result.world_born = stored.world_born
        return result

    def _torn(self, store: GraphStore, message: Checked) -> IngestResult | None:
        """A stored message that mentions nothing is extracted again: a kill during the
        checkpoint that ends an import's batch can leave the batch's messages without the
        facts and mentions written with them (kuzu 0.11.3: the nodes come back from the WAL,
        the COPYed edges do not; core/store/staging.py). A message that had no facts finds
        none again. Asked only of a message whose durable record is not done: one whose only
        fact waits in the review queue mentions nothing either, and extracted again after a
        regrouping moved it, it stored the fact the queue held (bench.crash, seed 250)."""
        if store.mention_count(message.msg_id):
            return None
        rows = store.messages([message.msg_id])
        if not rows or rows[0].extraction != Extraction.OFFLINE:
            return None
        world = store.resolve_world(rows[0].world)
        # what the review queue holds from it came back with the message (nodes do): a
        # triple queued there is not read again (bench.crash, seed 252: a kill between the
        # batch's commit and its records' mark, and the queued fact was stored)
        queued = {
            (p.triple.subject, p.triple.predicate, p.triple.object)
            for p in store.pending()
            if message.msg_id in p.sources
        }
        found = self.extract_offline(store, world, message.text)
        if self._drop_bare(store, world, found):
            found = self.extract_offline(store, world, message.text)
        triples = [t for t in found if (t.subject, t.predicate, t.object) not in queued]
        if not triples:
            return None
        result = self.apply(store, message.msg_id, message.text, triples, world, Extraction.OFFLINE)
        result.duplicate = True
        return result if result.stored or result.rejected or result.pending else None

    def _drop_bare(self, store: GraphStore, world: str, triples: list[TripleIn]) -> bool:
        """Remove the entities these triples name that have no mention and no fact: a torn
        batch's nodes, which came back without their edges, each of the kind the killed run
        gave it, maybe a later line's (bench.crash, seed 266: "checkout" a concept of m0005,
        and m0003's "boleto depends on checkout" went to the review queue). Nothing else
        leaves an entity bare, and a bare one is no knowledge: the message is read again as
        the first pass read it."""
        names = {n for t in triples for n in (t.subject, t.object)}
        ids = {store.by_key.get((world, name_key(n))) for n in names}
        bare = store.bare_entities(e for e in ids if e)
        if bare:
            store.forget_entities(bare)
        return bool(bare)

    def apply(
        self,
        store: GraphStore,
        msg_id: str,
        text: str,
        triples: list[TripleIn] | None,
        world: str,
        status: Extraction,
    ) -> IngestResult:
        world = store.resolve_world(world)  # merged while the LLM was extracting: the survivor
        denied: list[tuple[str, str, str]] = []
        if triples is None:
            triples = self.extract_offline(store, world, text)
            denied = self._denied(store, world, text)
        result = self.write_triples(store, triples, source=msg_id, world=world)
        if denied:  # "Ann no longer works at Acme": the stored fact is closed, not kept
            result.superseded += store.deny_facts(denied, now=self.clock.now())
        if status != Extraction.OFFLINE:
            store.set_extraction(msg_id, status)
        return result

    def _denied(self, store: GraphStore, world: str, text: str) -> list[tuple[str, str, str]]:
        """The (subject id, predicate, object id) the text denies, of entities this world
        knows by those names (offline extraction; with an LLM its prompt decides)."""
        out = []
        for subject, predicate, obj in self.extractor.denials(text):
            s = store.by_key.get((world, name_key(subject)))
            o = store.by_key.get((world, name_key(obj)))
            if s and o:
                out.append((s, predicate, o))
        return out

    def extract_offline(self, store: GraphStore, world: str, text: str) -> list[TripleIn]:
        """The ontology's surface forms read in the text, names typed as the world knows them."""
        return self.extractor.extract(text, known=lambda n: self.known_kind(store, world, n))

    def known_kind(self, store: GraphStore, world: str, name: str) -> str | None:
        eid = store.by_key.get((world, name_key(name)))
        return store.entities[eid].kind if eid else None

    async def remember_triple(
        self, chat: str, triple: TripleIn, *, author: str = "user", message_id: str | None = None
    ) -> IngestResult:
        """An explicit fact (CLI, /remember a | kind | P | b | kind): stored with its message."""
        reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
        if reason is not None:  # refused before anything is stored
            log.info("rejected explicit triple (%s): %s", triple.predicate, reason)
            return IngestResult(message_id="", rejected=[Rejection(triple=triple, reason=reason)])
        text = f"{triple.subject} {triple.predicate} {triple.object}"
        msg_id = message_ref(message_id) or new_id("m")
        now = self.clock.now()
        await durable.begin(
            self.inbound,
            chat,
            msg_id,
            kind="fact",
            author=author,
            text=text,
            ts=now,
            triple=triple.model_dump_json(),
        )
        checked = Checked(msg_id, author, text, now, await self.message_vector(text))

        def run(store: GraphStore) -> IngestResult:
            with store.transaction():  # the message and its fact, or neither
                stored = self.store_message(store, checked, Extraction.EXPLICIT)
                if stored.duplicate:
                    return stored
                # stated with its own name: a lemma twin is another entity (issue 16)
                return self.write_triples(
                    store, [triple], source=msg_id, world=stored.world, loose=False
                )

        result = await self.pool.run(chat, run)
        await durable.finish(self.inbound, chat, msg_id)
        return result

    async def remember_fact_from(self, chat: str, triple: TripleIn, *, source: str) -> IngestResult:
        """A fact derived from an already stored message (e.g. a hand-off's INTERESTED_IN),
        written in that message's world with the message as its source."""
        reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
        if reason is not None:
            rejected = [Rejection(triple=triple, reason=reason)]
            return IngestResult(message_id=source, rejected=rejected)

        def run(store: GraphStore) -> IngestResult:
            origin = store.messages([source])
            world = origin[0].world if origin else next(iter(store.worlds), "")
            return self.write_triples(store, [triple], source=source, world=world)

        return await self.pool.run(chat, run)


async def _never(chat: str) -> bool:
    return False


def _world_of(store: GraphStore, message_id: str) -> str:
    rows = store.messages([message_id])
    return store.resolve_world(rows[0].world) if rows else ""


def _add(store: GraphStore, message: Checked, extraction: Extraction, world: str) -> None:
    """The message stored in `world`, with the reply it is to when that one is stored."""
    store.add_message(
        message_id=message.msg_id,
        author=message.author,
        text=message.text,
        ts=message.ts,
        world=world,
        extraction=extraction,
        embedding=message.emb,
    )
    if message.reply_to and message.reply_to in store.message_ids:
        store.add_reply(message.msg_id, message.reply_to)
