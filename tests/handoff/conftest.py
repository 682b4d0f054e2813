"""Fixtures for hand-off tests: an injectable clock, a real Core with a HandoffService over
SQLite in tmp_path, the fake Bot API (with 500s on demand) and the fake Slack (with channel
members), and the real front-ends running against them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from bot.settings import HandoffSettings
from bot.telegram import run_telegram
from core.embedding import HashEmbedder
from core.handoff import HandoffConfig, HandoffService, HandoffStore
from core.service import Core
from core.store.pool import StorePool
from ontology import Ontology
from tests.doubles import ManualClock
from tests.slack.fake_slack_api import ApiCall, FakeSlack
from tests.telegram.conftest import make_settings
from tests.telegram.fake_bot_api import FakeBotAPI, _error

MANAGER_A, MANAGER_B = 501, 502
CLIENT = 1
WINDOW = timedelta(minutes=60)
RESEND = timedelta(minutes=30)
MAX_RESENDS = 2


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def make_service(data_dir: Path, clock: ManualClock) -> HandoffService:
    store = HandoffStore(data_dir / "handoff.sqlite3")
    config = HandoffConfig(window=WINDOW, resend_after=RESEND, max_resends=MAX_RESENDS)
    return HandoffService(store, clock=clock, config=config)


@pytest.fixture
async def hcore(tmp_path: Path, ontology: Ontology, clock: ManualClock) -> AsyncIterator[Core]:
    embedder = HashEmbedder()
    data = tmp_path / "data"
    pool = StorePool(data, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    core = Core(
        pool=pool,
        embedder=embedder,
        ontology=ontology,
        clock=clock,
        handoff=make_service(data, clock),
    )
    yield core
    await core.close()
    assert core.handoff is not None
    await core.handoff.aclose()


def handoff_settings(**values: Any) -> HandoffSettings:
    base: dict[str, Any] = {
        "telegram_manager_ids": [],
        "slack_channel": None,
        "window_minutes": 60,
        "resend_minutes": 30,
        "max_resends": MAX_RESENDS,
    }
    base.update(values)
    return HandoffSettings(_env_file=None, **base)  # type: ignore[call-arg]


# ------------------------------------------------------------------------------ Telegram
class FlakyBotAPI(FakeBotAPI):
    """The fake Bot API, plus: answer 500 to sends/edits for chats marked down."""

    def __init__(self) -> None:
        super().__init__()
        self.down: set[int] = set()

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        if int(params["chat_id"]) in self.down:
            return _error(500, "Internal Server Error")
        return await super()._m_sendMessage(params)

    async def _m_editMessageText(self, params: dict[str, Any]) -> Any:
        if int(params["chat_id"]) in self.down:
            return _error(500, "Internal Server Error")
        return await super()._m_editMessageText(params)

    def press_as(self, call: Any, data: str, *, user_id: int, name: str) -> int:
        return self.push(
            {
                "callback_query": {
                    "id": f"cq{len(self.calls)}-{user_id}",
                    "from": {
                        "id": user_id,
                        "is_bot": False,
                        "first_name": name,
                        "language_code": "en",
                    },
                    "chat_instance": "ci",
                    "message": call.result,
                    "data": data,
                }
            }
        )

    def cards(self, chat_id: int) -> list[Any]:
        """Successful sends to `chat_id` that carry a Take button."""
        return [
            c
            for c in self.of("sendMessage")
            if int(c.params["chat_id"]) == chat_id
            and c.result is not None
            and "reply_markup" in c.params
        ]


@pytest.fixture
async def tg_api() -> AsyncIterator[FlakyBotAPI]:
    fake = FlakyBotAPI()
    await fake.start()
    yield fake
    await fake.stop()


@dataclass
class TelegramFront:
    fake: FlakyBotAPI
    stop_event: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    async def start(self, core: Core, managers: list[int], **handoff_values: Any) -> None:
        settings = make_settings(self.fake)
        handoff = handoff_settings(telegram_manager_ids=managers, **handoff_values)
        self.task = asyncio.create_task(
            run_telegram(core, settings, stop_event=self.stop_event, handoff=handoff)
        )
        ready = asyncio.create_task(self.fake.wait_for("getUpdates"))
        await asyncio.wait({ready, self.task}, return_when=asyncio.FIRST_COMPLETED)
        if self.task.done():
            ready.cancel()
            self.task.result()
            raise AssertionError("run_telegram returned while starting")
        ready.result()

    async def say(self, text: str, *, user_id: int = CLIENT, lang: str = "pt") -> tuple[int, str]:
        """The client writes; returns (message id, the bot's reply shown to the client)."""
        before = len(self.fake.texts(user_id))
        update = self.fake.message_update(
            user_id, text, user_id=user_id, first_name="Ana", language_code=lang
        )
        update["message"]["from"]["username"] = "ana_acme"
        self.fake.push(update)
        calls = await self.fake.wait_for(
            "sendMessage", lambda c: int(c.params["chat_id"]) == user_id, count=before + 1
        )
        return update["message"]["message_id"], calls[-1].visible_text

    async def stop(self) -> None:
        if self.task is not None:
            self.stop_event.set()
            await asyncio.wait_for(self.task, 20)
            self.task = None


@pytest.fixture
async def telegram(tg_api: FlakyBotAPI) -> AsyncIterator[TelegramFront]:
    front = TelegramFront(tg_api)
    yield front
    await front.stop()


# ------------------------------------------------------------------------------ Slack
@dataclass
class SlackWithMembers(FakeSlack):
    """The fake Slack, plus conversations.members for the leads channel."""

    members: dict[str, list[str]] = field(default_factory=dict)
    down: set[str] = field(default_factory=set)  # channels whose chat.postMessage answers 500

    async def _api(self, request: web.Request) -> web.Response:
        if request.match_info["method"] == "chat.postMessage" and self.down:
            params: dict[str, Any] = (
                await request.json()
                if request.content_type == "application/json"
                else dict(await request.post())
            )
            if params.get("channel") in self.down:
                self.calls.append(ApiCall("chat.postMessage", params, ""))
                self._record()
                return web.json_response({"ok": False, "error": "internal_error"}, status=500)
        return await super()._api(request)

    def _result(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "conversations.members":
            channel = str(params.get("channel"))
            if channel not in self.members:
                return {"ok": False, "error": "channel_not_found"}
            return {
                "ok": True,
                "members": self.members[channel],
                "response_metadata": {"next_cursor": ""},
            }
        return super()._result(method, params)


@pytest.fixture
async def slack_api() -> AsyncIterator[SlackWithMembers]:
    fake = await SlackWithMembers().start()
    yield fake
    await fake.close()
