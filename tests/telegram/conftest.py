"""Fixtures: the fake Bot API server, and the real front-end (run_telegram) polling against it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.settings import TelegramSettings
from bot.telegram import run_telegram
from tests.telegram.fake_bot_api import TOKEN, FakeBotAPI


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotAPI]:
    fake = FakeBotAPI()
    await fake.start()
    yield fake
    await fake.stop()


def make_settings(fake: FakeBotAPI, **overrides: Any) -> TelegramSettings:
    # Everything explicit: a developer's .env or TELEGRAM_* environment must not leak in.
    values: dict[str, Any] = {
        "bot_token": TOKEN,
        "api_base": fake.base_url,
        "webhook_url": None,
        "webhook_secret": None,
        "questions_per_minute": 100,
        **overrides,
    }
    return TelegramSettings(**values)


class BotRunner:
    """Starts run_telegram in a task; stops it (and checks it ended cleanly) at teardown."""

    def __init__(self, fake: FakeBotAPI) -> None:
        self.fake = fake
        self.stop_event = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self, core: Any, **overrides: Any) -> TelegramSettings:
        settings = make_settings(self.fake, **overrides)
        self.task = asyncio.create_task(run_telegram(core, settings, stop_event=self.stop_event))
        ready = asyncio.create_task(
            self.fake.wait_for("setWebhook" if settings.webhook_url else "getUpdates")
        )
        # If the front-end crashes while starting, fail with its error, not a timeout.
        await asyncio.wait({ready, self.task}, return_when=asyncio.FIRST_COMPLETED)
        if self.task.done():
            ready.cancel()
            self.task.result()
            raise AssertionError("run_telegram returned while starting")
        ready.result()
        return settings

    async def stop(self) -> None:
        if self.task is None:
            return
        task, self.task = self.task, None
        self.stop_event.set()
        await asyncio.wait_for(task, 20)


@pytest.fixture
async def bot_runner(fake_api: FakeBotAPI) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake_api)
    yield runner
    await runner.stop()
