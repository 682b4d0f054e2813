"""Maintenance jobs for one chat: confidence decay, world merge and death, retries of failed
LLM extractions. bot/jobs.py schedules them through Core."""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from datetime import datetime, timedelta
from functools import partial

import numpy as np

from core.config import WorldMode
from core.errors import LlmUnavailable
from core.llm import budget_scope
from core.models import FactStatus
from core.pipeline.context import Context, Stage
from core.pipeline.ingest import Ingest
from core.ports import GraphStore
from core.regroup import MAX_MESSAGES, MIN_PART, apply_plan, plan
from core.rows import Extraction, MessageRow
from core.world_names import rename_offline
from core.worlds import merge_all

log = logging.getLogger(__name__)

GROWTH_MIN = 2 * MIN_PART  # the smallest world the job can split in two
GROWN_CHATS = 10_000  # chats whose counts are kept (least recently used dropped)


class Maintenance(Stage):
    def __init__(self, ctx: Context, ingest: Ingest) -> None:
        super().__init__(ctx)
        self.ingest = ingest
        # chat -> (live messages the regrouping job last saw, messages remembered since)
        self._grown: OrderedDict[str, tuple[int, int]] = OrderedDict()

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
        rows = await self.pool.run(chat, _live_messages)
        self._grown[chat] = (len(rows), 0)
        if len(rows) < 2:
            await self.pool.run(chat, partial(_mark_regrouped, seen=len(rows)))
            return {"moved": 0, "split": 0, "merged": 0}
        x = (await self.route_vectors([r[3] for r in rows])).astype(np.float64)
        ts = np.array([r[2].timestamp() for r in rows], dtype=np.float64)
        groups = await asyncio.to_thread(plan, [r[1] for r in rows], ts, x, self.world_params)
        now = self.clock.now()
        ids, old = [r[0] for r in rows], [r[1] for r in rows]

        def run(store: GraphStore) -> tuple[dict[str, int], list[str]]:
            with store.transaction():
                report, changed = apply_plan(store, ids, old, groups, x, now)
                if self.llm is None:
                    rename_offline(store)
                _mark_regrouped(store, seen=len(rows))
            return report, changed

        report, changed = await self.pool.run(chat, run)
        if any(report.values()):
            log.info("chat=%s regrouped: %s", chat, report)
        await self.rename_with_llm(chat, changed)
        return report

    async def regroup_when_due(self, chat: str, *, born: bool, duplicate: bool = False) -> bool:
        """Run the regrouping job from the message path when it is due; True when it ran.

        Two reasons, each measured on the tuning part of tests/fixtures/worlds2 with USE
        (purity / cluster / worlds per topic, the stream read in order, with the job of
        core.regroup):

        * young worlds: this message started a world and world_params.young_worlds worlds hold
          fewer than MIN_PART messages (live routing left fragments or strays): 0.887 / 0.964 /
          2.33 without, 0.970 / 0.977 / 1.58 with. Asked only after a message that started a
          world, so at most one run per new world;
        * growth: the chat's worlds received world_params.growth_share (0.5) of the messages
          the job last saw, at least GROWTH_MIN, since it last ran. Live routing glues a topic
          switch into the previous world when the two topics are close (six messages on Python
          code, then six on a pet python, back to back: one world), no world is born, so the
          first rule never fires and the glued world waited for the scheduler; now it is split
          within GROWTH_MIN messages (tests/worlds/test_regroup.py). USE, tuning part: the same
          0.970 / 0.977 / 1.58; first stream 0.986 / 1.000 / 1.25 -> 0.995 / 1.000 / 1.12.
          MiniLM, English: tuning part unchanged (0.927 / 0.881 / 1.50), first stream 0.877 /
          0.904 / 1.62 -> 0.822 / 0.959 / 1.75 (less mixing, more fragments). A share of 0.25
          gave the same with USE and worse MiniLM figures. Geometric, so its cost per message
          stays bounded: at the job's 2,000-message window one run per 1,000 messages.

        The counts are kept with the chat (_mark_regrouped), so a restart changes nothing: a
        bot killed and restarted regroups at the same messages as one that ran through (the
        crash test compares the two, tests/test_crash.py). A duplicate is not counted."""
        if self.config.world_mode != WorldMode.ADAPTIVE:
            return False
        if chat in self._grown:
            seen, since = self._grown[chat]
            since += not duplicate
        else:  # first message since the start (or since the chat was dropped from the counts)
            seen, since = await self.pool.run(chat, _regrouped)
        self._grown[chat] = (seen, since)
        self._grown.move_to_end(chat)
        while len(self._grown) > GROWN_CHATS:
            self._grown.popitem(last=False)
        share = self.world_params.growth_share
        due = share > 0 and since >= max(GROWTH_MIN, share * seen)
        if not due and born and self.world_params.young_worlds > 0:
            wanted = self.world_params.young_worlds
            young = await self.pool.run(
                chat,
                lambda s: sum(
                    1 for w in s.worlds.values() if not w.merged_into and 0 < w.messages < MIN_PART
                ),
            )
            due = young >= wanted
        if not due:
            return False
        try:
            await self.regroup_worlds(chat)
        except Exception:  # the message is stored; the scheduled job tries again later
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
    """The newest few messages of each world (what a topic name is asked from)."""
    out: dict[str, list[str]] = {w: [] for w in world_ids}
    for _, world, _, text in reversed(store.world_messages()):
        bucket = out.get(store.resolve_world(world))
        if bucket is not None and len(bucket) < n:
            bucket.append(text)
    return {w: texts for w, texts in out.items() if texts}


def _rename(store: GraphStore, world_id: str, topic: str) -> None:
    store.rename_world(world_id, topic)


def _live_messages(store: GraphStore) -> list[tuple[str, str, datetime, str]]:
    """The newest messages of live worlds, each under the world it now belongs to (a dead
    world's messages stay in the record, out of every world)."""
    rows = []
    for mid, world, ts, text in store.world_messages()[-MAX_MESSAGES:]:
        live = store.resolve_world(world)
        if live in store.worlds and not store.worlds[live].merged_into:
            rows.append((mid, live, ts, text))
    return rows


REGROUPED = "regrouped"  # the chat's meta record: "<live messages seen> <messages stored>"


def _mark_regrouped(store: GraphStore, seen: int) -> None:
    """What the regrouping job saw when it ran: the live messages it re-examined, and the
    chat's stored messages at that point (what regroup_when_due counts growth from)."""
    store.set_meta(REGROUPED, f"{seen} {store.message_count()}")


def _regrouped(store: GraphStore) -> tuple[int, int]:
    """(live messages the job last saw, messages stored since), from the chat's meta record;
    (0, all) for a chat the job never ran on."""
    seen, stored = (int(x) for x in (store.meta(REGROUPED) or "0 0").split())
    return seen, max(store.message_count() - stored, 0)


def _messages(store: GraphStore, ids: list[str]) -> list[MessageRow]:
    return store.messages(ids)


def decayed_confidence(confidence: float, age: timedelta, half_life: timedelta) -> float:
    if half_life.total_seconds() <= 0:
        return confidence
    return float(confidence * 0.5 ** (max(age.total_seconds(), 0.0) / half_life.total_seconds()))
