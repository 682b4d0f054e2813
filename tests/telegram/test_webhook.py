"""Webhook mode: run_telegram serves aiohttp, registers the webhook with its secret, and refuses
updates that do not carry it."""

from __future__ import annotations

import socket

import aiohttp

from tests.telegram.conftest import BotRunner
from tests.telegram.fake_bot_api import FakeBotAPI
from tests.telegram.stub_core import StubCore

SECRET = "s3cret-Token_42"
HEADER = "X-Telegram-Bot-Api-Secret-Token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_webhook_checks_the_secret_token(bot_runner: BotRunner, fake_api: FakeBotAPI) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg/hook"
    core = StubCore(reply_text="from the webhook")
    await bot_runner.start(
        core,
        webhook_url=url,
        webhook_secret=SECRET,
        webhook_host="127.0.0.1",
        webhook_port=port,
    )
    registered = fake_api.of("setWebhook")[-1].params
    assert registered["url"] == url
    assert registered["secret_token"] == SECRET
    assert "callback_query" in registered["allowed_updates"]
    assert not fake_api.of("getUpdates")  # no polling in webhook mode

    update = {"update_id": 1, **fake_api.message_update(5, "hello there?")}
    async with aiohttp.ClientSession() as http:
        for headers in ({}, {HEADER: "wrong"}):
            async with http.post(url, json=update, headers=headers) as resp:
                assert resp.status in (401, 403)
        assert core.calls == []
        async with http.post(url, json=update, headers={HEADER: SECRET}) as resp:
            assert resp.status == 200
    sent = await fake_api.wait_for("sendMessage")
    assert sent[0].visible_text == "from the webhook"
    assert fake_api.of("setMyCommands")


async def test_webhook_without_configured_secret_still_uses_one(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    core = StubCore()
    await bot_runner.start(core, webhook_url=url, webhook_port=port)
    secret = fake_api.of("setWebhook")[-1].params["secret_token"]
    assert len(secret) >= 32
    update = {"update_id": 1, **fake_api.message_update(5, "hi?")}
    async with aiohttp.ClientSession() as http, http.post(url, json=update) as resp:
        assert resp.status == 401
    assert core.calls == []
