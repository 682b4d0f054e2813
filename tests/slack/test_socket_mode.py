"""Socket Mode once, end to end: run_slack with an app token against the fake."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.slack.runner import run_slack
from tests.slack.conftest import APP_TOKEN, slack_settings
from tests.slack.fake_slack_api import TEAM_ID, FakeSlack


async def test_socket_mode_acks_a_slash_command(core: Any, fake_slack: FakeSlack) -> None:
    command = {
        "token": "legacy",
        "team_id": TEAM_ID,
        "channel_id": "C1",
        "user_id": "U1",
        "user_name": "alice",
        "command": "/kb",
        "text": "help",
        "api_app_id": "A1",
        "response_url": fake_slack.response_url("socket"),
        "trigger_id": "1.2.3",
    }
    fake_slack.envelopes.append(
        {
            "envelope_id": "env-1",
            "type": "slash_commands",
            "accepts_response_payload": True,
            "payload": command,
        }
    )
    # no signing secret: Socket Mode needs none
    settings = slack_settings(fake_slack, app_token=APP_TOKEN, signing_secret=None)
    stop = asyncio.Event()
    task = asyncio.create_task(run_slack(core, settings, stop_event=stop))
    try:
        acks = await fake_slack.wait_for(
            lambda: [m for m in fake_slack.socket_received if m.get("envelope_id") == "env-1"]
        )
        assert acks == [{"envelope_id": "env-1"}]
        (reply,) = await fake_slack.wait_for(lambda: fake_slack.responses_to("socket"))
        assert "/kb ask" in reply["text"]
        (opened,) = [c for c in fake_slack.calls if c.method == "apps.connections.open"]
        assert opened.authorization == f"Bearer {APP_TOKEN}"  # the app token, not the bot's
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=10)


async def test_http_mode_requires_a_signing_secret(core: Any, fake_slack: FakeSlack) -> None:
    settings = slack_settings(fake_slack, signing_secret=None)
    with pytest.raises(ValueError, match="SIGNING_SECRET"):
        await run_slack(core, settings)


async def test_run_slack_serves_http_until_stopped(core: Any, fake_slack: FakeSlack) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(run_slack(core, slack_settings(fake_slack), stop_event=stop))
    await asyncio.sleep(0.2)
    assert not task.done()
    stop.set()
    await asyncio.wait_for(task, timeout=10)
