"""Slack with the durable inbound log (issue 12): signed events over HTTP into the real Bolt
app, Web API calls to the fake; a restart is a new app on the same core and log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.slack import journal
from bot.slack.app import build_slack_app
from core.embedding import HashEmbedder
from core.service import Core, CoreConfig
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology
from tests.slack.conftest import TEAM_ID, SlackHttp, serve, slack_settings
from tests.slack.fake_slack_api import BOT_USER_ID, FakeSlack
from tests.slack.test_messages import Events

CHAT = f"slack:{TEAM_ID}:D1"


@pytest.fixture
async def durable_core(tmp_path: Path, ontology: Ontology) -> AsyncIterator[Core]:
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    log = SqliteInboundLog(tmp_path / "inbound.sqlite3")
    core = Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig(), inbound=log)
    yield core
    await core.close()


def posts_to(fake: FakeSlack, channel: str) -> list[dict[str, Any]]:
    return [p for p in fake.api("chat.postMessage") if p.get("channel") == channel]


async def settled(core: Core, chat: str, n: int) -> list[Any]:
    for _ in range(100):
        history = await core.facts(chat, history=True)
        if len(history) >= n:
            return history
        await asyncio.sleep(0.05)
    return await core.facts(chat, history=True)


def event_body(event: dict[str, Any], event_id: str) -> dict[str, Any]:
    return {
        "token": "legacy",
        "team_id": TEAM_ID,
        "api_app_id": "A1",
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": 1700000100,
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }


async def test_an_event_recorded_before_a_crash_is_handled_at_start(
    durable_core: Core, fake_slack: FakeSlack
) -> None:
    assert durable_core.inbound is not None
    body = event_body(Events().dm("checkout depends on payments"), "EvCrash1")
    durable_core.inbound.record_deliveries(journal.SOURCE, [("EvCrash1", json.dumps(body))])
    app = build_slack_app(durable_core, slack_settings(fake_slack))
    assert await journal.take_up_unfinished(app, durable_core.inbound) == 1
    await fake_slack.wait_for(lambda: posts_to(fake_slack, "D1"))
    facts = await settled(durable_core, CHAT, 1)
    assert [f.sentence() for f in facts] == ["checkout DEPENDS_ON payments"]
    for _ in range(100):
        if not durable_core.inbound.unfinished_deliveries(journal.SOURCE):
            break
        await asyncio.sleep(0.05)
    assert durable_core.inbound.unfinished_deliveries(journal.SOURCE) == []


async def test_an_event_handled_before_a_restart_is_not_answered_again(
    durable_core: Core, fake_slack: FakeSlack
) -> None:
    events = Events()
    question = events.dm("which service does checkout depend on?")
    first, runner = await serve(durable_core, fake_slack)
    body = json.dumps(event_body(question, "EvQ1"))

    status, _ = await first.post(body, "application/json")
    assert status == 200
    await fake_slack.wait_for(lambda: posts_to(fake_slack, "D1"))
    for _ in range(100):  # the listener marks it done after answering
        seen = durable_core.inbound.delivery(journal.SOURCE, "EvQ1")  # type: ignore[union-attr]
        if seen is not None and seen.done:
            break
        await asyncio.sleep(0.05)
    await runner.cleanup()
    again, runner = await serve(durable_core, fake_slack)  # a new process: nothing in memory
    status, _ = await again.post(body, "application/json")  # Slack retries after the restart
    assert status == 200
    await asyncio.sleep(0.5)
    await runner.cleanup()
    assert len(posts_to(fake_slack, "D1")) == 1


async def test_message_changed_is_a_correction_and_shared_files_keep_their_text(
    durable_core: Core, slack_http: SlackHttp, fake_slack: FakeSlack
) -> None:
    events = Events()
    original = events.dm("Acme belongs to Globex")
    assert await slack_http.event(original) == 200
    await fake_slack.wait_for(lambda: posts_to(fake_slack, "D1"))
    edit = {
        "type": "message",
        "subtype": "message_changed",
        "channel": "D1",
        "channel_type": "im",
        "hidden": True,
        "ts": events.ts(),
        "message": {**original, "text": "Acme belongs to Initech", "edited": {"user": "U1"}},
        "previous_message": original,
    }
    assert await slack_http.event(edit) == 200
    shared = events.dm("checkout depends on payments", subtype="file_share", files=[{"id": "F1"}])
    assert await slack_http.event(shared) == 200
    history = await settled(durable_core, CHAT, 3)
    assert {(f.sentence(), f.status) for f in history} == {
        ("Acme BELONGS_TO Globex", "superseded"),
        ("Acme BELONGS_TO Initech", "active"),
        ("checkout DEPENDS_ON payments", "active"),
    }


@pytest.fixture
async def slack_http(durable_core: Core, fake_slack: FakeSlack) -> AsyncIterator[SlackHttp]:
    http, runner = await serve(durable_core, fake_slack)
    yield http
    await runner.cleanup()
