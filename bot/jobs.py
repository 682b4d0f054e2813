"""Background jobs (APScheduler 3.11 AsyncIOScheduler in the bot process).

Each job walks the chats one at a time through the core, which takes each chat's lock, so a
job never races a chat's writes; a failure in one chat is logged and the others go on.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from bot.settings import Settings
from core.contract import CoreApi

log = logging.getLogger(__name__)


async def decay_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    closed = 0
    for chat in core.chats():
        try:
            closed += await core.decay(
                chat,
                half_life=timedelta(days=settings.jobs.half_life_days),
                floor=settings.jobs.confidence_floor,
            )
        except Exception:
            log.exception("chat=%s decay failed", chat)
    log.info("decay: closed %d facts", closed)
    return {"closed": closed}


async def merge_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    """Merge worlds whose centroids drifted together (core.worlds.merge_all)."""
    merged = 0
    for chat in core.chats():
        try:
            merged += len(await core.merge_worlds(chat))
        except Exception:
            log.exception("chat=%s world merge failed", chat)
    log.info("merge: %d worlds merged", merged)
    return {"merged": merged}


async def regroup_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    """Re-examine each chat's worlds: re-assign, merge fragments, split two-topic worlds,
    rename (core.regroup)."""
    totals = {"regroup_moved": 0, "split": 0, "regroup_merged": 0}
    for chat in core.chats():
        try:
            report = await core.regroup_worlds(chat)
        except Exception:
            log.exception("chat=%s world regrouping failed", chat)
            continue
        totals["regroup_moved"] += report["moved"]
        totals["split"] += report["split"]
        totals["regroup_merged"] += report["merged"]
    log.info("regroup: %s", totals)
    return totals


async def death_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    """Remove worlds left with no active facts and no recent message."""
    removed = 0
    idle = timedelta(days=settings.jobs.world_idle_days)
    for chat in core.chats():
        try:
            removed += len(await core.remove_dead_worlds(chat, idle=idle))
        except Exception:
            log.exception("chat=%s world removal failed", chat)
    log.info("death: %d worlds removed", removed)
    return {"removed_worlds": removed}


async def worlds_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    report = await merge_job(core, settings)
    report.update(await regroup_job(core, settings))
    report.update(await death_job(core, settings))
    return report


async def retry_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    done = 0
    for chat in core.chats():
        try:
            done += await core.retry_failed_extractions(chat)
        except Exception:
            log.exception("chat=%s extraction retry failed", chat)
    if done:
        log.info("retry: %d extractions succeeded", done)
    return {"retried": done}


async def handoff_job(core: CoreApi, settings: Settings) -> dict[str, int]:
    """Issue 8: retry undelivered hand-off cards and failed edits, re-send untaken ones."""
    if core.handoff is None:
        return {}
    try:
        return await core.handoff.tick()
    except Exception:
        log.exception("hand-off job failed")
        return {}


async def run_jobs_once(core: CoreApi, settings: Settings) -> dict[str, Any]:
    report: dict[str, Any] = {}
    report.update(await decay_job(core, settings))  # first: closed facts let worlds die
    report.update(await worlds_job(core, settings))
    report.update(await retry_job(core, settings))
    report.update(await handoff_job(core, settings))
    return report


def build_scheduler(core: CoreApi, settings: Settings) -> Any:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    scheduler = AsyncIOScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 30},
    )
    jobs = settings.jobs
    every = [
        (decay_job, "decay", jobs.decay_minutes * 60),
        (worlds_job, "worlds", jobs.merge_minutes * 60),
        (retry_job, "retry", jobs.retry_minutes * 60),
    ]
    if core.handoff is not None:
        every.append((handoff_job, "handoff", settings.handoff.retry_seconds))
    for job, job_id, seconds in every:
        scheduler.add_job(
            job,
            "interval",
            seconds=seconds,
            args=[core, settings],
            id=job_id,
            replace_existing=True,
        )
    return scheduler
