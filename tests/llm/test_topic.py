"""Topic names: the cheap model, a short cleaned name."""

from __future__ import annotations

import pytest

from core.errors import LlmUnavailable
from tests.llm import fake_anthropic as fa
from tests.llm.conftest import MakeLlm
from tests.llm.fake_anthropic import FakeAnthropic

TEXTS = ["checkout depends on payments", "payments depends on antifraud"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Payments platform", "Payments platform"),
        ('"Payments Platform."\n\nThese messages are about payments.', "Payments Platform"),
        ("**Сервисы платежей**", "Сервисы платежей"),
        ("a very long topic name that keeps going", "a very long topic"),
    ],
)
async def test_topic_name_is_short_and_clean(
    fake: FakeAnthropic, make_llm: MakeLlm, reply: str, expected: str
) -> None:
    fake.queue(fa.text(reply))
    assert await make_llm().topic_name(texts=TEXTS) == expected
    body = fake.requests[0].body
    assert body["model"] == "claude-haiku-test"
    assert body["max_tokens"] <= 32
    user = body["messages"][0]["content"]
    assert "<messages>" in user
    assert "payments depends on antifraud" in user


async def test_empty_topic_is_unavailable(fake: FakeAnthropic, make_llm: MakeLlm) -> None:
    fake.queue(fa.text('"."'))
    with pytest.raises(LlmUnavailable):
        await make_llm().topic_name(texts=TEXTS)
