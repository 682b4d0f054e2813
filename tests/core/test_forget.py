"""A user's erase request for a name (`/forget Pedro`, core/pipeline/erase.py): the entity, its
facts and every message that names it go, from the graph, the durable record and the files;
what the chat said about other things stays."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core import durable
from core.errors import NotFound
from core.models import TripleIn
from core.pipeline.erase import name_keys, names_in
from core.service import Core
from ontology import Ontology
from tests.conftest import pool_of
from tests.core.durable_core import CHAT, make_core

SURF = [
    ("1", "Pedro works at the surf school since 2019"),
    ("2", "Pedro's phone is 912 345 678"),
    ("3", "the surf lesson costs 30 euros"),
    ("4", "Ana teaches at the surf school"),
    ("5", "call Pedro before noon, he knows the tides"),
]


async def told(core: Core, lines: list[tuple[str, str]] = SURF) -> None:
    for mid, text in lines:
        await core.remember(CHAT, author="ann", text=text, message_id=mid)


def files_of(data: Path) -> bytes:
    return b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())


def test_a_name_is_found_in_any_inflection_and_never_inside_another_word() -> None:
    keys = name_keys(["ООО Ромашки"])
    assert names_in("договор с ООО Ромашка подписан", keys)
    assert not names_in("ромашковый чай", keys)
    pedro = name_keys(["Pedro"])
    assert names_in("call PEDRO tomorrow", pedro)
    assert not names_in("pedrosa called", pedro)
    assert name_keys(["the", "  "]) == ()  # only stop words: names nothing


async def test_forgetting_a_name_takes_the_messages_that_say_it(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await told(core)
    would = await core.forget_preview(CHAT, "Pedro")  # the confirmation's figures
    assert (await core.stats(CHAT))["messages"] == 5  # a preview changes nothing
    gone = await core.forget_entity(CHAT, "Pedro")
    assert gone == would
    assert gone.messages == 3
    answer = await core.ask(CHAT, "who is Pedro?")
    for secret in ("2019", "912", "tides"):
        assert secret not in answer.answer
    assert not [e for e in answer.evidence if "Pedro" in e]
    assert "30" in (await core.ask(CHAT, "how much is a surf lesson?")).answer
    assert "Ana" in (await core.ask(CHAT, "who teaches at the surf school?")).answer
    assert (await core.stats(CHAT))["messages"] == 2
    assert not any("Pedro" in f.sentence() for f in await core.facts(CHAT))
    assert {r.id for r in core.inbound.records(CHAT) if r.kind == "message"} == {"3", "4"}  # type: ignore[union-attr]
    with pytest.raises(NotFound):
        await core.forget_entity(CHAT, "Pedro")  # nothing names it any more
    # a message said after the request is new knowledge
    await core.remember(CHAT, author="ann", text="Pedro is back on Monday", message_id="6")
    assert "Monday" in (await core.ask(CHAT, "when is Pedro back?")).answer
    await core.close()


async def test_what_was_forgotten_stays_forgotten_after_a_restart_and_a_rebuild(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await told(core)
    await core.forget_entity(CHAT, "Pedro")
    await core.remember(CHAT, author="ann", text="Pedro is back on Monday", message_id="6")
    chat_dir = core.pool.path(CHAT)
    await core.close()
    core = make_core(tmp_path, ontology)
    texts = await core.pool.run(CHAT, lambda s: list(s.recall.texts))
    assert sorted(texts) == sorted([SURF[2][1], SURF[3][1], "Pedro is back on Monday"])
    await core.close()
    (chat_dir / "graph.kz").write_bytes(b"junk" * 4000)  # the graph is rebuilt from the record
    core = make_core(tmp_path, ontology)
    rebuilt = await core.pool.run(CHAT, lambda s: list(s.recall.texts))
    assert sorted(rebuilt) == sorted(texts)
    assert "Monday" in (await core.ask(CHAT, "when is Pedro back?")).answer
    await core.close()


async def test_an_erase_a_kill_cut_short_is_finished_at_the_next_start(
    tmp_path: Path, ontology: Ontology
) -> None:
    """The request is recorded before anything is erased: a kill after the durable record's
    messages went, before the graph's, leaves it unfinished, and the start finishes it."""
    core = make_core(tmp_path, ontology)
    await told(core)
    history = core._history

    def killed(store: object, name: str) -> None:
        raise RuntimeError("killed")

    history._erase = killed  # type: ignore[method-assign,assignment]
    with pytest.raises(RuntimeError):
        await core.forget_entity(CHAT, "Pedro")
    await core.close()
    core = make_core(tmp_path, ontology)
    assert (await core.stats(CHAT))["messages"] == 5  # the kill came before the graph's erase
    assert await durable.recover(core) == 1
    assert (await core.stats(CHAT))["messages"] == 2
    assert "912" not in (await core.ask(CHAT, "what is Pedro's phone?")).answer
    assert await durable.recover(core) == 0
    await core.close()


async def test_the_bytes_of_what_was_forgotten_leave_the_files(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology, idle_checkpoint_s=0.05)  # quiet soon: compacted
    pool = pool_of(core)
    secret = "Zorbanek's phone is 919-282-737"
    await told(core, [*SURF, ("9", secret)])
    await pool.settled()
    assert b"919-282-737" in files_of(tmp_path)
    gone = await core.forget_entity(CHAT, "Zorbanek")
    assert gone.messages == 1
    await pool.settled()
    assert b"919-282-737" not in files_of(tmp_path)
    # the name itself stays only as the request's own record, which a rebuild replays
    assert b"Zorbanek" not in files_of(pool.path(CHAT))
    with sqlite3.connect(tmp_path / "inbound.sqlite3") as db:
        kinds = [r[0] for r in db.execute("SELECT kind FROM record WHERE text LIKE '%Zorbanek%'")]
    assert kinds == ["forget"]
    assert "30" in (await core.ask(CHAT, "how much is a surf lesson?")).answer
    await core.close()


async def test_review_items_and_traces_that_cite_it_go_too(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await told(core)
    asked = await core.ask(CHAT, "what is Pedro's phone?")
    assert await core.why(CHAT, asked.trace_id) is not None
    other = await core.ask(CHAT, "how much is a surf lesson?")
    now = datetime.now(UTC)
    unsure = TripleIn(
        subject="surf school",
        subject_kind="org",
        predicate="LOCATED_IN",
        object="Ericeira",
        object_kind="place",
    )
    kept = unsure.model_copy(update={"object": "Peniche"})
    await core.pool.run(CHAT, lambda s: s.add_pending(unsure, ["2"], now))  # cites message 2
    await core.pool.run(CHAT, lambda s: s.add_pending(kept, ["3"], now))
    await core.forget_entity(CHAT, "Pedro")
    assert await core.why(CHAT, asked.trace_id) is None
    assert await core.why(CHAT, other.trace_id) is not None
    assert [p.triple.object for p in await core.pending(CHAT)] == ["Peniche"]
    with sqlite3.connect(tmp_path / "inbound.sqlite3") as db:
        texts = [r[0] for r in db.execute("SELECT text FROM record WHERE kind != 'forget'")]
    assert not [t for t in texts if "Pedro" in t]
    await core.close()


async def test_one_chat_forgetting_a_name_leaves_another_chat_alone(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await told(core)
    for mid, text in SURF:
        await core.remember("telegram:7", author="bo", text=text, message_id=mid)
    await core.forget_entity(CHAT, "Pedro")
    assert (await core.stats("telegram:7"))["messages"] == 5
    assert "912" in (await core.ask("telegram:7", "what is Pedro's phone?")).answer
    await core.close()


async def test_a_world_named_after_it_is_named_again(tmp_path: Path, ontology: Ontology) -> None:
    core = make_core(tmp_path, ontology)
    await told(core, [("1", "Pedro Pedro Pedro, the surf teacher"), *SURF[1:]])
    assert any("pedro" in w.topic.lower() for w in await core.worlds(CHAT))
    await core.forget_entity(CHAT, "Pedro")
    topics = [w.topic for w in await core.worlds(CHAT)]
    assert topics and not [t for t in topics if "pedro" in t.lower()]
    await core.close()
