"""Building the Bot and Dispatcher, and running them by long polling or webhook."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramAPIError, TelegramNetworkError
from aiogram.types import BotCommand
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

from bot.settings import HandoffSettings, TelegramSettings
from bot.telegram import callbacks, commands, messages
from bot.telegram import handoff as handoff_ui
from bot.telegram.errors import on_error
from bot.telegram.journal import (
    Journal,
    RecordingRequestHandler,
    RecordUpdates,
    take_up_unfinished,
)
from bot.telegram.keyboards import Confirmations
from bot.telegram.middlewares import ChatOrder, InFlight, Speaker
from bot.telegram.ratelimit import QuestionLimiter
from bot.telegram.session import RetryAfterSession
from bot.telegram.texts import LANGUAGES, command_list

if TYPE_CHECKING:
    from core.contract import CoreApi

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 30.0  # how long in-flight handlers may take to finish on stop
MAX_CONCURRENT_UPDATES = 64  # backpressure: polling pauses when this many are in flight
DEFAULT_WEBHOOK_PATH = "/telegram/webhook"


def create_bot(settings: TelegramSettings) -> Bot:
    if settings.bot_token is None:
        raise ValueError("TELEGRAM_BOT_TOKEN is not set")
    session = RetryAfterSession(api=TelegramAPIServer.from_base(settings.api_base))
    return Bot(
        settings.bot_token.get_secret_value(),
        session=session,
        # Every text we send is escaped for HTML in one place (common.send_long).
        # Link previews off: answers cite names, a preview card would only add noise.
        default=DefaultBotProperties(parse_mode=ParseMode.HTML, link_preview_is_disabled=True),
    )


def build_dispatcher(
    *, core: CoreApi, settings: TelegramSettings, handoff: HandoffSettings | None = None
) -> Dispatcher:
    dp = Dispatcher(name="graphmem")
    # Workflow data: handlers receive these by parameter name.
    dp["core"] = core
    dp["limiter"] = QuestionLimiter(settings.questions_per_minute)
    dp["confirmations"] = Confirmations()
    dp["inflight"] = inflight = InFlight()
    dp.update.outer_middleware(inflight)
    # ChatOrder before anything that awaits: it queues a chat's updates in arrival order, and
    # an await ahead of it (the journal's reads) would let a later update overtake
    dp.update.outer_middleware(ChatOrder())
    if core.inbound is not None:  # issue 12: durable updates
        dp.update.outer_middleware(Journal(core.inbound))
    dp.update.outer_middleware(Speaker())  # handlers get `chat` and `lang` by name
    # Order matters: commands and buttons first, free text (and unknown commands) last.
    routers = [commands.make_router(), callbacks.make_router()]
    manager_ids = handoff.telegram_manager_ids if handoff is not None else None
    if (service := handoff_ui.enabled(core, manager_ids)) is not None:  # issue 8: leads
        dp["handoff"] = service
        dp["handoff_managers"] = managers = frozenset(manager_ids or ())
        dp["handoff_languages"] = (
            (handoff.manager_languages, handoff.language) if handoff else ({}, "")
        )
        routers.append(handoff_ui.make_router(managers))
    dp.include_routers(*routers, messages.make_router())
    dp.errors.register(on_error)
    dp.startup.register(register_commands)
    return dp


async def register_commands(bot: Bot) -> None:
    """setMyCommands for each language; a failure here must not keep the bot from starting."""
    try:
        for lang in LANGUAGES:
            await bot.set_my_commands(
                [BotCommand(command=name, description=text) for name, text in command_list(lang)],
                language_code=None if lang == "en" else lang,
            )
    except (TelegramAPIError, TelegramNetworkError) as exc:
        log.warning("telegram: setMyCommands failed: %s", type(exc).__name__)


async def run_telegram(
    core: CoreApi,
    settings: TelegramSettings,
    *,
    stop_event: asyncio.Event | None = None,
    handoff: HandoffSettings | None = None,
) -> None:
    """Run the Telegram front-end until `stop_event` is set (or SIGINT/SIGTERM without one).

    In-flight handlers get SHUTDOWN_GRACE_S to finish. The core is not closed here: the
    composition root owns it.
    """
    bot = create_bot(settings)
    dp = build_dispatcher(core=core, settings=settings, handoff=handoff)
    stop = stop_event or asyncio.Event()
    service = dp.workflow_data.get("handoff")
    if service is not None:  # cards go to the managers through this bot while it runs
        languages, default = dp["handoff_languages"]
        service.add_notifier(
            handoff_ui.TelegramNotifier(
                bot,
                sorted(dp["handoff_managers"]),
                languages=languages,
                default_language=default or "en",
            )
        )
    inbound = core.inbound
    with _signals_set(stop, install=stop_event is None):
        try:
            if inbound is not None:
                bot.session.middleware(RecordUpdates(inbound))
                await take_up_unfinished(bot, dp, inbound)
            if settings.webhook_url:
                await _run_webhook(bot, dp, settings, stop)
            else:
                await _run_polling(bot, dp, stop)
        finally:
            inflight: InFlight = dp["inflight"]
            if not await inflight.wait_idle(SHUTDOWN_GRACE_S):
                log.warning("telegram: %d handlers still running at shutdown", inflight.count)
            if service is not None:
                service.remove_notifier(handoff_ui.TelegramNotifier.name)
            await bot.session.close()
    log.info("telegram: stopped")


async def _run_polling(bot: Bot, dp: Dispatcher, stop: asyncio.Event) -> None:
    with contextlib.suppress(TelegramAPIError, TelegramNetworkError):
        # A webhook left from an earlier run makes getUpdates fail with 409. Pending updates
        # are kept: they are messages people sent while the bot was down.
        await bot.delete_webhook(drop_pending_updates=False)
    polling = asyncio.create_task(
        dp.start_polling(
            bot,
            handle_signals=False,  # the stop event is the one way to stop
            close_bot_session=False,  # closed by run_telegram once handlers are done
            tasks_concurrency_limit=MAX_CONCURRENT_UPDATES,
        )
    )
    stopper = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({polling, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if not polling.done():
            try:
                await dp.stop_polling()
            except RuntimeError:  # stopped before polling even took its lock
                polling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await polling  # re-raises a crash of the polling loop
    finally:
        stopper.cancel()
        polling.cancel()


async def _run_webhook(
    bot: Bot, dp: Dispatcher, settings: TelegramSettings, stop: asyncio.Event
) -> None:
    assert settings.webhook_url
    # Telegram echoes this in X-Telegram-Bot-Api-Secret-Token; without a configured one a fresh
    # random secret still keeps strangers from posting fake updates.
    secret = (
        settings.webhook_secret.get_secret_value()
        if settings.webhook_secret
        else secrets.token_urlsafe(32)
    )
    path = urlsplit(settings.webhook_url).path or DEFAULT_WEBHOOK_PATH
    app = web.Application()
    inbound = dp["core"].inbound
    options: dict[str, Any] = {
        "dispatcher": dp,
        "bot": bot,
        "secret_token": secret,
        "handle_in_background": True,  # answer Telegram at once; InFlight tracks the work
    }
    handler = (
        SimpleRequestHandler(**options)
        if inbound is None
        else RecordingRequestHandler(**options, inbound=inbound)  # recorded before the 200
    )
    handler.register(app, path=path)
    setup_application(app, dp, bot=bot)  # runs dp startup/shutdown with the app
    runner = web.AppRunner(app, shutdown_timeout=5)
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
        await site.start()
        await bot.set_webhook(
            settings.webhook_url,
            secret_token=secret,
            allowed_updates=dp.resolve_used_update_types(),
            drop_pending_updates=False,
        )
        log.info("telegram: webhook on %s:%s%s", settings.webhook_host, settings.webhook_port, path)
        await stop.wait()
        await site.stop()  # no new updates; running ones finish before the session closes
        await dp["inflight"].wait_idle(SHUTDOWN_GRACE_S)
    finally:
        await runner.cleanup()  # also closes the bot session (aiogram's handler does)


@contextlib.contextmanager
def _signals_set(stop: asyncio.Event, *, install: bool) -> Iterator[None]:
    """SIGINT/SIGTERM set `stop` while running standalone (the caller passed no stop event)."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    if install:
        for sig in (signal.SIGINT, signal.SIGTERM):
            # Not available on Windows or outside the main thread: Ctrl-C then just interrupts.
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, stop.set)
                installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
