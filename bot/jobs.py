"""Background jobs (APScheduler 3.11 AsyncIOScheduler in the bot process).

Each job walks the chats one at a time through the core, which takes each chat's lock, so a
job never races a chat's writes; a failure in one chat is logged and the others go on.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from bot.settings import Settings
from core.service import Core

log = logging.getLogger(__name__)


async def decay_job(core: Core, settings: Settings) -> dict[str, int]:
    closed = 0
    for chat in core.pool.chats():
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


async def retry_job(core: Core, settings: Settings) -> dict[str, int]:
    done = 0
    for chat in core.pool.chats():
        try:
            done += await core.retry_failed_extractions(chat)
        except Exception:
            log.exception("chat=%s extraction retry failed", chat)
    if done:
        log.info("retry: %d extractions succeeded", done)
    return {"retried": done}


async def run_jobs_once(core: Core, settings: Settings) -> dict[str, Any]:
    report: dict[str, Any] = {}
    report.update(await decay_job(core, settings))
    report.update(await retry_job(core, settings))
    return report


def build_scheduler(core: Core, settings: Settings) -> Any:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    scheduler = AsyncIOScheduler(
        timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 30},
    )
    jobs = settings.jobs
    scheduler.add_job(decay_job, "interval", minutes=jobs.decay_minutes, args=[core, settings],
                      id="decay", replace_existing=True)
    scheduler.add_job(retry_job, "interval", minutes=jobs.retry_minutes, args=[core, settings],
                      id="retry", replace_existing=True)
    return scheduler
