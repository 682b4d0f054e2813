"""The per-chat budget: a token bucket per chat; excess calls wait in line, none is dropped."""

from __future__ import annotations

import asyncio

from core.llm import CallBudget, budget_scope, current_budget_key
from tests.llm import fake_anthropic as fa
from tests.llm.conftest import MakeLlm
from tests.llm.fake_anthropic import FakeAnthropic


class FakeTime:
    """A clock that only moves when someone sleeps: waits are exact and instant."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)

    def budget(self, calls_per_minute: int) -> CallBudget:
        return CallBudget(calls_per_minute, clock=self.clock, sleep=self.sleep)


async def test_a_burst_beyond_the_budget_waits_for_refill() -> None:
    t = FakeTime()
    budget = t.budget(2)
    waits = [await budget.acquire("chat") for _ in range(4)]
    assert waits == [0.0, 0.0, 30.0, 30.0]  # 2 a minute: one token every 30 s


async def test_chats_have_separate_budgets() -> None:
    t = FakeTime()
    budget = t.budget(1)
    assert await budget.acquire("a") == 0.0
    assert await budget.acquire("b") == 0.0
    assert await budget.acquire("a") == 60.0


async def test_a_flood_is_queued_in_order_never_dropped() -> None:
    t = FakeTime()
    budget = t.budget(6)
    done: list[int] = []

    async def call(n: int) -> None:
        await budget.acquire("chat")
        done.append(n)

    await asyncio.gather(*(call(n) for n in range(20)))
    assert done == list(range(20))
    assert t.now - 1000.0 == 14 * 10.0  # 6 from the bucket, then one every 10 s


async def test_zero_means_unlimited() -> None:
    t = FakeTime()
    budget = t.budget(0)
    assert [await budget.acquire("chat") for _ in range(100)] == [0.0] * 100


async def test_the_scope_travels_into_tasks_and_is_restored() -> None:
    assert current_budget_key() == ""
    with budget_scope("telegram:1"):
        assert await asyncio.create_task(_key()) == "telegram:1"
        with budget_scope("slack:T:C"):
            assert current_budget_key() == "slack:T:C"
        assert current_budget_key() == "telegram:1"
    assert current_budget_key() == ""


async def _key() -> str:
    return current_budget_key()


async def test_the_adapter_spends_the_scoped_chats_budget(
    fake: FakeAnthropic, make_llm: MakeLlm
) -> None:
    t = FakeTime()
    llm = make_llm(budget=t.budget(1))
    fake.default = fa.text("Payments")
    with budget_scope("chat-a"):
        assert await llm.topic_name(texts=["x"]) == "Payments"
        assert await llm.topic_name(texts=["y"]) == "Payments"  # queued, then served
    assert t.sleeps == [60.0]
    with budget_scope("chat-b"):
        assert await llm.topic_name(texts=["z"]) == "Payments"  # another chat: no wait
    assert t.sleeps == [60.0]
    assert len(fake.requests) == 3
