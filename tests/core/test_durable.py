"""The durable inbound log (issue 12): records before the graph, done after the facts, taken up
after a crash, a broken chat rebuilt from them, edits as corrections."""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core import durable
from core.config import WorldMode
from core.embedding import HashEmbedder
from core.errors import StoreError
from core.inbound import ChatRecord
from core.models import TripleIn
from core.pipeline.ingest import Checked
from core.service import Core
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import Ontology
from tests.core.durable_core import CHAT, make_core, sentences, torn_and_reopened


def test_log_is_wal_with_full_sync_and_keeps_the_first_version(tmp_path: Path) -> None:
    log = SqliteInboundLog(tmp_path / "in.sqlite3")
    ts = datetime(2026, 5, 1, tzinfo=UTC)
    first = log.begin(ChatRecord("c", "m1", "message", "ann", "hi", ts, "", done=False))
    again = log.begin(ChatRecord("c", "m1", "message", "bob", "other", ts, "", done=False))
    assert (
        (again.author, again.text, again.done)
        == ("ann", "hi", False)
        == (
            first.author,
            first.text,
            first.done,
        )
    )
    log.record_deliveries("telegram", [("7", "{}"), ("8", "{}")])
    log.record_deliveries("telegram", [("7", '{"x": 1}')])  # a re-delivery keeps the first
    log.finish_delivery("telegram", "8")
    log.close()
    reopened = SqliteInboundLog(tmp_path / "in.sqlite3")
    assert [d.id for d in reopened.unfinished_deliveries("telegram")] == ["7"]
    assert reopened.delivery("telegram", "7").body == "{}"  # type: ignore[union-attr]
    assert [r.id for r in reopened.unfinished()] == ["m1"]
    assert reopened.records("other chat") == []
    reopened.close()
    db = sqlite3.connect(tmp_path / "in.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    log = SqliteInboundLog(tmp_path / "in.sqlite3")
    assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    log.close()


async def test_a_record_that_hits_a_bug_does_not_stop_the_start(
    tmp_path: Path, ontology: Ontology, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """An unfinished record whose ingest raises something that is no CoreError (an extractor
    bug: "depends on payments, and ledger" raised IndexError until a0bbc1f) is logged and
    kept; the other records are taken up and the bot starts."""
    from core.extract import OfflineExtractor

    real = OfflineExtractor.extract

    def buggy(self: OfflineExtractor, text: str, *args: Any, **kwargs: Any) -> Any:
        if "ledger" in text:
            raise IndexError("list index out of range")
        return real(self, text, *args, **kwargs)

    core = make_core(tmp_path, ontology)
    assert core.inbound is not None
    ts = datetime(2026, 5, 1, tzinfo=UTC)
    for mid, text in (("1", "checkout depends on ledger"), ("2", "payments depends on antifraud")):
        core.inbound.begin(ChatRecord(CHAT, mid, "message", "ann", text, ts, "", False))
    await core.close()

    monkeypatch.setattr(OfflineExtractor, "extract", buggy)
    core = make_core(tmp_path, ontology)
    with caplog.at_level(logging.ERROR, logger="core.durable"):
        assert await durable.recover(core) == 2
    assert "record 1 failed" in caplog.text
    assert sentences(await core.facts(CHAT)) == {("payments DEPENDS_ON antifraud", "active")}
    assert [r.id for r in core.inbound.unfinished()] == ["1"]  # type: ignore[union-attr]
    await core.close()

    monkeypatch.setattr(OfflineExtractor, "extract", real)  # the fix deployed: taken up
    core = make_core(tmp_path, ontology)
    assert await durable.recover(core) == 1
    assert ("checkout DEPENDS_ON ledger", "active") in sentences(await core.facts(CHAT))
    await core.close()


async def test_a_message_is_done_only_with_its_facts_and_taken_up_after_a_crash(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="checkout depends on payments", message_id="1")
    # a crash right after recording message 2: it is in the log, not in the graph
    assert core.inbound is not None
    ts = datetime(2026, 5, 1, tzinfo=UTC)
    core.inbound.begin(
        ChatRecord(CHAT, "2", "message", "bob", "payments depends on antifraud", ts, "", False)
    )
    await core.close()

    core = make_core(tmp_path, ontology)
    assert [r.id for r in core.inbound.unfinished()] == ["2"]  # type: ignore[union-attr]
    assert await durable.recover(core) == 1
    facts = sentences(await core.facts(CHAT))
    assert facts == {
        ("checkout DEPENDS_ON payments", "active"),
        ("payments DEPENDS_ON antifraud", "active"),
    }
    assert core.inbound.unfinished() == []  # type: ignore[union-attr]
    again = await core.remember(
        CHAT, author="bob", text="payments depends on antifraud", message_id="2"
    )
    assert again.duplicate
    assert (await core.stats(CHAT))["messages"] == 2
    await core.close()


async def test_unreadable_chat_is_set_aside_and_rebuilt_from_its_record(
    tmp_path: Path, ontology: Ontology, caplog: pytest.LogCaptureFixture
) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="checkout depends on payments", message_id="1")
    await core.remember(CHAT, author="ann", text="Acme belongs to Globex", message_id="2")
    triple = TripleIn(
        subject="Bob",
        subject_kind="person",
        predicate="DECIDES_FOR",
        object="Acme",
        object_kind="company",
        confidence=0.9,
    )
    await core.remember_triple(CHAT, triple, message_id="3")
    await core.remember(CHAT, author="ann", text="anything else", message_id="x")
    before = sentences(await core.facts(CHAT))
    await core.forget_chat("telegram:other")  # another chat's erase touches nothing here
    chat_dir = core.pool.path(CHAT)
    await core.close()
    (chat_dir / "graph.kz").write_bytes(b"not a database" * 1000)  # what a bad crash leaves

    core = make_core(tmp_path, ontology)
    with caplog.at_level(logging.WARNING):
        after = sentences(await core.facts(CHAT))
        await core.facts(CHAT)
    assert after == before
    assert (await core.stats(CHAT))["messages"] == 4
    aside = [p for p in chat_dir.parent.iterdir() if p.name.startswith(chat_dir.name + ".broken-")]
    assert len(aside) == 1
    assert (aside[0] / "graph.kz").read_bytes().startswith(b"not a database")  # kept
    warnings = [r for r in caplog.records if "cannot be opened" in r.getMessage()]
    assert len(warnings) == 1
    assert core.pool.chats() == [CHAT]
    await core.close()


async def test_unreadable_chat_older_than_the_log_is_an_error_not_an_empty_chat(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    core = Core(pool=pool, embedder=emb, ontology=ontology)  # no log yet
    await core.remember(CHAT, author="ann", text="checkout depends on payments")
    await core.close()
    core = make_core(tmp_path, ontology)  # the log from now on: it lacks the first message
    await core.remember(CHAT, author="ann", text="billing depends on ledger", message_id="2")
    await core.close()
    (pool.path(CHAT) / "graph.kz").write_bytes(b"junk" * 4000)
    core = make_core(tmp_path, ontology)
    with pytest.raises(StoreError, match="cannot be opened"):
        await core.facts(CHAT)
    await core.close()
    assert (pool.path(CHAT) / "graph.kz").read_bytes().startswith(b"junk")  # left in place


async def test_forgetting_a_chat_forgets_its_record(tmp_path: Path, ontology: Ontology) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="checkout depends on payments", message_id="1")
    await core.forget_chat(CHAT)
    assert core.inbound.records(CHAT) == []  # type: ignore[union-attr]
    await core.close()


async def test_forgotten_and_handled_text_is_gone_from_the_log_file(
    tmp_path: Path, ontology: Ontology
) -> None:
    """/forget all and a handled delivery leave no readable user text in the SQLite files."""
    core = make_core(tmp_path, ontology)
    log_ = core.inbound
    assert isinstance(log_, SqliteInboundLog)
    secret_said, secret_sent = "zanzibar-quokka-7781", "marmalade-okapi-9932"
    log_.record_deliveries("telegram", [("u1", f'{{"text": "{secret_sent}"}}')])
    log_.finish_delivery("telegram", "u1")
    await core.remember(CHAT, author="ann", text=f"{secret_said} uses payments", message_id="1")
    await core.forget_chat(CHAT)
    delivery = log_.delivery("telegram", "u1")
    assert delivery is not None and delivery.done  # still recognised if Telegram re-sends it
    files = [p for p in log_.path.parent.iterdir() if p.name.startswith(log_.path.name)]
    raw = b"".join(p.read_bytes() for p in files)
    assert secret_said.encode() not in raw
    assert secret_sent.encode() not in raw
    await core.close()


async def test_a_message_and_its_facts_are_one_transaction(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A failure while writing the facts leaves no message behind, so the same id is not
    skipped as "already stored" later (issue 12: 20 facts lost over 42 kills)."""
    emb = HashEmbedder()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    core = Core(pool=pool, embedder=emb, ontology=ontology)
    await core.remember(CHAT, author="ann", text="hello there", message_id="0")

    def fail_inside(store) -> None:  # type: ignore[no-untyped-def]
        with store.transaction():
            said = Checked(
                "1", "ann", "checkout depends on payments", datetime.now(UTC), emb.embed(["x"])[0]
            )
            core._ingest.ingest_offline(store, said)
            raise RuntimeError("killed here")

    with pytest.raises(RuntimeError):
        await pool.run(CHAT, fail_inside)
    await core.close()
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name)
    core = Core(pool=pool, embedder=emb, ontology=ontology)
    result = await core.remember(
        CHAT, author="ann", text="checkout depends on payments", message_id="1"
    )
    assert not result.duplicate
    assert [f.sentence() for f in result.stored] == ["checkout DEPENDS_ON payments"]
    await core.close()


async def test_a_forgotten_entity_stays_forgotten_after_a_rebuild(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="checkout depends on payments", message_id="1")
    await core.remember(CHAT, author="ann", text="billing depends on ledger", message_id="2")
    await core.forget_entity(CHAT, "payments")
    await core.remember(CHAT, author="ann", text="payments depends on pix", message_id="3")
    before = {f.sentence() for f in await core.facts(CHAT)}
    assert before == {"billing DEPENDS_ON ledger", "payments DEPENDS_ON pix"}
    chat_dir = core.pool.path(CHAT)
    await core.close()
    (chat_dir / "graph.kz").write_bytes(b"junk" * 4000)
    core = make_core(tmp_path, ontology)
    assert {f.sentence() for f in await core.facts(CHAT)} == before
    assert await durable.recover(core) == 0
    await core.close()


async def test_an_import_batch_a_kill_tore_is_extracted_again_when_taken_up(
    tmp_path: Path, ontology: Ontology
) -> None:
    """What a kill during the checkpoint ending an import's batch left (seen in bench.crash):
    the batch's messages back from the WAL, their COPYed facts and mentions gone, the records
    not done. Taking the records up extracts those messages again; chatter stays factless."""
    from core.models import ImportItem

    core = make_core(tmp_path, ontology)
    lines = [("m1", "checkout depends on payments"), ("m2", "ok"), ("m3", "ledger uses billing")]
    items = [ImportItem(author="ann", text=t, message_id=i) for i, t in lines]
    await core.remember_many(CHAT, items)
    want = sentences(await core.facts(CHAT))
    assert len(want) == 2

    def tear(store: object) -> None:
        ex = store._exec  # type: ignore[attr-defined]
        for mid in ("m1", "m2", "m3"):
            uid = store._u(mid)  # type: ignore[attr-defined]
            ex(
                "MATCH (m:Message {uid: $m})-[r:MENTIONS]->() WHERE m.chat = $chat DELETE r",
                {"m": uid},
            )
        ex("MATCH ()-[f:FACT]->() WHERE f.chat = $chat DELETE f", {})

    core = await torn_and_reopened(core, tmp_path, ontology, tear, ["m1", "m2", "m3"])
    assert sentences(await core.facts(CHAT)) == set()  # torn
    assert await durable.recover(core) == 3
    assert sentences(await core.facts(CHAT)) == want
    assert (await core.stats(CHAT))["messages"] == 3
    again = await core.remember(CHAT, author="ann", text="ok", message_id="m2")
    assert again.duplicate and not again.stored
    await core.close()


async def test_a_torn_message_is_read_again_as_if_first_whatever_kind_the_wal_left(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A kill during a batch's commit can bring back its entity nodes (from the WAL) without
    any edge, each of the kind the killed run gave it, which can be a later line's: the CLI
    crash test's seed 266 left "checkout" a concept (of m0005, made while m0003 was in another
    world), and m0003's "boleto depends on checkout", read again, went to the review queue.
    An entity left with no mention and no fact is no knowledge: the torn message is read
    again as the first pass read it."""
    from core.models import ImportItem

    core = make_core(tmp_path, ontology)
    lines = [("m1", "boleto depends on checkout"), ("m2", "ok"), ("m3", "checkout uses ledger")]
    items = [ImportItem(author="ann", text=t, message_id=i) for i, t in lines]
    await core.remember_many(CHAT, items)
    want = sentences(await core.facts(CHAT))
    assert ("boleto DEPENDS_ON checkout", "active") in want

    def tear(store: object) -> None:
        ex = store._exec  # type: ignore[attr-defined]
        ex("MATCH (m:Message)-[r:MENTIONS]->() WHERE m.chat = $chat DELETE r", {})
        ex("MATCH ()-[f:FACT]->() WHERE f.chat = $chat DELETE f", {})
        ex("MATCH (e:Entity) WHERE e.chat = $chat AND e.name = 'checkout' SET e.kind = 'concept'")

    core = await torn_and_reopened(core, tmp_path, ontology, tear, ["m1", "m2", "m3"])
    assert await durable.recover(core) == 3
    assert await core.pending(CHAT) == []
    assert sentences(await core.facts(CHAT)) == want
    await core.close()


async def test_a_message_taken_up_again_confirms_its_fact_once(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A kill can leave a message's change to a fact it confirmed (a second source, a higher
    confidence) but not its mentions (kuzu 0.11.3: the COPYed edges do not come back from the
    WAL). Taken up again, the message is read again as a torn one; its fact must not be
    confirmed a second time by it (bench.crash, seed 335: confidence 0.96 -> 0.992 with the
    same two sources)."""
    from core.models import ImportItem

    core = make_core(tmp_path, ontology)
    lines = [("m1", "search requires SOC 2"), ("m2", "ok"), ("m3", "search exige SOC 2")]
    items = [ImportItem(author="ann", text=t, message_id=i) for i, t in lines]
    await core.remember_many(CHAT, items)

    def seen(facts: list) -> set[tuple[str, float, tuple[str, ...]]]:  # type: ignore[type-arg]
        return {(f.sentence(), round(f.confidence, 4), tuple(f.sources)) for f in facts}

    want = seen(await core.facts(CHAT))
    assert [srcs for _, _, srcs in want] == [("m1", "m3")]

    def tear(store: object) -> None:
        uid = store._u("m3")  # type: ignore[attr-defined]
        store._exec(  # type: ignore[attr-defined]
            "MATCH (m:Message {uid: $m})-[r:MENTIONS]->() WHERE m.chat = $chat DELETE r",
            {"m": uid},
        )

    core = await torn_and_reopened(core, tmp_path, ontology, tear, ["m3"])
    assert await durable.recover(core) == 1
    assert seen(await core.facts(CHAT)) == want
    await core.close()


async def test_a_message_handled_before_is_not_extracted_again_when_sent_again(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A message whose only fact waits in the review queue mentions nothing, like one a kill
    tore; sent again once its record is done (an import run again after a kill), it is a
    duplicate, not extracted again: that queued the fact twice, and after a regrouping had
    moved the message to a world without the conflict, stored the fact the queue held
    (bench.crash, seed 250). Taken up while its record is not done, it still is."""
    from core.models import ImportItem

    core = make_core(tmp_path, ontology, world_mode=WorldMode.SINGLE)  # one world: a conflict
    await core.remember(CHAT, author="a", text="The billing service uses Java", message_id="1")
    said = await core.remember(CHAT, author="a", text="Jakarta is located in Java", message_id="2")
    assert len(said.pending) == 1 and not said.stored
    again = await core.remember(CHAT, author="a", text="Jakarta is located in Java", message_id="2")
    assert again.duplicate and not again.pending and not again.stored
    items = [ImportItem(author="a", text="Jakarta is located in Java", message_id="2")]
    (bulk,) = await core.remember_many(CHAT, items)
    assert not isinstance(bulk, Exception)
    assert bulk.duplicate and not bulk.pending
    assert len(await core.pending(CHAT)) == 1
    await core.close()
    # a kill between the commit and the record's mark: taken up at the next start, it is read
    # again as a torn message would be, but what the queue holds from it is not queued again
    with sqlite3.connect(tmp_path / "inbound.sqlite3") as db:
        db.execute("UPDATE record SET done = 0 WHERE id = '2'")
    core = make_core(tmp_path, ontology, world_mode=WorldMode.SINGLE)
    assert await durable.recover(core) == 1
    assert len(await core.pending(CHAT)) == 1
    assert not [f for f in await core.facts(CHAT) if f.subject == "Jakarta"]
    await core.close()


async def test_a_reply_link_survives_a_crash_and_a_rebuild_from_the_record(
    tmp_path: Path, ontology: Ontology
) -> None:
    """A message's explicit reply (a Telegram reply, a Slack thread) is in its durable record:
    a message taken up after a crash, and a chat rebuilt from its record, keep the link."""
    from core.models import IncomingMessage

    def links(core: Core) -> Any:
        return core.pool.run(CHAT, lambda s: dict(s.recall.replied_to))

    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="who approves the invoices?", message_id="1")
    said = IncomingMessage(author="bob", text="Joana approves them", message_id="2", reply_to="1")
    await core.remember_message(CHAT, said)
    assert core.inbound is not None
    ts = datetime(2026, 5, 1, tzinfo=UTC)  # a crash right after recording message 3
    core.inbound.begin(ChatRecord(CHAT, "3", "message", "eve", "and Rui", ts, "", False, "1"))
    await core.close()

    core = make_core(tmp_path, ontology)
    assert await durable.recover(core) == 1
    assert await links(core) == {"2": "1", "3": "1"}
    chat_dir = core.pool.path(CHAT)
    await core.close()
    (chat_dir / "graph.kz").write_bytes(b"not a database" * 1000)

    core = make_core(tmp_path, ontology)
    assert await links(core) == {"2": "1", "3": "1"}  # rebuilt from the record
    await core.close()


def test_a_log_written_before_reply_links_is_read_and_gains_the_column(tmp_path: Path) -> None:
    path = tmp_path / "inbound.sqlite3"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE record (seq INTEGER PRIMARY KEY AUTOINCREMENT, chat TEXT NOT NULL, "
        "id TEXT NOT NULL, kind TEXT NOT NULL, author TEXT NOT NULL, text TEXT NOT NULL, "
        "ts TEXT NOT NULL, triple TEXT NOT NULL DEFAULT '', done INTEGER NOT NULL DEFAULT 0, "
        "UNIQUE (chat, id))"
    )
    db.execute(
        "INSERT INTO record (chat, id, kind, author, text, ts) VALUES "
        "('c', '1', 'message', 'ann', 'hello', '2026-05-01T00:00:00+00:00')"
    )
    db.commit()
    db.close()
    log = SqliteInboundLog(path)
    try:
        [old] = log.unfinished()
        assert (old.id, old.text, old.reply_to) == ("1", "hello", "")
        ts = datetime(2026, 5, 1, tzinfo=UTC)
        log.begin(ChatRecord("c", "2", "message", "bob", "hi", ts, "", False, "1"))
        assert [r.reply_to for r in log.unfinished()] == ["", "1"]
    finally:
        log.close()
