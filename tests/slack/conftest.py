"""Fixtures for the Slack front-end: the fake Slack, settings, and a signed-request client.

The `core` fixture comes from tests/conftest.py (a real Core on Kùzu in tmp_path).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.settings import SlackSettings
from bot.slack.app import build_slack_app
from bot.slack.runner import EVENTS_PATH, start_http
from tests.slack.fake_slack_api import BOT_USER_ID, TEAM_ID, FakeSlack

SECRET = "test-signing-secret"
BOT_TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-1-test-token"


def slack_settings(fake: FakeSlack, **overrides: Any) -> SlackSettings:
    values: dict[str, Any] = {
        "bot_token": BOT_TOKEN,
        "signing_secret": SECRET,
        "app_token": None,
        "api_base": fake.api_url,
        "command": "/kb",
        "host": "127.0.0.1",
        "port": 0,
    }
    values.update(overrides)
    return SlackSettings(_env_file=None, **values)


def signed_headers(body: str, *, secret: str = SECRET, ts: int | None = None) -> dict[str, str]:
    """Headers Slack sends: v0 HMAC-SHA256 over "v0:<timestamp>:<body>"."""
    stamp = str(int(time.time()) if ts is None else ts)
    digest = hmac.new(secret.encode(), f"v0:{stamp}:{body}".encode(), hashlib.sha256)
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": "v0=" + digest.hexdigest()}


@dataclass
class SlackHttp:
    """Sends signed Slack requests to the running Bolt app over real HTTP."""

    url: str
    fake: FakeSlack
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def post(
        self, body: str, content_type: str, *, secret: str = SECRET, ts: int | None = None
    ) -> tuple[int, str]:
        headers = {"Content-Type": content_type, **signed_headers(body, secret=secret, ts=ts)}
        async with (
            aiohttp.ClientSession() as session,
            session.post(self.url, data=body.encode(), headers=headers) as resp,
        ):
            return resp.status, await resp.text()

    def command_body(
        self, text: str, *, channel: str = "C1", team: str = TEAM_ID, user: str = "U1"
    ) -> tuple[str, str]:
        """(form body, response_url key) of a /kb command."""
        key = f"cmd{next(self._ids)}"
        form = {
            "token": "legacy",
            "team_id": team,
            "team_domain": "test",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": "alice",
            "command": "/kb",
            "text": text,
            "api_app_id": "A1",
            "response_url": self.fake.response_url(key),
            "trigger_id": f"1.2.{key}",
        }
        return urlencode(form), key

    async def command(
        self, text: str, *, channel: str = "C1", team: str = TEAM_ID, user: str = "U1"
    ) -> list[dict[str, Any]]:
        """Run a command and wait for its answer on the response_url; returns all answers."""
        body, key = self.command_body(text, channel=channel, team=team, user=user)
        status, _ = await self.post(body, "application/x-www-form-urlencoded")
        assert status == 200
        return await self.fake.wait_for(lambda: self.fake.responses_to(key))

    async def final(self, text: str, **where: str) -> dict[str, Any]:
        """The last answer to a command, after any "working on it" note."""
        body, key = self.command_body(text, **where)
        status, _ = await self.post(body, "application/x-www-form-urlencoded")
        assert status == 200
        answers = await self.fake.wait_for(
            lambda: [r for r in self.fake.responses_to(key) if ":hourglass" not in r["text"]]
        )
        return answers[-1]

    async def event(self, event: dict[str, Any], *, team: str = TEAM_ID) -> int:
        n = next(self._ids)
        body = {
            "token": "legacy",
            "team_id": team,
            "api_app_id": "A1",
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{n}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": team, "user_id": BOT_USER_ID, "is_bot": True}],
        }
        status, _ = await self.post(json.dumps(body), "application/json")
        return status

    async def action(
        self,
        action: dict[str, Any],
        *,
        channel: str = "C1",
        team: str = TEAM_ID,
        user: str = "U1",
    ) -> list[dict[str, Any]]:
        """Press a button (a block_actions payload) and wait for the reply on its response_url."""
        key = f"act{next(self._ids)}"
        payload = {
            "type": "block_actions",
            "team": {"id": team, "domain": "test"},
            "user": {"id": user, "username": "alice", "team_id": team},
            "api_app_id": "A1",
            "container": {"type": "message", "channel_id": channel, "is_ephemeral": True},
            "trigger_id": f"1.2.{key}",
            "channel": {"id": channel, "name": "general"},
            "response_url": self.fake.response_url(key),
            "actions": [{**action, "action_ts": str(time.time())}],
        }
        body = urlencode({"payload": json.dumps(payload)})
        status, _ = await self.post(body, "application/x-www-form-urlencoded")
        assert status == 200
        return await self.fake.wait_for(lambda: self.fake.responses_to(key))


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Every button element (with its block_id) in a message's blocks."""
    return [
        {**element, "block_id": block.get("block_id")}
        for block in message.get("blocks") or []
        if block["type"] == "actions"
        for element in block["elements"]
    ]


def all_text(message: dict[str, Any]) -> str:
    """The fallback text plus every text inside the blocks, for content assertions."""
    parts = [message.get("text") or ""]
    for block in message.get("blocks") or []:
        if "text" in block:
            parts.append(block["text"]["text"])
        parts.extend(e["text"] for e in block.get("elements", []) if e.get("type") == "mrkdwn")
    return "\n".join(parts)


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    fake = await FakeSlack().start()
    yield fake
    await fake.close()


async def serve(core: Any, fake: FakeSlack, **app_options: Any) -> tuple[SlackHttp, Any]:
    app = build_slack_app(core, slack_settings(fake), **app_options)
    runner = await start_http(app, signing_secret=SECRET, host="127.0.0.1", port=0)
    port = runner.addresses[0][1]
    return SlackHttp(f"http://127.0.0.1:{port}{EVENTS_PATH}", fake), runner


@pytest.fixture
async def slack(core: Any, fake_slack: FakeSlack) -> AsyncIterator[SlackHttp]:
    """The real Bolt app served over HTTP on 127.0.0.1, its Web API calls going to the fake."""
    http, runner = await serve(core, fake_slack)
    yield http
    await runner.cleanup()
