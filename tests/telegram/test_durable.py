"""Telegram with the durable inbound log (issue 12), in process: the real run_telegram against
the fake Bot API, with a real core and log. Restarts are a stop and a new run_telegram; the
kill -9 version is tests/test_crash.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.telegram.common import chat_key
from bot.telegram.journal import SOURCE
from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology
from tests.telegram.conftest import BotRunner
from tests.telegram.fake_bot_api import FakeBotAPI
from tests.telegram.test_webhook import HEADER, SECRET, free_port


@pytest.fixture
async def durable_core(tmp_path: Path, ontology: Ontology) -> AsyncIterator[Core]:
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    log = SqliteInboundLog(tmp_path / "inbound.sqlite3")
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig(), inbound=log)
    yield core
    await core.close()


def sent_to(fake: FakeBotAPI, chat_id: int) -> list[str]:
    return [c.visible_text for c in fake.of("sendMessage") if int(c.params["chat_id"]) == chat_id]


async def restart(runner: BotRunner, core: Core) -> None:
    await runner.stop()
    runner.stop_event = asyncio.Event()
    await runner.start(core)


async def test_an_update_handled_before_is_not_answered_again(
    durable_core: Core, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(durable_core)
    update = fake_api.message_update(7, "checkout depends on payments")
    fake_api.push(update)
    await fake_api.wait_for("sendMessage", count=1)
    redelivered = {"update_id": 1, **update}
    await restart(bot_runner, durable_core)
    fake_api.redeliver(redelivered)  # Telegram never saw the offset confirmed
    fake_api.send_text(7, "payments depends on antifraud")
    await fake_api.wait_for("sendMessage", count=2)
    await asyncio.sleep(0.3)
    assert len(sent_to(fake_api, 7)) == 2
    assert (await durable_core.stats(chat_key(7)))["messages"] == 2


async def test_an_update_recorded_before_a_crash_is_handled_at_start(
    durable_core: Core, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    # what a kill leaves: the batch recorded by getUpdates, its handler never ran, and the
    # offset confirmed by the next getUpdates (Telegram will not send it again)
    update = {"update_id": 41, **fake_api.message_update(8, "antifraud requires encryption")}
    assert durable_core.inbound is not None
    durable_core.inbound.record_deliveries(SOURCE, [("41", json.dumps(update))])
    await bot_runner.start(durable_core)
    await fake_api.wait_for("sendMessage", count=1)
    facts = await durable_core.facts(chat_key(8))
    assert [f.sentence() for f in facts] == ["antifraud REQUIRES encryption"]
    assert durable_core.inbound.unfinished_deliveries(SOURCE) == []


async def test_edits_correct_and_captions_are_remembered(
    durable_core: Core, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(durable_core)
    original = fake_api.message_update(9, "Acme belongs to Globex")
    fake_api.push(original)
    await fake_api.wait_for("sendMessage", count=1)
    edited: dict[str, Any] = {
        **original["message"],
        "text": "Acme belongs to Initech",
        "edit_date": original["message"]["date"] + 5,
    }
    fake_api.push({"edited_message": edited})
    photo = fake_api.message_update(9, "")
    del photo["message"]["text"]
    photo["message"]["photo"] = [{"file_id": "p1", "file_unique_id": "u1", "width": 1, "height": 1}]
    photo["message"]["caption"] = "checkout depends on payments"
    fake_api.push(photo)
    await fake_api.wait_for("sendMessage", count=2)
    for _ in range(50):
        history = await durable_core.facts(chat_key(9), history=True)
        if len(history) == 3:
            break
        await asyncio.sleep(0.1)
    assert {(f.sentence(), f.status) for f in history} == {
        ("Acme BELONGS_TO Globex", "superseded"),
        ("Acme BELONGS_TO Initech", "active"),
        ("checkout DEPENDS_ON payments", "active"),
    }
    assert len(sent_to(fake_api, 9)) == 2  # the edit itself gets no reply


async def test_replies_quoting_long_user_text_stay_within_the_limit(
    durable_core: Core, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(durable_core)
    fake_api.send_text(10, "/forget " + "x" * 5000)
    fake_api.send_text(10, "/facts " + "y" * 5000)
    calls = await fake_api.wait_for("sendMessage", count=2)
    assert all(len(c.visible_text) < 4096 for c in calls)
    assert "xxx…" in calls[0].visible_text


async def test_webhook_records_the_update_before_its_200_and_drops_a_second_delivery(
    durable_core: Core, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg/hook"
    await bot_runner.start(
        durable_core,
        webhook_url=url,
        webhook_secret=SECRET,
        webhook_host="127.0.0.1",
        webhook_port=port,
    )
    update = {"update_id": 77, **fake_api.message_update(11, "billing depends on ledger")}
    assert durable_core.inbound is not None
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json=update, headers={HEADER: SECRET}) as resp:
            assert resp.status == 200
            # recorded by the time Telegram has its 200
            assert durable_core.inbound.delivery(SOURCE, "77") is not None
        await fake_api.wait_for("sendMessage")
        for _ in range(50):
            seen = durable_core.inbound.delivery(SOURCE, "77")
            if seen is not None and seen.done:
                break
            await asyncio.sleep(0.05)
        async with http.post(url, json=update, headers={HEADER: SECRET}) as resp:
            assert resp.status == 200  # Telegram retrying: acknowledged, not handled again
    await asyncio.sleep(0.3)
    assert len(sent_to(fake_api, 11)) == 1
