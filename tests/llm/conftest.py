"""Fixtures: the fake Messages API server and adapters pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from core.llm.anthropic_llm import AnthropicLlm
from ontology import Ontology, load_ontology
from tests.llm.fake_anthropic import FakeAnthropic

API_KEY = "sk-ant-test-SECRET-1234567890"


@pytest.fixture(scope="session")
def ontology() -> Ontology:
    return load_ontology()


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    server = FakeAnthropic()
    await server.start()
    yield server
    await server.stop()


MakeLlm = Callable[..., AnthropicLlm]


@pytest.fixture
async def make_llm(fake: FakeAnthropic, ontology: Ontology) -> AsyncIterator[MakeLlm]:
    made: list[AnthropicLlm] = []

    def make(**overrides: Any) -> AnthropicLlm:
        kwargs: dict[str, Any] = {
            "api_key": API_KEY,
            "ontology": ontology,
            "answer_model": "claude-sonnet-test",
            "extract_model": "claude-haiku-test",
            "max_tokens": 512,
            "timeout_s": 5.0,
            "max_retries": 2,
            "base_url": fake.url,
            "calls_per_minute": 600,
        }
        kwargs.update(overrides)
        llm = AnthropicLlm(**kwargs)
        made.append(llm)
        return llm

    yield make
    for llm in made:
        await llm.aclose()
