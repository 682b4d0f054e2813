"""Maintenance jobs for one chat: confidence decay, world merge and death, retries of failed
LLM extractions. bot/jobs.py schedules them through Core."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from itertools import combinations
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from core.config import WorldMode
from core.errors import LlmUnavailable
from core.language import clean_name, name_key
from core.llm import budget_scope
from core.models import FactStatus
from core.pipeline.context import Context, Stage
from core.pipeline.due import RegroupDue
from core.pipeline.ingest import Ingest
from core.ports import GraphStore
from core.regroup import MAX_MESSAGES, Apart, Rows, plan
from core.regroup_apply import Settled, carry_out, set_centroids, settle
from core.rows import Extraction, MessageRow, WorldRow
from core.world_names import OfflineNaming, newest_texts, rename_offline
from core.worlds import WorldParams, entities_by_name, merge_all

log = logging.getLogger(__name__)
T = TypeVar("T")


class Maintenance(Stage):
    def __init__(self, ctx: Context, ingest: Ingest) -> None:
        super().__init__(ctx)
        self.ingest = ingest

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int:
        """Re-run the LLM on messages whose extraction failed; returns how many succeeded."""
        if self.llm is None:
            return 0
        rows: list[MessageRow] = await self.pool.run(
            chat, lambda s: s.messages_with_extraction(Extraction.FAILED, limit)
        )
        done = 0
        for row in rows:
            await self.ingest.extract_with_llm(chat, row.id, row.author, row.text, row.world)
            still = await self.pool.run(chat, partial(_messages, ids=[row.id]))
            done += bool(still) and still[0].extraction == Extraction.LLM
        return done

    async def decay(self, chat: str, *, half_life: timedelta, floor: float) -> int:
        """Close (never erase) facts whose decayed confidence fell below the floor.

        Stored confidence is the value at the last confirmation; the decayed value is derived
        from the time since, so running the job twice changes nothing twice.
        """
        now = self.clock.now()

        def run(store: GraphStore) -> int:
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
        await self.rename_with_llm(chat, sorted({new for _, new in pairs}))
        return pairs

    async def regroup_worlds(self, chat: str) -> dict[str, int]:
        """The regrouping job for one chat (core.regroup): re-assign, merge, split, rename.
        Single mode keeps one world per chat, so there is nothing to regroup."""
        if self.config.world_mode != WorldMode.ADAPTIVE:
            return {"moved": 0, "split": 0, "merged": 0}
        due = self.ctx.regroup_due
        offline = self.offline_names()

        def resume(store: GraphStore) -> tuple[dict[str, int], list[str]] | None:
            return finish_recorded(store, self.clock.now(), due, offline_names=offline)

        resumed = await self._rolled_back_on_error(chat, resume)
        if resumed is not None:  # a plan a kill cut short: finished, as it was planned
            await self.rename_with_llm(chat, resumed[1])
            return resumed[0]
        rows = await self.pool.run(chat, _live_messages)
        if len(rows) < 2:
            await self.pool.run(chat, partial(due.ran, seen=len(rows)))
            return {"moved": 0, "split": 0, "merged": 0}
        apart = await self.pool.run(chat, partial(apart_by_kind, rows=rows))
        x = (await self._routing_of(chat, rows)).astype(np.float64)
        ts = np.array([r[2].timestamp() for r in rows], dtype=np.float64)
        labels = [r[1] for r in rows]
        groups = await asyncio.to_thread(plan, labels, ts, x, self.world_params, apart)
        now = self.clock.now()

        def run(store: GraphStore) -> tuple[dict[str, int], list[str]]:
            return apply_and_mark(store, rows, groups, x, now, due, offline_names=offline)

        report, changed = await self._rolled_back_on_error(chat, run)
        if any(report.values()):
            log.info("chat=%s regrouped: %s", chat, report)
        await self.rename_with_llm(chat, changed)
        return report

    async def _routing_of(
        self, chat: str, rows: list[tuple[str, str, datetime, str]]
    ) -> npt.NDArray[np.float32]:
        """The job's messages' routing vectors: recent ones from the routing cache, the rest
        read from the store (a message is stored with the vector of its text alone,
        Ingest.message_vector), embedded only when neither holds one. Before, the first run
        after a restart embedded up to MAX_MESSAGES messages again."""
        cache = self.ctx.route_vectors
        unseen = [r[0] for r in rows if cache.get(r[3]) is None]
        if unseen:

            def read(store: GraphStore) -> dict[str, npt.NDArray[np.float32]]:
                found = {i: store.message_vectors.vector(i) for i in unseen}
                return {i: v.copy() for i, v in found.items() if v is not None}

            stored = await self.pool.run(chat, read)
            for mid, _, _, text in rows:
                if mid in stored:
                    cache.put(text, stored[mid])
        return await self.route_vectors([r[3] for r in rows])

    async def _rolled_back_on_error(self, chat: str, fn: Callable[[GraphStore], T]) -> T:
        """fn(store) for the regrouping job; if it fails, its transactions are rolled back but
        the chat's in-memory indexes followed its moves: the chat is read again."""
        try:
            return await self.pool.run(chat, fn)
        except Exception:
            await self.pool.discard(chat)
            self.ctx.regroup_due.forget(chat)
            raise

    async def regroup_if_due(self, chat: str) -> bool:
        """Run the regrouping job from the message path when a message made it due
        (core/pipeline/due.py); True when it ran."""
        if self.config.world_mode != WorldMode.ADAPTIVE:
            return False
        due = self.ctx.regroup_due
        pending = due.known(chat)
        if pending is None:  # not held here: a message taken up again after a restart
            pending = await self.pool.run(chat, due.pending)
        if not pending:
            return False
        try:
            await self.regroup_worlds(chat)
        except Exception:  # the message is stored; the next message or the job tries again
            log.exception("chat=%s regrouping after ingest failed", chat)
            return False
        return True

    async def rename_with_llm(self, chat: str, world_ids: list[str]) -> None:
        """A short LLM topic name for worlds that changed a lot (split, merged into, received
        or lost messages); the current name stays when the LLM fails."""
        if self.llm is None or not world_ids:
            return
        samples = await self.pool.run(chat, partial(_samples, world_ids=world_ids))
        for wid, texts in samples.items():
            try:
                with budget_scope(chat):
                    topic = (await self.llm.topic_name(texts=texts)).strip()[:80]
            except LlmUnavailable as exc:
                log.info("chat=%s world %s keeps its name (LLM failed: %s)", chat, wid, exc)
                continue
            if topic:
                await self.pool.run(chat, partial(_rename, world_id=wid, topic=topic))

    async def remove_dead_worlds(self, chat: str, *, idle: timedelta) -> list[str]:
        """Death: live worlds with no active facts and no message for `idle` are removed."""
        now = self.clock.now()

        def run(store: GraphStore) -> list[str]:
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


def _samples(store: GraphStore, world_ids: list[str], n: int = 8) -> dict[str, list[str]]:
    """The newest few messages of each world (what a topic name is asked from): those the
    offline names are made from (a merge moves its messages into the world that stays, so
    they name live worlds only)."""
    newest = newest_texts(store, n)
    return {w: newest[w] for w in world_ids if newest.get(w)}


def _rename(store: GraphStore, world_id: str, topic: str) -> None:
    store.rename_world(world_id, topic)


PLAN = "regroup_plan"  # the chat's meta record of a plan being carried out (core.regroup)


def apply_and_mark(
    store: GraphStore,
    rows: list[tuple[str, str, datetime, str]],
    groups: list[int],
    x: npt.NDArray[np.float64],
    now: datetime,
    due: RegroupDue,
    *,
    offline_names: OfflineNaming | None,
) -> tuple[dict[str, int], list[str]]:
    """A regrouping plan carried out (under the chat's lock): recorded with the new worlds it
    needs in one transaction, its moves and merges one transaction each (core.regroup_apply.carry_out
    says why), then the centroids, the offline names and the job's mark with the record
    cleared. A kill in between leaves the record: `finish_recorded` completes it at the next
    start, so the chat ends as if nothing had happened. (report, live worlds that changed)."""
    settled = settle(store, [r[0] for r in rows], [r[1] for r in rows], groups, x)
    with store.transaction():
        for wid in settled.new_worlds:
            store.upsert_world(WorldRow(wid, "", np.zeros(x.shape[1], np.float32), 0, now, now, ""))
        store.set_meta(PLAN, settled.to_json())
    return _finish(store, settled, now, due, offline_names=offline_names)


def _finish(
    store: GraphStore,
    settled: Settled,
    now: datetime,
    due: RegroupDue,
    *,
    offline_names: OfflineNaming | None,
) -> tuple[dict[str, int], list[str]]:
    report = carry_out(store, settled, now)
    with store.transaction():
        set_centroids(store, settled)
        if offline_names is not None:  # offline: not by the verbs of its facts
            rename_offline(store, offline_names)
        due.ran(store, seen=settled.seen)
        store.set_meta(PLAN, "")
    return report, [w for w in settled.changed if w in store.worlds]


def finish_recorded(
    store: GraphStore,
    now: datetime,
    due: RegroupDue,
    *,
    offline_names: OfflineNaming | None,
) -> tuple[dict[str, int], list[str]] | None:
    """Finish the plan a kill cut short, if the chat records one (None when it does not)."""
    recorded = store.meta(PLAN)
    if not recorded:
        return None
    done = _finish(store, Settled.from_json(recorded), now, due, offline_names=offline_names)
    log.info("chat=%s regrouping plan finished after a restart: %s", store.chat, done[0])
    return done


def regroup_now(
    store: GraphStore,
    vectors: Callable[[list[str]], npt.NDArray[np.float32]],
    params: WorldParams,
    due: RegroupDue,
    now: datetime,
    *,
    offline_names: OfflineNaming | None,
) -> dict[str, int]:
    """The regrouping job in one call under the chat's lock, for a caller that already holds
    it (a chat rebuilt from its record, History.rebuild); Maintenance.regroup_worlds plans
    off the lock instead."""
    rows = _live_messages(store)
    if len(rows) < 2:
        due.ran(store, seen=len(rows))
        return {"moved": 0, "split": 0, "merged": 0}
    x = vectors([r[3] for r in rows]).astype(np.float64)
    ts = np.array([r[2].timestamp() for r in rows], dtype=np.float64)
    groups = plan([r[1] for r in rows], ts, x, params, apart_by_kind(store, rows))
    return apply_and_mark(store, rows, groups, x, now, due, offline_names=offline_names)[0]


_CLASH = re.compile(r"(?:^|; )(.+?) is an? (\w+) in this world")


def apart_by_kind(store: GraphStore, rows: list[tuple[str, str, datetime, str]]) -> Apart:
    """The messages the job should not group together (core.regroup, `apart`), as row
    numbers: the graph says they use one name in two meanings (issue 15, target 5).
    - a fact waiting in review because its name is another kind in its world ("Jakarta is
      located on Java" where Java is a programming language): its message, against the
      messages of the facts that made the name that kind;
    - one name, entities of two kinds in two worlds (the review approved, or each meaning
      told in its own world): the messages of one entity's facts against the other's.
    Row sets that share a message are left out (one message cannot be on both sides)."""
    at = {r[0]: i for i, r in enumerate(rows)}

    def sources(entity_id: str) -> set[int]:
        return {at[m] for m in store.fact_sources([entity_id], limit=MAX_MESSAGES) if m in at}

    out: list[tuple[Rows, Rows]] = []

    def add(a: set[int], b: set[int]) -> None:
        a, b = a - b, b - a
        if a and b:
            out.append((np.array(sorted(a), dtype=np.int64), np.array(sorted(b), np.int64)))

    by_name = entities_by_name(store)
    for item in store.pending():
        mine = {at[m] for m in item.sources if m in at}
        if not mine or " in this world" not in item.reason:
            continue
        for name, kind in _CLASH.findall(item.reason):
            # in whichever world that kind of the name now is (a regrouping may have moved
            # the waiting message away from it); its own message may state other facts of it
            for entity in by_name.get(name_key(clean_name(name)), []):
                if entity.kind == kind:
                    add(mine, sources(entity.id) - mine)
    for same_name in by_name.values():
        for one, other in combinations(same_name, 2):
            if one.kind != other.kind:
                add(sources(one.id), sources(other.id))
    return out


def _live_messages(store: GraphStore) -> list[tuple[str, str, datetime, str]]:
    """The newest messages of live worlds, each under the world it now belongs to (a dead
    world's messages stay in the record, out of every world)."""
    rows = []
    for mid, world, ts, text in store.world_messages(newest=MAX_MESSAGES):
        live = store.resolve_world(world)
        if live in store.worlds and not store.worlds[live].merged_into:
            rows.append((mid, live, ts, text))
    return rows


def _messages(store: GraphStore, ids: list[str]) -> list[MessageRow]:
    return store.messages(ids)


def decayed_confidence(confidence: float, age: timedelta, half_life: timedelta) -> float:
    if half_life.total_seconds() <= 0:
        return confidence
    return float(confidence * 0.5 ** (max(age.total_seconds(), 0.0) / half_life.total_seconds()))
