"""Runs the Slack app: Socket Mode when an app-level token is set, else HTTP with signatures.

Called by the composition root (bot/app.py) next to the other front-ends; returns when
`stop_event` is set (or when cancelled), after closing the socket or the HTTP server.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.settings import HandoffSettings, SlackSettings
from bot.slack import journal
from bot.slack.app import build_slack_app, make_web_client
from bot.slack.verify import parse_payload, signature_ok

if TYPE_CHECKING:
    from core.contract import CoreApi

log = logging.getLogger("bot.slack")

EVENTS_PATH = "/slack/events"  # commands, events and interactivity all arrive here (manifest.yml)


def events_endpoint(app: AsyncApp, *, signing_secret: str) -> web.Application:
    """The HTTP endpoint: verify and parse first (bot/slack/verify.py), then hand to Bolt.

    A refused request is answered from here and never reaches Bolt, so no listener, error
    handler or Web API call can act on it; its body is not logged.
    """

    async def handle(request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        if not signature_ok(signing_secret, request.headers, raw):
            log.warning("slack request refused: missing, stale or wrong signature")
            return web.Response(status=401, text="invalid signature")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return web.Response(status=400, text="body is not UTF-8")
        if parse_payload(text, request.content_type) is None:
            log.warning("slack request refused: signed but malformed body")
            return web.Response(status=400, text="malformed body")
        bolt_request = AsyncBoltRequest(
            body=text,
            query=request.query_string,
            headers={k: request.headers.getall(k) for k in request.headers},
        )
        return await to_aiohttp_response(await app.async_dispatch(bolt_request))

    endpoint = web.Application()
    endpoint.router.add_post(EVENTS_PATH, handle)
    return endpoint


async def start_http(app: AsyncApp, *, signing_secret: str, host: str, port: int) -> web.AppRunner:
    """Serve `app` on host:port (port 0 picks a free one: see runner.addresses).

    Bolt's own app.start() would bind 0.0.0.0 and block; this binds only where asked.
    """
    runner = web.AppRunner(events_endpoint(app, signing_secret=signing_secret), shutdown_timeout=5)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


async def run_slack(
    core: CoreApi,
    settings: SlackSettings,
    *,
    stop_event: asyncio.Event | None = None,
    handoff: HandoffSettings | None = None,
) -> None:
    if settings.bot_token is None:
        raise ValueError("SLACK_BOT_TOKEN is required to run the Slack app")
    if settings.app_token is None and settings.signing_secret is None:
        raise ValueError("HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN)")
    app = build_slack_app(core, settings, client=make_web_client(settings), handoff=handoff)
    if (inbound := core.inbound) is not None:  # issue 12: a crash's leftovers
        await journal.take_up_unfinished(app, inbound)
    stop = stop_event or asyncio.Event()  # no event: run until cancelled
    try:
        await _serve(app, settings, stop)
    finally:
        service = core.handoff
        if service is not None:  # issue 8: no cards once Slack is down
            service.remove_notifier("slack")


async def _serve(app: AsyncApp, settings: SlackSettings, stop: asyncio.Event) -> None:
    if settings.app_token is not None:
        # The Socket Mode client opens an aiohttp session when built: build it inside the loop.
        handler = AsyncSocketModeHandler(app, settings.app_token.get_secret_value())
        try:
            await handler.connect_async()  # type: ignore[no-untyped-call]  # untyped in slack-bolt
            log.info("Slack app connected in Socket Mode")
            await stop.wait()
        finally:
            await handler.close_async()  # type: ignore[no-untyped-call]
        return

    if settings.signing_secret is None:
        raise ValueError("HTTP mode needs SLACK_SIGNING_SECRET (or set SLACK_APP_TOKEN)")
    runner = await start_http(
        app,
        signing_secret=settings.signing_secret.get_secret_value(),
        host=settings.host,
        port=settings.port,
    )
    try:
        log.info("Slack app listening on http://%s:%s%s", settings.host, settings.port, EVENTS_PATH)
        await stop.wait()
    finally:
        await runner.cleanup()
