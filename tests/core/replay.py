"""Shared by the client-trial tests: a chat's staff messages told to the core, then a
client's question asked."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from bench.trials import TRIALS, Asked, Said, Wait, read, run_file
from core.service import Core


async def first_line(core: Core, messages: Sequence[str], question: str) -> tuple[str, str]:
    """What the answer quotes or says first, and the whole answer (for the failure message)."""
    start = datetime(2026, 11, 2, 9, tzinfo=UTC)
    for i, text in enumerate(messages):  # a minute apart, in order
        await core.remember("c", author="Ana", text=text, ts=start + timedelta(minutes=i))
    got = await core.ask("c", question)
    return got.answer.splitlines()[0], got.answer


def staff_before(chat: str, question: str) -> list[str]:
    """The staff messages of a trial chat written before the question is asked in it (what
    bench.trials has told the bot when it asks)."""
    out = []
    for item in read(TRIALS / f"{chat}.txt"):
        if isinstance(item, Asked) and item.question == question:
            return out
        if isinstance(item, Said):
            out.append(item.text)
    raise AssertionError(f"{question!r} is not asked in {chat}")


async def answered_as_the_bench_asks(core: Core, chat: str, question: str) -> bool:
    """The chat told as bench.trials tells it (its authors, one minute apart, and its
    waits), up to the question: does the bench find it answered?"""
    items: list[Said | Wait | Asked] = []
    for item in read(TRIALS / f"{chat}.txt"):
        if isinstance(item, Asked) and item.question == question:
            items.append(item)
            break
        if not isinstance(item, Asked):
            items.append(item)
    assert isinstance(items[-1], Asked), f"{question!r} is not asked in {chat}"
    return (await run_file(items, core.embedder, verbose=True))[:2] == (1, 1)
