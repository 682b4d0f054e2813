"""Validation, review, isolation, persistence, supersession and forgetting (HashEmbedder)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.embedding import HashEmbedder
from core.errors import InvalidInput, NotFound
from core.models import Forgotten, IncomingMessage, TripleIn
from core.service import Core
from tests.conftest import build_core


def triple(
    s: str, p: str, o: str, *, sk: str = "service", ok: str = "service", c: float = 1.0
) -> TripleIn:
    return TripleIn(subject=s, subject_kind=sk, predicate=p, object=o, object_kind=ok, confidence=c)


async def test_phantom_predicate_is_refused_and_never_stored(core: Core) -> None:
    result = await core.remember_triple("c", triple("a", "HATES", "b"))
    assert result.rejected and "unknown predicate" in result.rejected[0].reason
    wrong_kind = await core.remember_triple("c", triple("a", "DECIDES_FOR", "b"))
    assert wrong_kind.rejected and "does not allow" in wrong_kind.rejected[0].reason
    assert (await core.stats("c"))["facts"] == 0
    assert (await core.stats("c"))["messages"] == 0


async def test_low_confidence_waits_in_review_until_approved(core: Core) -> None:
    result = await core.remember_triple("c", triple("checkout", "DEPENDS_ON", "ledger", c=0.5))
    assert not result.stored and len(result.pending) == 1
    assert await core.facts("c") == []
    answer = await core.ask("c", "What does checkout depend on?")
    assert "ledger" not in answer.answer
    fact = await core.review("c", result.pending[0].id, approve=True)
    assert fact is not None and fact.object == "ledger"
    assert await core.pending("c") == []
    assert [f.object for f in await core.facts("c")] == ["ledger"]
    with pytest.raises(NotFound):
        await core.review("c", result.pending[0].id, approve=True)


async def test_rejecting_a_pending_fact_stores_nothing(core: Core) -> None:
    result = await core.remember_triple("c", triple("a", "USES", "b", c=0.3))
    assert await core.review("c", result.pending[0].id, approve=False) is None
    assert await core.facts("c") == [] and await core.pending("c") == []


async def test_chats_are_isolated(core: Core) -> None:
    await core.remember("alpha", author="a", text="checkout depends on payments")
    answer = await core.ask("beta", "What does checkout depend on?")
    assert answer.facts == [] and answer.paths == [] and answer.evidence == []
    assert await core.facts("beta") == []
    with pytest.raises(NotFound):
        await core.forget_entity("beta", "checkout")
    assert len(await core.facts("alpha")) == 1
    assert (await core.export("beta"))["messages"] == []


async def test_cardinality_one_supersedes_and_keeps_history(core: Core) -> None:
    t1 = triple("Acme", "BELONGS_TO", "Globex", sk="company", ok="company")
    t2 = triple("Acme", "BELONGS_TO", "Initech", sk="company", ok="company")
    await core.remember_triple("c", t1)
    second = await core.remember_triple("c", t2)
    assert len(second.superseded) == 1
    active = await core.facts("c", "Acme")
    assert [f.object for f in active] == ["Initech"]
    history = await core.facts("c", "Acme", history=True)
    old = [f for f in history if f.object == "Globex"]
    assert old and old[0].status == "superseded" and old[0].valid_to is not None


async def test_same_fact_again_reconfirms_instead_of_duplicating(core: Core) -> None:
    await core.remember("c", author="a", text="checkout depends on payments", message_id="m1")
    await core.remember("c", author="b", text="Checkout depends on Payments", message_id="m2")
    facts = await core.facts("c")
    assert len(facts) == 1
    assert facts[0].sources == ["m1", "m2"]
    assert facts[0].confidence > 0.8


async def test_same_message_id_is_not_duplicated(core: Core) -> None:
    await core.remember("c", author="a", text="checkout depends on payments", message_id="x")
    again = await core.remember(
        "c", author="a", text="checkout depends on payments", message_id="x"
    )
    assert again.duplicate
    assert (await core.stats("c"))["messages"] == 1


async def test_identifiers_make_stable_ids_and_merge_aliases(core: Core) -> None:
    await core.remember(
        "c", author="a", text="Romashka LLC (INN 7701234560) belongs to Flower Group"
    )
    await core.remember("c", author="a", text="ООО Ромашка (ИНН 7701234560) использует CargoTrack")
    stats = await core.stats("c")
    assert stats["entities"] == 3  # Romashka LLC == ООО Ромашка by tax id
    facts = await core.facts("c", "Romashka LLC")
    assert {f.predicate for f in facts} == {"BELONGS_TO", "USES"}


async def test_forget_entity_and_chat(core: Core) -> None:
    await core.remember("c", author="a", text="checkout depends on payments")
    await core.remember("c", author="a", text="payments depends on antifraud")
    assert await core.forget_entity("c", "payments") == Forgotten(facts=2, messages=2)
    assert await core.facts("c") == []
    answer = await core.ask("c", "What does checkout depend on?")
    assert answer.paths == []
    await core.forget_chat("c")
    assert core.pool.exists("c") is False
    assert (await core.stats("c"))["messages"] == 0


@pytest.mark.parametrize("text", ["", "   ", "\x00\x00", "x" * 9000])
async def test_bad_input_gets_a_clear_error_and_keeps_data(core: Core, text: str) -> None:
    await core.remember("c", author="a", text="checkout depends on payments")
    with pytest.raises(InvalidInput) as err:
        await core.handle_message("c", IncomingMessage(author="a", text=text))
    assert str(err.value)
    assert len(await core.facts("c")) == 1


async def test_hostile_text_is_stored_as_data(core: Core) -> None:
    hostile = '\'); MATCH (n) DETACH DELETE n; // depends on "payments" {x: $y}'
    await core.remember("c", author="a", text="checkout depends on payments")
    await core.handle_message("c", IncomingMessage(author="<script>", text=hostile))
    assert len(await core.facts("c", "checkout")) == 1
    exported = await core.export("c")
    assert any(m["text"] == hostile for m in exported["messages"])


async def test_trace_explains_the_last_answer(core: Core) -> None:
    await core.remember("c", author="a", text="checkout depends on payments")
    answer = await core.ask("c", "What does checkout depend on?")
    trace = await core.why("c")
    assert trace is not None and trace.id == answer.trace_id
    assert trace.paths == answer.paths and trace.seeds[0].entity == "checkout"
    assert any(n.name == "payments" for n in trace.nodes)


async def test_restart_keeps_everything(tmp_path: Path, ontology) -> None:  # type: ignore[no-untyped-def]
    first = build_core(tmp_path, HashEmbedder(), ontology)
    await first.remember("c", author="a", text="checkout depends on payments")
    await first.remember_triple("c", triple("x", "USES", "y", c=0.4))
    await first.close()
    second = build_core(tmp_path, HashEmbedder(), ontology)
    assert len(await second.facts("c")) == 1
    assert len(await second.pending("c")) == 1
    answer = await second.ask("c", "What does checkout depend on?")
    assert answer.paths == [["checkout", "payments"]]
    await second.close()


def test_kill_9_after_commit_loses_nothing(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import asyncio, os, signal, sys
        sys.path.insert(0, {str(Path(__file__).parents[2])!r})
        from tests.conftest import build_core
        from core.embedding import HashEmbedder
        from ontology import load_ontology
        async def main():
            core = build_core(__import__('pathlib').Path({str(tmp_path)!r}), HashEmbedder(), load_ontology())
            for i in range(20):
                await core.remember("c", author="a", text=f"svc{{i}} depends on svc{{i+1}}")
            print("committed", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        asyncio.run(main())
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert "committed" in proc.stdout

    async def check() -> int:
        from ontology import load_ontology

        core = build_core(tmp_path, HashEmbedder(), load_ontology())
        n = len(await core.facts("c", limit=100))
        await core.close()
        return n

    assert asyncio.run(check()) == 20
    assert os.path.exists(tmp_path)


async def test_concurrent_chats_lose_nothing(core: Core) -> None:
    chats, per_chat = 12, 10

    async def talk(i: int) -> None:
        for j in range(per_chat):
            if j % 5 == 4:
                await core.ask(f"chat{i}", f"What does s{i}x{j - 1} depend on?")
            else:
                await core.remember(
                    f"chat{i}", author="u", text=f"s{i}x{j} depends on s{i}x{j + 1}"
                )

    await asyncio.gather(*(talk(i) for i in range(chats)))
    for i in range(chats):
        stats = await core.stats(f"chat{i}")
        assert stats["messages"] == per_chat - per_chat // 5
        assert stats["facts"] == per_chat - per_chat // 5


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Что нужно checkout?", "ru"),
        ("checkout зависит от платежей", "ru"),
        ("Qual política se aplica ao checkout?", "pt"),
        ("Which policy applies to checkout?", "en"),
        ("Does Ivan Petrov decide for Romashka?", "en"),
    ],
)
def test_language_of_mixed_text(text: str, lang: str) -> None:
    from core.language import detect_language

    assert detect_language(text) == lang
