"""Issue 4's must-be-trues through the real core and a real Kùzu DB (hash embedder, fast)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.render import render_trace
from core.embedding import HashEmbedder
from core.service import Core
from ontology import Ontology
from tests.conftest import build_core
from tests.doubles import ManualClock

ASK_AT = datetime(2024, 6, 18, 10, tzinfo=UTC)


def clocked(tmp_path: Path, ontology: Ontology) -> Core:
    core = build_core(tmp_path / "data", HashEmbedder(), ontology)
    core.clock = ManualClock(ASK_AT)
    return core


CHATTER = [
    ("Ana", "The clinic opens two new rooms next month"),
    ("Igor", "Clinic software update is scheduled for the weekend"),
    ("Ana", "Which clinic sent the invoice for March?"),
    ("Igor", "The new clinic dashboard is slow today"),
    ("Mia", "I drew new icons for the clinic app"),
    ("Ana", "The clinic manager asked for a call"),
    ("Igor", "Backups finished without errors"),
    ("Mia", "Lunch at noon?"),
]


async def _talk(core: Core, rows: list[tuple[str, str, datetime, str]]) -> None:
    for author, text, ts, mid in rows:
        await core.remember("c", author=author, text=text, ts=ts, message_id=mid)


async def test_speaker_named_in_question_finds_their_message(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = clocked(tmp_path, ontology)
    base = ASK_AT - timedelta(days=30)
    rows = [(a, t, base + timedelta(minutes=i), f"n{i}") for i, (a, t) in enumerate(CHATTER * 4)]
    rows.append(
        ("Rafael", "I finally started at the new job today", base + timedelta(hours=5), "r1")
    )
    rows.append(("Rafael", "ok", base + timedelta(hours=6), "r2"))
    await _talk(core, rows)
    answer = await core.ask("c", "What did Rafael start?")
    assert "r1" in answer.evidence[:5], answer.evidence
    trace = await core.why("c")
    assert trace is not None
    hit = next(h for h in trace.evidence_hits if h.id == "r1")
    assert "speaker" in hit.signals and hit.author == "Rafael"
    assert "r1" in render_trace(trace) and "speaker" in render_trace(trace)
    await core.close()


async def test_when_question_cites_message_and_date(tmp_path: Path, ontology: Ontology) -> None:
    core = clocked(tmp_path, ontology)
    base = datetime(2024, 4, 22, 12, tzinfo=UTC)
    rows = [
        (a, t, base - timedelta(days=20, minutes=-i), f"n{i}")
        for i, (a, t) in enumerate(CHATTER * 3)
    ]
    rows.append(("Rafael", "I finally started at the new clinic today", base, "r1"))
    await _talk(core, rows)
    answer = await core.ask("c", "When did Rafael start at the clinic?")
    assert answer.evidence[0] == "r1"
    first = answer.answer.splitlines()[0]
    # the quoted sentence first, then who said it and when; the message id is in /why
    assert first.startswith("“I finally started") and "Rafael" in first and "2024-04-22" in first
    await core.close()


async def test_period_question_ranks_that_months_messages_first(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = clocked(tmp_path, ontology)
    decisions = {
        "a1": ("We decided to move the demo to Friday", datetime(2024, 4, 10, tzinfo=UTC)),
        "a2": ("We decided to drop the old pricing page", datetime(2024, 4, 24, tzinfo=UTC)),
        "m1": ("Decision: freeze features until the release", datetime(2024, 5, 6, tzinfo=UTC)),
        "m2": ("We agreed to postpone hiring a designer", datetime(2024, 5, 20, tzinfo=UTC)),
        "j1": ("We decided to decide on the offsite later", datetime(2024, 6, 3, tzinfo=UTC)),
        "j2": ("We decided on the new logo", datetime(2024, 6, 17, tzinfo=UTC)),
    }
    rows = [("Ana", text, ts, mid) for mid, (text, ts) in decisions.items()]
    await _talk(core, rows)
    for question in (
        "What did we decide in May?",
        "O que decidimos em maio?",
        "Что мы решили в мае?",
    ):
        answer = await core.ask("c", question)
        assert set(answer.evidence[:2]) == {"m1", "m2"}, (question, answer.evidence)
    trace = await core.why("c")
    assert trace is not None and all("time" in h.signals for h in trace.evidence_hits[:2])
    await core.close()


async def test_fact_leads_back_to_its_message(core: Core) -> None:
    for i, (a, t) in enumerate(CHATTER * 3):
        await core.remember("c", author=a, text=t, message_id=f"n{i}")
    await core.remember("c", author="ann", text="checkout depends on payments", message_id="src")
    for i in range(10):
        await core.remember(
            "c", author="bob", text=f"payments weekly sync number {i}", message_id=f"p{i}"
        )
    answer = await core.ask("c", "What does checkout depend on?")
    assert answer.facts and answer.facts[0].sources == ["src"]
    assert answer.evidence[0] == "src"
    trace = await core.why("c")
    assert trace is not None
    assert "entities" in trace.evidence_hits[0].signals
    # a question that names only the object still leads to the source of the fact about it
    other = await core.ask("c", "What depends on payments?")
    assert "src" in other.evidence[:3], other.evidence


async def test_index_survives_reopen(tmp_path: Path, ontology: Ontology) -> None:
    core = clocked(tmp_path, ontology)
    await _talk(
        core,
        [("Rafael", "Eu moro em Campinas agora", ASK_AT - timedelta(days=2), "r1")]
        + [(a, t, ASK_AT - timedelta(days=3), f"n{i}") for i, (a, t) in enumerate(CHATTER)],
    )
    await core.close()
    core = clocked(tmp_path, ontology)
    answer = await core.ask("c", "Quem mora em Campinas?")
    assert answer.evidence[0] == "r1"
    trace = await core.why("c")
    assert trace is not None and "words" in trace.evidence_hits[0].signals
    await core.close()
