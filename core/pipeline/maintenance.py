"""Maintenance jobs for one chat: confidence decay, world merge and death, retries of failed
LLM extractions. bot/jobs.py schedules them through Core."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

from core.models import FactStatus
from core.pipeline.context import Context, Stage
from core.pipeline.ingest import Ingest
from core.ports import GraphStore
from core.rows import MessageRow
from core.worlds import merge_all

log = logging.getLogger(__name__)


class Maintenance(Stage):
    def __init__(self, ctx: Context, ingest: Ingest) -> None:
        super().__init__(ctx)
        self.ingest = ingest

    async def retry_failed_extractions(self, chat: str, limit: int = 20) -> int:
        """Re-run the LLM on messages whose extraction failed; returns how many succeeded."""
        if self.llm is None:
            return 0
        rows: list[MessageRow] = await self.pool.run(
            chat, lambda s: s.messages_with_extraction("failed", limit)
        )
        done = 0
        for row in rows:
            await self.ingest.extract_with_llm(chat, row.id, row.author, row.text, row.world)
            still = await self.pool.run(chat, partial(_messages, ids=[row.id]))
            done += bool(still) and still[0].extraction == "llm"
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
        return pairs

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


def _messages(store: GraphStore, ids: list[str]) -> list[MessageRow]:
    return store.messages(ids)


def decayed_confidence(confidence: float, age: timedelta, half_life: timedelta) -> float:
    if half_life.total_seconds() <= 0:
        return confidence
    return float(confidence * 0.5 ** (max(age.total_seconds(), 0.0) / half_life.total_seconds()))
