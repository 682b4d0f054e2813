"""Front-end behaviour with a scripted core: long answers, flood control, errors, rate limit,
clean shutdown. Still the real polling loop against the fake Bot API."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.telegram.conftest import BotRunner
from tests.telegram.fake_bot_api import TOKEN, FakeBotAPI
from tests.telegram.stub_core import StubCore


def long_answer() -> str:
    # 10,000 characters in paragraphs of 900, with characters HTML would misread.
    paragraph = ("a < b & c > d; " * 60)[:899] + "."
    text = "\n\n".join(f"{i:02d} {paragraph}" for i in range(12))
    return text[:10_000]


async def test_a_10000_character_answer_is_split_at_paragraphs(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    text = long_answer()
    assert len(text) == 10_000
    await bot_runner.start(StubCore(reply_text=text))
    fake_api.send_text(1, "tell me everything?")
    calls = await fake_api.wait_for("sendMessage", count=3)
    await asyncio.sleep(0.2)
    calls = fake_api.of("sendMessage")
    assert len(calls) == 3
    shown = [c.visible_text for c in calls]
    assert all(len(piece) <= 4096 for piece in shown)
    assert all(c.params["parse_mode"] == "HTML" for c in calls)
    assert "&lt;" in calls[0].params["text"]  # escaped on the wire, readable on screen
    assert "\n\n".join(shown) == text  # cut only at paragraph boundaries, nothing lost
    assert all(piece.startswith(f"{i:02d} ") for i, piece in zip((0, 4, 8), shown, strict=True))


async def test_flood_control_waits_retry_after_then_resends(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(StubCore(reply_text="the answer"))
    fake_api.flood("sendMessage", 1)
    fake_api.send_text(1, "a question?")
    first, second = await fake_api.wait_for("sendMessage", count=2)
    assert second.at - first.at >= 0.95  # waited retry_after (1 s) before resending
    assert first.params["text"] == second.params["text"] == "the answer"


async def test_flood_control_gives_up_after_bounded_retries(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(StubCore(reply_text="the answer"))
    fake_api.flood("sendMessage", 1, 1, 1, 1)
    fake_api.send_text(1, "a question?")
    calls = await fake_api.wait_for("sendMessage", count=5, timeout=20)
    # the first try + 3 retries, then the error handler's apology goes through
    assert [c.params["text"] for c in calls[:4]] == ["the answer"] * 4
    assert calls[4].visible_text.startswith("Sorry")


async def test_errors_get_a_short_apology_and_a_log_line_without_secrets(
    bot_runner: BotRunner, fake_api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await bot_runner.start(StubCore(fail=RuntimeError("boom: private detail")))
    fake_api.send_text(77, "my secret message body?")
    reply = (await fake_api.wait_for("sendMessage"))[0].visible_text
    assert reply.startswith("Sorry, something went wrong")
    assert "boom" not in reply
    assert "Traceback" not in reply
    failures = [r for r in caplog.records if r.name == "bot.telegram.errors"]
    assert failures
    assert "77" in failures[0].getMessage()
    assert "RuntimeError" in failures[0].getMessage()
    info = "\n".join(r.getMessage() for r in caplog.records if r.levelno <= logging.INFO)
    assert "my secret message body" not in info
    assert TOKEN not in caplog.text


async def test_questions_are_rate_limited_per_user(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    core = StubCore(reply_text="an answer")
    await bot_runner.start(core, questions_per_minute=2)
    for _ in range(3):
        fake_api.send_text(1, "what is checkout?", user_id=5)
    fake_api.send_text(1, "what is checkout?", user_id=6)
    texts = [c.visible_text for c in await fake_api.wait_for("sendMessage", count=4)]
    assert texts[:2] == ["an answer", "an answer"]
    assert "faster than I can keep up" in texts[2]
    assert texts[3] == "an answer"  # another user is not affected
    assert len(core.calls) == 3


async def test_stop_lets_an_in_flight_answer_finish(
    bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    core = StubCore(reply_text="late but delivered", delay=0.5)
    await bot_runner.start(core)
    fake_api.send_text(1, "slow question?")
    await asyncio.wait_for(core.started.wait(), 10)
    await bot_runner.stop()  # returns only after the handler is done
    assert fake_api.texts(1) == ["late but delivered"]


async def test_a_failure_on_an_unaddressed_group_message_stays_quiet(
    bot_runner: BotRunner, fake_api: FakeBotAPI, caplog: pytest.LogCaptureFixture
) -> None:
    core = StubCore(reply_text="answered")  # its observe() raises
    await bot_runner.start(core)
    fake_api.send_text(-5, "just chatting", chat_type="group")
    fake_api.send_text(-5, "/help", chat_type="group")  # handled after the failure
    sent = await fake_api.wait_for("sendMessage")
    assert len(fake_api.of("sendMessage")) == 1  # the help, no apology
    assert "Commands:" in sent[0].visible_text
    assert core.calls[0] == ("observe", "telegram:-5", "just chatting")
    assert any("-5" in r.getMessage() for r in caplog.records if r.name == "bot.telegram.errors")
