"""Answer a question: retrieve (retrieve.py), let the LLM phrase it from the selected facts
when there is one (the extractive text otherwise), and store the trace."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from datetime import datetime, timedelta

from core.errors import LlmUnavailable
from core.langid import detect, recent_language
from core.llm import budget_scope
from core.models import Answer, EvidenceHit, Trace
from core.pipeline.bridge import question_forms
from core.pipeline.context import Context
from core.pipeline.render import EXTRACTIVE_FACTS
from core.pipeline.retrieve import Retriever
from core.ports import GraphStore, Vector
from core.questions import expand_contractions, points_back, read_with

log = logging.getLogger(__name__)


RECENT_LANGUAGE_CHATS = 10_000  # chats whose last language is kept in memory (the prior)
FOLLOW_UP_S = 600  # a question that points back is read with its asker's last one this recent
ASKERS = 10_000  # (chat, asker) pairs whose last question is kept in memory
MAX_READ_WITH = 300  # characters of the last question a follow-up is read with
TRACE_DELAY_S = 0.25  # see Answerer._keep_trace


class Answerer(Retriever):
    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self._recent_language: dict[str, str] = {}  # chat -> its last message's language
        self._traces: dict[str, list[Trace]] = {}  # answered, not yet stored
        # chat -> its trace writer and the event that makes it write now (a reader waits)
        self._trace_writers: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}
        # (chat, asker) -> what their last question was read as, and when
        self._last_read: OrderedDict[tuple[str, str], tuple[str, datetime]] = OrderedDict()

    async def language(self, chat: str, text: str) -> str:
        """The language of a message; the chat's recent language decides when the message
        itself says nothing ("ok", "Python?"). After a restart, the chat's last messages."""
        recent = self._recent_language
        prior = recent.get(chat)
        if prior is None:
            prior = await self.pool.run(chat, lambda s: recent_language(s.recall.texts[-5:]))
        lang, cue = detect(text, prior)
        if cue:
            recent.pop(chat, None)
            recent[chat] = lang
            if len(recent) > RECENT_LANGUAGE_CHATS:
                del recent[next(iter(recent))]
        return lang

    def forget_language(self, chat: str) -> None:
        self._recent_language.pop(chat, None)

    async def ask(self, chat: str, question: str, *, author: str | None = None) -> Answer:
        question = self.check_text(question)
        lang = await self.language(chat, question)
        plain = expand_contractions(question)  # what is read and embedded ("who's" -> "who is")
        plain = self._read_with_last(chat, author, plain)
        q_emb = await self._embed_question(plain, lang)
        got = await self.pool.run(chat, lambda s: self.retrieve(s, plain, q_emb, lang))
        answer = got.answer
        cited = [f.id for f in answer.facts[:EXTRACTIVE_FACTS]]  # what the extractive text lists
        if self.llm is not None and (answer.facts or got.evidence_text):
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
        self._keep_trace(chat, trace)
        return answer

    async def _embed_question(self, question: str, lang: str) -> Vector:
        """The question's vector, and in the same model call the forms of its words the quote's
        word bridge has not met yet (a call costs ~0.7 ms however few its words; a running
        bot knows its chat's words, and each question brought the bridge one call of its
        own for its new ones)."""
        words = question_forms(self.ctx, lang, question)
        known = self.ctx.word_vectors.lookup(words)
        missing = [w for w, v in known.items() if v is None]
        vectors = await self.embed([question, *missing])
        self.ctx.word_vectors.given(words, known, list(vectors[1:]))
        q_emb: Vector = vectors[0]
        return q_emb

    def _read_with_last(self, chat: str, author: str | None, question: str) -> str:
        """The question as it is read: after the same person's question of the last
        FOLLOW_UP_S seconds when it points back to it ("how much is it?", core.questions).
        Only for a known asker (the front-ends pass theirs; a batch of questions from the CLI
        or a bench has none: its questions are independent)."""
        if author is None:
            return question
        key, now = (chat, author), self.clock.now()
        last = self._last_read.pop(key, None)
        recent = last is not None and now - last[1] <= timedelta(seconds=FOLLOW_UP_S)
        if last is not None and recent and points_back(question):
            # a chain of them ("how much is it?", "and for kids?") keeps the first one's words
            question = read_with(last[0][-MAX_READ_WITH:], question)
        self._last_read[key] = (question, now)
        while len(self._last_read) > ASKERS:
            self._last_read.popitem(last=False)
        return question

    # ------------------------------------------------------------------ traces
    # A trace is stored after its answer is returned, not before: the write (a Kùzu statement
    # and its commit, 2-4 ms at 10k facts) then overlaps the next question's embedding instead
    # of adding to this one's latency, and the traces of questions asked meanwhile share one
    # transaction. Readers wait for it (`traces_stored`): /why, forgetting a chat, close.
    # The writer waits TRACE_DELAY_S first (unless a reader asks for the traces), so that a
    # burst of questions (a chat asking in a row, `ask --questions`) shares one transaction
    # instead of each question waiting for the previous one's commit: the commit is most of a
    # trace's write (BEGIN 0.5 + CREATE 1.5 + COMMIT 3.3 ms per question at 1k facts, measured
    # by statement), which the next question waited for under the chat's lock.
    def _keep_trace(self, chat: str, trace: Trace) -> None:
        self._traces.setdefault(chat, []).append(trace)
        if chat not in self._trace_writers:
            flush = asyncio.Event()
            task = asyncio.get_running_loop().create_task(self._store_traces(chat, flush))
            self._trace_writers[chat] = (task, flush)

    async def _store_traces(self, chat: str, flush: asyncio.Event) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(flush.wait(), TRACE_DELAY_S)
            while batch := self._traces.pop(chat, None):

                def write(store: GraphStore, batch: list[Trace] = batch) -> None:
                    with store.transaction():
                        for tr in batch:
                            store.add_trace(tr.id, tr.model_dump_json(), tr.created_at)

                try:
                    await self.pool.run(chat, write)
                except Exception as exc:  # the answers were given; say what was not kept
                    log.warning("chat=%s %d traces not stored: %s", chat, len(batch), exc)
        finally:
            self._trace_writers.pop(chat, None)

    def adopt_traces(self, other: Answerer) -> None:
        """Take over another answerer's unwritten traces (Core rebuilt its stages)."""
        self._traces, self._trace_writers = other._traces, other._trace_writers

    async def traces_stored(self, chat: str | None = None, *, drop: bool = False) -> None:
        """Wait until the traces of answers given so far (in one chat, or all) are stored;
        `drop`: forget the ones not yet written instead (the chat is being erased)."""
        chats = [chat] if chat is not None else list(self._trace_writers)
        for c in chats:
            if drop:
                self._traces.pop(c, None)
            writer = self._trace_writers.get(c)
            if writer is not None:
                task, flush = writer
                flush.set()  # now, not after TRACE_DELAY_S
                await asyncio.shield(task)
