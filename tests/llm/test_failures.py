"""Transient failures are retried within the deadline; then LlmUnavailable, never a hang."""

from __future__ import annotations

import logging
import socket
import time

import pytest

from core.errors import LlmUnavailable
from core.llm import anthropic_llm
from core.llm.anthropic_llm import AnthropicLlm
from tests.llm import fake_anthropic as fa
from tests.llm.conftest import API_KEY, MakeLlm
from tests.llm.fake_anthropic import FakeAnthropic

SECRET_TEXT = "our INN is 7701234567 and the margin is 41%"


async def topic(llm: AnthropicLlm) -> str:
    return await llm.topic_name(texts=[SECRET_TEXT])


async def test_429_then_200_succeeds_after_a_retry(fake: FakeAnthropic, make_llm: MakeLlm) -> None:
    fake.queue(fa.rate_limited(0.05), fa.text("Payments"))
    assert await topic(make_llm()) == "Payments"
    assert len(fake.requests) == 2


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anthropic_llm, "BACKOFF_BASE_S", 0.01)


@pytest.mark.usefixtures("fast_backoff")
@pytest.mark.parametrize(
    "failure",
    [fa.server_error(), fa.error(503, "api_error"), fa.overloaded(), fa.error(408, "timeout")],
    ids=["500", "503", "529", "408"],
)
async def test_transient_errors_are_retried(
    fake: FakeAnthropic, make_llm: MakeLlm, failure: fa.Reply
) -> None:
    fake.queue(failure, failure, fa.text("Payments"))
    assert await topic(make_llm(max_retries=2)) == "Payments"
    assert len(fake.requests) == 3


async def test_repeated_529_raises_within_the_configured_time(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    fake.default = fa.overloaded()
    llm = make_llm(timeout_s=1.2, max_retries=50)  # the deadline, not the count, ends it
    started = time.monotonic()
    with pytest.raises(LlmUnavailable):
        await topic(llm)
    assert time.monotonic() - started < 1.2 + 0.3
    assert len(fake.requests) >= 2


async def test_retries_are_bounded_by_max_retries(fake: FakeAnthropic, make_llm: MakeLlm) -> None:
    fake.default = fa.overloaded()
    with pytest.raises(LlmUnavailable):
        await topic(make_llm(max_retries=1))
    assert len(fake.requests) == 2


async def test_a_retry_after_beyond_the_deadline_gives_up_at_once(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    fake.default = fa.rate_limited(30)
    started = time.monotonic()
    with pytest.raises(LlmUnavailable):
        await topic(make_llm(timeout_s=2.0))
    assert time.monotonic() - started < 0.5
    assert len(fake.requests) == 1


async def test_client_errors_are_not_retried(fake: FakeAnthropic, make_llm: MakeLlm) -> None:
    fake.default = fa.error(400, "invalid_request_error")
    with pytest.raises(LlmUnavailable):
        await topic(make_llm())
    assert len(fake.requests) == 1


async def test_a_slow_server_times_out_within_the_configured_time(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    fake.default = fa.slow(fa.text("too late"), 5.0)
    started = time.monotonic()
    with pytest.raises(LlmUnavailable):
        await topic(make_llm(timeout_s=0.6))
    assert time.monotonic() - started < 0.6 + 0.4


async def test_slow_then_fast_succeeds_by_retrying_within_the_deadline(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    # the first attempt eats part of the deadline; the retry still fits
    fake.queue(fa.slow(fa.overloaded(), 0.3), fa.text("Payments"))
    assert await topic(make_llm(timeout_s=3.0)) == "Payments"


async def test_connection_refused_is_unavailable(make_llm: MakeLlm) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(LlmUnavailable):
        await topic(make_llm(base_url=f"http://127.0.0.1:{port}", timeout_s=1.5))
    assert time.monotonic() - started < 1.5 + 0.3


async def test_base_url_with_v1_still_reaches_the_api(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    fake.queue(fa.text("Payments"))
    assert await topic(make_llm(base_url=f"{fake.url}/v1/")) == "Payments"
    assert fake.requests[0].path == "/v1/messages"


async def test_the_key_and_message_text_stay_out_of_the_log(
    fake: FakeAnthropic, make_llm: MakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake.queue(fa.overloaded(), fa.text("Payments"), fa.garbage(SECRET_TEXT))
    llm = make_llm()
    assert await topic(llm) == "Payments"
    with pytest.raises(LlmUnavailable):
        await topic(llm)
    assert "Bearer" in fake.requests[0].headers["Authorization"]  # the key was sent
    assert caplog.records  # the retry and the failure were logged...
    assert API_KEY not in caplog.text  # ...without the key
    assert "7701234567" not in caplog.text  # ...and without the message or the reply
