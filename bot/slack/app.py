"""Builds the Slack front-end: a slack-bolt AsyncApp wired to the core.

The app is transport-agnostic; runner.py serves it over HTTP (signed requests) or Socket Mode.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.settings import HandoffSettings, SlackSettings
from bot.slack import journal
from bot.slack.actions import register_actions
from bot.slack.commands import register_commands
from bot.slack.common import chat_key
from bot.slack.handoff import register_handoff
from bot.slack.messages import register_messages
from bot.slack.people import PeopleCache
from bot.slack.verify import SeenDeliveries, delivery_key
from bot.texts import t
from core.errors import CoreError, InvalidInput, NotFound
from core.language import detect_language

if TYPE_CHECKING:
    from core.contract import CoreApi
    from core.inbound import InboundLog

log = logging.getLogger("bot.slack")

PROGRESS_AFTER_S = 1.5  # answers faster than this need no "working on it" note
ADMITTED = "graphmem_admitted"  # context key: the request passed Bolt's checks and ours


def api_base_url(settings: SlackSettings) -> str:
    # slack_sdk joins method names onto the base URL: without the trailing slash the last
    # path segment ("api") would be replaced and every call would 404.
    return settings.api_base if settings.api_base.endswith("/") else settings.api_base + "/"


def make_web_client(settings: SlackSettings) -> AsyncWebClient:
    token = settings.bot_token.get_secret_value() if settings.bot_token else None
    return AsyncWebClient(token=token, base_url=api_base_url(settings))


def _with_rate_limit_retries(client: AsyncWebClient) -> AsyncWebClient:
    # slack_sdk retries only connection errors by default; a 429 would otherwise lose the reply.
    # Bolt copies these handlers into the per-request clients that listeners receive.
    if not any(isinstance(h, AsyncRateLimitErrorRetryHandler) for h in client.retry_handlers):
        client.retry_handlers.append(AsyncRateLimitErrorRetryHandler(max_retry_count=2))
    return client


def _language(body: dict[str, Any]) -> str:
    """The language of whatever the user typed (command text or message), English if none."""
    text = body.get("text") or (body.get("event") or {}).get("text") or ""
    return detect_language(text) if text else "en"


def _user_message(error: Exception, lang: str) -> str:
    if isinstance(error, InvalidInput):
        return t("slack.invalid_input", lang, reason=str(error))
    if isinstance(error, NotFound):
        return t("slack.not_found", lang)
    return t("slack.apology", lang)


async def _tell_user(text: str, body: dict[str, Any], context: AsyncBoltContext) -> None:
    """Reply where the failed request came from: its response_url, else its thread."""
    if context.respond is not None and context.response_url:
        await context.respond(text=text, response_type="ephemeral", replace_original=False)
        return
    event = body.get("event") or {}
    channel = event.get("channel") or context.channel_id
    if channel:
        await context.client.chat_postMessage(
            channel=channel, thread_ts=event.get("thread_ts") or event.get("ts"), text=text
        )


def admit_once(seen: SeenDeliveries, inbound: InboundLog | None = None) -> Any:
    """A global middleware: each delivery is handled once, and only admitted ones get replies.

    Bolt runs its own middleware (request verification, authorization) before any added with
    `app.use`, so reaching this one means the request passed them; it marks the context so the
    error handler knows it may answer. A delivery seen before (a Slack retry after a slow ack,
    a replayed request, a Socket Mode re-delivery) is acknowledged and dropped. With the
    durable inbound log, a message-carrying event is recorded here, before Bolt acknowledges
    it, and one handled before a restart is dropped too (issue 12).
    """

    async def admit(
        body: dict[str, Any],
        context: AsyncBoltContext,
        next: Callable[[], Awaitable[BoltResponse | None]],
    ) -> BoltResponse | None:
        key = delivery_key(body)
        if key is not None and not seen.first_time(key):
            log.info("slack %s delivered again: already handled", key.partition(":")[0])
            return BoltResponse(status=200, body="")
        if inbound is not None and not await journal.record(inbound, body):
            log.info("slack event handled before a restart: not handled again")
            return BoltResponse(status=200, body="")
        context[ADMITTED] = True
        response: BoltResponse | None = await next()
        return response

    return admit


def provide(core: CoreApi) -> Any:
    """A global middleware: what listeners are given by parameter name through Bolt's context,
    `core` (the core's contract) and `chat` (the core's key for the request's channel, when it
    has one), so no listener reaches for them itself."""

    async def inject(
        context: AsyncBoltContext, next: Callable[[], Awaitable[BoltResponse | None]]
    ) -> BoltResponse | None:
        context["core"] = core
        if context.channel_id and (context.team_id or context.enterprise_id):
            context["chat"] = chat_key(context)
        return await next()

    return inject


async def on_error(error: Exception, body: dict[str, Any], context: AsyncBoltContext) -> None:
    """The one error handler: a short message to the user, the cause in the log.

    Logs carry the chat key and the error, never tokens or what the user wrote (Bolt logs
    request bodies only at DEBUG). A request that was not admitted (it failed or broke
    verification) gets no reply at all: its response_url and channel are not to be trusted.
    """
    if not context.get(ADMITTED):
        log.warning("slack request failed before it was verified: %s", type(error).__name__)
        return
    try:
        chat = chat_key(context)
    except ValueError:
        chat = "slack:?"
    kind = body.get("type") or ("slash_command" if body.get("command") else "request")
    if isinstance(error, CoreError):  # the user's request was refused on purpose: no traceback
        log.info("slack %s refused in %s: %s", kind, chat, type(error).__name__)
    else:
        log.error("slack %s failed in %s", kind, chat, exc_info=error)
    try:
        await _tell_user(_user_message(error, _language(body)), body, context)
    except Exception:
        log.warning("could not tell the user about a failure in %s", chat, exc_info=True)


def build_slack_app(
    core: CoreApi,
    settings: SlackSettings,
    *,
    client: AsyncWebClient | None = None,
    progress_after: float = PROGRESS_AFTER_S,
    handoff: HandoffSettings | None = None,
) -> AsyncApp:
    """An AsyncApp with the slash command, mentions, DMs and buttons bound to `core`.

    `client` is the Web API client (tests point it at a fake); by default one is made from the
    settings' bot token and API base URL.
    """
    web_client = _with_rate_limit_retries(client or make_web_client(settings))
    # Without a signing secret (Socket Mode needs none) HTTP requests must still never pass
    # verification: an empty secret would make signatures forgeable, a random one fails closed.
    secret = (
        settings.signing_secret.get_secret_value()
        if settings.signing_secret
        else secrets.token_hex(32)
    )
    app = AsyncApp(name="graphmem-slack", client=web_client, signing_secret=secret)
    command = settings.command if settings.command.startswith("/") else f"/{settings.command}"
    people = PeopleCache()  # names for hand-off cards, one cache for the app
    service = core.handoff
    leads = handoff.slack_channel if service is not None and handoff is not None else None
    extra = (  # issue 8: cards, buttons, /leads and `/kb close`
        register_handoff(
            app,
            service,
            channel=leads,
            client=web_client,
            people=people,
            command=command,
            language=handoff.manager_languages.get(f"slack:{leads}", handoff.language)
            if handoff is not None
            else "en",
        )
        if service is not None and leads
        else {}
    )
    app.use(admit_once(SeenDeliveries(), core.inbound))
    app.use(provide(core))
    register_commands(app, command=command, progress_after=progress_after, extra=extra)
    register_messages(
        app,
        command=command,
        progress_after=progress_after,
        people=people,
        unobserved=[leads] if leads else [],
    )
    register_actions(app)
    app.error(on_error)
    return app
