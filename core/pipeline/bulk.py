"""Bulk import (`python -m bot ingest`): a batch of one chat's lines embedded together and
written in one transaction, with the same checks, entity resolution and per-line results as
one line at a time, because each line goes through the same Ingest/Writer steps; the store
holds the batch's rows back and writes them with a few statements at its end (staged writes,
core/store/staging.py).

Measured before (bench/bulk.py): one line at a time an explicit fact cost two transactions
(its message, then its fact) and two or three embedding calls of one short text each; in a
batch each line still cost ~7 Kùzu statements. Here a batch pays one transaction of a few
statements per table, and embeds each distinct text once: its message texts (shortest first,
in calls of EMBED_CHUNK; texts seen in earlier batches are not embedded again) and the names
of its explicit facts that no entity of the chat bears yet. The embedding is now most of an
import's time (docs/performance.md, "Many chats at once").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from core import durable
from core.config import WorldMode
from core.errors import CoreError, StoreError
from core.inbound import ChatRecord, RecordKind
from core.language import clean_name, name_key
from core.models import ImportItem, IncomingMessage, IngestResult, Rejection, TripleIn
from core.pipeline.context import Context, RouteVectors
from core.pipeline.ingest import Checked, Ingest
from core.ports import GraphStore, Vector
from core.rows import Extraction, message_ref, new_id

log = logging.getLogger(__name__)

# embedding calls in flight at once, of EMBED_CHUNK texts each. Two calls at once embed faster
# alone (USE: 0.58 -> 0.37 ms per text on 2 cores), but an import also writes on the chat's
# store thread while it embeds the next batch (bot.cli keeps one batch ahead): with two calls
# three busy threads shared two cores, and one call at a time was faster overall. 10,000 facts
# (bench.bulk's file, `python -m bot ingest`, wall with start-up, two runs each, alternated,
# 2026-12-03): 2 calls of 32 texts 17.2-17.6 s; 1 call of 32 16.2-16.5 s, of 64 15.6 s, of 128
# 15.7-16.0 s, of 256 15.4 s. 10,000 chat messages (little to embed): 24.3 -> 23.6 s.
EMBED_CHUNK = 256
EMBED_WORKERS = 1
# lines between releases of the chat's shard (a checkpoint and a new connection, which free
# what Kùzu holds for a batch's writes; a checkpoint costs ~0.1-0.3 s). Measured in one process,
# 4,096 facts: released every 256 lines peak RSS 573 MB and 494 MB after, every 2,048 lines
# 608 and 597 MB, 62.5 s against 58.0 s
RELEASE_EVERY = 512  # a batch of bot.cli.IMPORT_BATCH (2,048) lines is released after it


@dataclass
class _Line:
    """A line that passed the checks made before storage, ready to write."""

    index: int
    msg_id: str
    author: str
    text: str
    ts: datetime
    triple: TripleIn | None
    emb: Vector | None = None
    settled: bool = False  # its durable record was already done (Ingest.ingest_offline)
    reply_to: str = ""  # the message it answers (IncomingMessage.reply_to)


def _record(chat: str, line: _Line) -> ChatRecord:
    kind: RecordKind = "message" if line.triple is None else "fact"
    triple = "" if line.triple is None else line.triple.model_dump_json()
    return ChatRecord(
        chat, line.msg_id, kind, line.author, line.text, line.ts, triple, False, line.reply_to
    )


def _borne(store: GraphStore, names: dict[str, Vector]) -> dict[str, Vector]:
    """The vector of an entity of the chat (in any world) bearing each of these names."""
    out: dict[str, Vector] = {}
    for name in sorted(names):
        key = name_key(name)
        ids = (store.by_key.get((w, key)) for w in sorted(store.key_worlds.get(key, ())))
        same = [i for i in ids if i and (e := store.entities.get(i)) and e.name == name]
        # (a vector kuzu read back as zeros never gets here: ChatStore.repair_vectors)
        vec = store.entity_vectors.vector(same[0]) if same else None
        if vec is not None:
            out[name] = vec.copy()
    return out


class _Turns:
    """One chat's bulk calls, written in the order they were made."""

    def __init__(self) -> None:
        self.issued = 0
        self.served = 0
        self.changed = asyncio.Condition()

    def take(self) -> _Turn:
        self.issued += 1
        return _Turn(self, self.issued - 1)


@dataclass
class _Turn:
    turns: _Turns
    number: int
    done: bool = False

    async def __aenter__(self) -> None:
        async with self.turns.changed:
            await self.turns.changed.wait_for(lambda: self.turns.served == self.number)

    async def __aexit__(self, *exc: object) -> None:
        async with self.turns.changed:
            self.turns.served += 1
            self.done = True
            self.turns.changed.notify_all()

    async def pass_on(self) -> None:
        """Let the calls after this one have their turn, if this one has not taken it."""
        if not self.done:
            async with self:
                pass


class BulkIngest(Ingest):
    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._names = RouteVectors(limit=16384)  # names' vectors of recent batches
        self._unreleased: dict[str, int] = {}  # lines written per chat since its last release
        self._turns: dict[str, _Turns] = {}  # the order of each chat's calls
        self._embed_turns: dict[str, _Turns] = {}  # the order in which they embed

    async def remember_many(
        self, chat: str, items: Sequence[ImportItem]
    ) -> list[IngestResult | CoreError]:
        """Each item's result, or the error that refused it, in the items' order.

        Calls for one chat are written in the order they were made, so a caller may start the
        next batch before this one returns: its checks and embeddings then run while this
        batch is written (bot/cli.py keeps one batch ahead; measured in the commit that made
        it). The names' vectors are looked up in the chat only when the batch's turn comes."""
        turn = self._turns.setdefault(chat, _Turns()).take()
        embed_turn = self._embed_turns.setdefault(chat, _Turns()).take()
        try:
            out, ready = self._check_all(items)
            names: dict[str, Vector] = {}
            if self.llm is None and ready:  # with an LLM, messages go one by one in turn
                names = await self._prepare(chat, ready, embed_turn)
            await embed_turn.pass_on()  # the calls after this one wait for it
        except BaseException:
            await embed_turn.pass_on()
            async with turn:  # the calls made after this one still wait for it
                raise
        async with turn:
            return await self._write_in_turn(chat, items, out, ready, names)

    async def _prepare(
        self, chat: str, ready: list[_Line], embed_turn: _Turn | None = None
    ) -> dict[str, Vector]:
        """Record the lines durably (done once written, core/durable.py, issue 12) and embed
        them; returns the names' vectors. A chat's calls embed in the order they were made:
        when the next batch's embedding interleaved with this one's, the first batch of an
        import waited for both (1.7 s instead of ~0.9 s before the first write, 10,000 facts
        through `python -m bot ingest`, 2026-12-07)."""
        done = await durable.begin_many(self.inbound, [_record(chat, x) for x in ready])
        for line in ready:
            line.settled = line.msg_id in done
        async with embed_turn or contextlib.nullcontext():
            await self._embed_messages(ready)
            return await self._embed_names(ready)

    def _check_all(
        self, items: Sequence[ImportItem]
    ) -> tuple[list[IngestResult | CoreError | None], list[_Line]]:
        out: list[IngestResult | CoreError | None] = [None] * len(items)
        ready: list[_Line] = []
        for i, item in enumerate(items):
            got = self._check(i, item)
            if isinstance(got, _Line):
                ready.append(got)
            else:
                out[i] = got
        return out, ready

    async def _write_in_turn(
        self,
        chat: str,
        items: Sequence[ImportItem],
        out: list[IngestResult | CoreError | None],
        ready: list[_Line],
        names: dict[str, Vector],
    ) -> list[IngestResult | CoreError]:
        if self.llm is not None:  # messages go to the LLM one by one; facts still in bulk
            for line in [x for x in ready if x.triple is None]:
                out[line.index] = await self._one(chat, items[line.index])
            ready = [x for x in ready if x.triple is not None]
            if ready:
                names = await self._prepare(chat, ready)
        stop = self.config.world_mode == WorldMode.ADAPTIVE
        while ready:  # recorded by _prepare, marked done once written
            part = ready

            def write(
                store: GraphStore, part: list[_Line] = part, stop: bool = stop
            ) -> list[IngestResult]:
                return self._write(store, part, {**names, **_borne(store, names)}, stop=stop)

            try:
                results = await self.pool.run(chat, write)
            except Exception:
                # rolled back, but the chat's in-memory indexes saw the batch: reload them, and
                # give each line its own outcome the slow way
                log.warning(
                    "chat=%s bulk batch failed, retrying its lines one by one", chat, exc_info=True
                )
                await self._reload(chat)
                for line in part:
                    out[line.index] = await self._one(chat, items[line.index])
                results = []
                done, ready = part, []
            else:
                for line, result in zip(part, results, strict=False):
                    out[line.index] = result
                done, ready = part[: len(results)], part[len(results) :]
                # the job a line made due runs before the lines after it are routed, as if
                # they had come one by one (core/pipeline/due.py)
                if not await self.regroup(chat) and not results:
                    stop = False  # due but it failed: the rest goes without it
            await durable.finish_many(self.inbound, chat, [x.msg_id for x in done])
            self._unreleased[chat] = self._unreleased.get(chat, 0) + len(done)
            if self._unreleased[chat] >= RELEASE_EVERY:  # frees what the writes held (release)
                self._unreleased[chat] = 0
                await self.pool.release(chat)
        return [r for r in out if r is not None]

    def _check(self, index: int, item: ImportItem) -> _Line | IngestResult | CoreError:
        """What remember / remember_triple check before storing anything."""
        msg_id = message_ref(item.message_id) or new_id("m")
        if item.triple is not None:
            t = item.triple
            reason = self.ontology.check(t.subject_kind, t.predicate, t.object_kind)
            if reason is not None:
                return IngestResult(message_id="", rejected=[Rejection(triple=t, reason=reason)])
            text = f"{t.subject} {t.predicate} {t.object}"
            return _Line(index, msg_id, item.author, text, self.clock.now(), t)
        try:
            text = self.check_text(item.text or "")
        except CoreError as exc:
            return exc
        author = clean_name(item.author or "user")[:100] or "user"
        ts = item.ts or self.clock.now()
        return _Line(index, msg_id, author, text, ts, None, reply_to=message_ref(item.reply_to))

    async def _one(self, chat: str, item: ImportItem) -> IngestResult | CoreError:
        try:
            if item.triple is not None:
                return await self.remember_triple(
                    chat, item.triple, author=item.author, message_id=item.message_id
                )
            message = IncomingMessage(
                author=item.author,
                text=item.text or "",
                message_id=item.message_id,
                ts=item.ts,
                reply_to=item.reply_to,
            )
            return await self.remember(chat, message)
        except CoreError as exc:
            return exc
        except Exception:  # a fault of ours in one line must not lose the lines after it
            log.exception("chat=%s import line could not be stored", chat)
            await self._reload(chat)
            return StoreError("could not be stored (an internal error, logged); line skipped")

    async def _reload(self, chat: str) -> None:
        """After a write that failed: its transaction rolled back, but the chat's in-memory
        indexes (and the regrouping's count) saw it; they are read again from the store."""
        await self.pool.discard(chat)
        self.ctx.regroup_due.forget(chat)

    async def _embed_messages(self, lines: list[_Line]) -> None:
        """The vector message_vector gives each line (its text alone), each distinct text
        embedded once, through the routing cache as the one-line path puts them there."""
        vectors = await self._cached(self.ctx.route_vectors, [x.text for x in lines])
        for line, emb in zip(lines, vectors, strict=True):
            line.emb = emb

    async def _cached(self, cache: RouteVectors, texts: list[str]) -> list[Vector]:
        """texts' vectors, embedding only those the cache does not hold (an import repeats
        many: 10,000 generated chat lines hold 4,154 distinct "author: text")."""
        known = cache.lookup(texts)
        missing = [t for t, v in known.items() if v is None]
        return cache.given(texts, known, list(await self._embed_chunked(missing)))

    async def _embed_names(self, lines: list[_Line]) -> dict[str, Vector]:
        """Vectors of the explicit facts' names, for the entities the batch may create: from
        the import's recent names, or embedded (a name is embedded alone, so its vector is
        the name's). When the batch is written, a name an entity of the chat already bears
        takes that entity's vector instead (_borne), as the one-line path's would. Measured:
        with only the names the chat had no key for, 4,096 facts still embedded 6 s of names
        one line at a time. Names the offline extractor finds in messages are embedded as they
        are found."""
        names = {
            name
            for x in lines
            if x.triple is not None
            for n in (x.triple.subject, x.triple.object)
            if name_key(name := clean_name(n))
        }
        known = {n: self._names.get(n) for n in sorted(names)}
        fresh = [n for n, v in known.items() if v is None]
        for name, vec in zip(fresh, await self._embed_chunked(fresh), strict=True):
            known[name] = own = vec.copy()
            self._names.put(name, own)
        return {n: v for n, v in known.items() if v is not None}

    async def _embed_chunked(self, texts: list[str]) -> Vector:
        """One embedding call per EMBED_CHUNK texts, shortest first so a call pads little: a
        model's activations grow with the batch (a batch of 256 lines took the import to ~1 GB
        of RSS, measured) and per text the cost is flat beyond a few dozen."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        gate = asyncio.Semaphore(EMBED_WORKERS)

        async def part(k: int) -> Vector:
            async with gate:
                return await self.embed([texts[i] for i in order[k : k + EMBED_CHUNK]])

        parts = await asyncio.gather(*(part(k) for k in range(0, len(order), EMBED_CHUNK)))
        if not parts:
            return np.zeros((0, self.embedder.dim), np.float32)
        vecs = np.empty_like(parts[0], shape=(len(texts), parts[0].shape[1]))
        vecs[order] = np.concatenate(parts)
        return vecs

    def _write(
        self, store: GraphStore, lines: list[_Line], names: dict[str, Vector], *, stop: bool
    ) -> list[IngestResult]:
        """The batch's lines in one transaction, each through the one-line path's steps, its
        rows written together (the store's staged writes). With `stop`, the batch ends before
        a message when the regrouping job is due: the results of the lines written."""
        results = []
        due = self.ctx.regroup_due
        with store.staged():
            for x in lines:
                if stop and x.triple is None and due.pending(store):
                    break
                assert x.emb is not None
                checked = Checked(x.msg_id, x.author, x.text, x.ts, x.emb, x.reply_to)
                if x.triple is not None:
                    stored = self.store_message(store, checked, Extraction.EXPLICIT)
                    if not stored.duplicate:
                        world = stored.world
                        stored = self.write_triples(  # stated: as remember_triple
                            store,
                            [x.triple],
                            source=x.msg_id,
                            world=world,
                            names=names,
                            loose=False,
                        )
                    results.append(stored)
                else:
                    results.append(self.ingest_offline(store, checked, settled=x.settled))
        return results
