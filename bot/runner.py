"""`make run`: the configured front-ends plus the scheduler; the console when no token is set."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Coroutine
from typing import Any

from bot.app import build_core
from bot.jobs import build_scheduler
from bot.settings import Settings

log = logging.getLogger(__name__)


async def run_all(settings: Settings) -> int:
    core = build_core(settings)
    from core.durable import recover

    await recover(core)  # messages a crash left without their facts, before anything new
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # non-Unix loops
            loop.add_signal_handler(sig, stop.set)
    fronts: list[Coroutine[Any, Any, None]] = []
    if settings.telegram.bot_token is not None:
        from bot.telegram.runner import run_telegram

        fronts.append(
            run_telegram(core, settings.telegram, stop_event=stop, handoff=settings.handoff)
        )
    slack = settings.slack
    if slack.bot_token is not None and (
        slack.app_token is not None or slack.signing_secret is not None
    ):
        from bot.slack.runner import run_slack

        fronts.append(run_slack(core, slack, stop_event=stop, handoff=settings.handoff))
    scheduler = build_scheduler(core, settings)
    scheduler.start()
    try:
        if not fronts:
            log.info("no TELEGRAM_BOT_TOKEN or Slack tokens: starting the console front-end")
            from bot.console import run_console

            console = asyncio.create_task(run_console(core))
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait({console, stopper}, return_when=asyncio.FIRST_COMPLETED)
            for task in (console, stopper):
                task.cancel()
        else:
            await asyncio.gather(*fronts)
    finally:
        scheduler.shutdown(wait=False)
        await core.close()
        if core.handoff is not None:
            await core.handoff.aclose()
    return 0
