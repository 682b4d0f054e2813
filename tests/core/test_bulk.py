"""The bulk import path (Core.remember_many) against the one-line path (remember and
remember_triple): the same outcome per line, the same graph, the same entity resolution."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from core.errors import CoreError
from core.models import ImportItem, IngestResult, TripleIn
from core.service import Core
from core.store.kuzu_store import ChatStore


def fact(s: str, sk: str, p: str, o: str, ok: str, **kw: Any) -> TripleIn:
    return TripleIn(subject=s, subject_kind=sk, predicate=p, object=o, object_kind=ok, **kw)


TS = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
ITEMS = [
    ImportItem(author="ana", message_id="m1", text="checkout depends on payments", ts=TS),
    ImportItem(
        author="crm",
        message_id="f1",
        triple=fact("Payments", "service", "DEPENDS_ON", "antifraud", "service"),
    ),
    # the same entity by another spelling resolves to the one the message created
    ImportItem(
        author="crm",
        message_id="f2",
        triple=fact("payments ", "service", "USES", "Redis", "service"),
    ),
    ImportItem(author="crm", triple=fact("Olga", "person", "WORKS_AT", "Acme", "company")),
    # cardinality one: a new employer supersedes the old one inside the same batch
    ImportItem(author="crm", triple=fact("olga", "person", "WORKS_AT", "Globex", "company")),
    ImportItem(author="crm", triple=fact("x", "person", "DEPENDS_ON", "y", "service")),
    ImportItem(author="crm", triple=fact("Acme", "company", "WORKS_AT", "z", "company")),
    ImportItem(author="joão", message_id="m2", text="o billing depende do ledger, blz"),
    ImportItem(author="ana", message_id="m1", text="checkout depends on payments"),
    ImportItem(author="Пётр", message_id="m3", text="   "),
    ImportItem(author="Пётр", message_id="m4", text="сервис billing зависит от ledger"),
    ImportItem(
        author="crm",
        message_id="f3",
        triple=fact("low", "service", "USES", "conf", "service", confidence=0.3),
    ),
    # a denial closes the fact it denies, here one the same batch wrote
    ImportItem(author="Пётр", message_id="m5", text="сервис billing больше не зависит от ledger"),
]


def outcome(r: IngestResult | CoreError) -> tuple[Any, ...]:
    if isinstance(r, CoreError):
        return ("error", type(r).__name__)
    return (
        r.duplicate,
        bool(r.message_id),
        sorted((f.subject, f.predicate, f.object) for f in r.stored),
        len(r.pending),
        [x.reason for x in r.rejected],
        len(r.superseded),
    )


async def one_by_one(core: Core, chat: str) -> list[IngestResult | CoreError]:
    out: list[IngestResult | CoreError] = []
    for item in ITEMS:
        try:
            if item.triple is not None:
                out.append(
                    await core.remember_triple(
                        chat, item.triple, author=item.author, message_id=item.message_id
                    )
                )
            else:
                out.append(
                    await core.remember(
                        chat,
                        author=item.author,
                        text=item.text or "",
                        message_id=item.message_id,
                        ts=item.ts,
                    )
                )
        except CoreError as exc:
            out.append(exc)
    return out


async def graph(core: Core, chat: str) -> tuple[Any, ...]:
    facts = await core.facts(chat, history=True, limit=500)
    stats = await core.stats(chat)
    return sorted((f.subject, f.predicate, f.object, f.status) for f in facts), stats


async def test_bulk_gives_what_one_line_at_a_time_gives(
    core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    slow = await one_by_one(core, "slow")
    with caplog.at_level(logging.WARNING, logger="core.pipeline.bulk"):
        fast = await core.remember_many("fast", ITEMS)
    assert not caplog.records  # the batch went in whole, not through the one-by-one fallback
    assert [outcome(r) for r in fast] == [outcome(r) for r in slow]
    assert await graph(core, "fast") == await graph(core, "slow")
    # and the outcomes are the ones a reader expects, so equal-but-wrong cannot pass
    shapes = [outcome(r) for r in fast]
    assert shapes[2][2] == [("payments", "USES", "Redis")]  # the name m1 gave it first
    assert shapes[4][5] == 1  # Globex superseded Acme
    assert shapes[5][1] is False and shapes[5][4]  # refused before storage
    assert shapes[8][0] is True  # the repeated message id
    assert shapes[9] == ("error", "InvalidInput")
    assert shapes[11][3] == 1  # low confidence: pending review
    assert shapes[12][5] == 1  # the denial closed billing DEPENDS_ON ledger


async def test_bulk_batches_follow_one_another(core: Core) -> None:
    """A later batch sees what an earlier one stored (indexes kept in step after commit)."""
    await core.remember_many("c", ITEMS[:4])
    second = await core.remember_many("c", ITEMS[4:])
    assert outcome(second[0])[5] == 1  # supersedes the WORKS_AT the first batch wrote
    assert outcome(second[4])[0] is True  # m1 is a duplicate across batches
    answer = await core.ask("c", "where does Olga work?")
    assert any(f.object == "Globex" for f in answer.facts)


async def test_bulk_writes_only_its_chat(core: Core) -> None:
    await core.remember_many("mine", ITEMS)
    assert (await core.stats("other"))["messages"] == 0
    answer = await core.ask("other", "what does checkout depend on?")
    assert answer.facts == []


def snapshot(store: ChatStore) -> dict[str, Any]:
    """What a chat's in-memory indexes hold, comparable between two loads of the chat (entity
    vectors apart: see test_entity_vectors_survive_checkpoints)."""
    graph = store.active_graph()
    return {
        "messages": sorted(store.message_ids),
        "seq": store.message_seq,
        "message_vectors": {
            m: store.message_vectors.vector(m).tobytes() for m in store.message_ids
        },
        "entities": {
            e.id: (e.kind, e.name, e.key, e.world, e.ident) for e in store.entities.values()
        },
        "by_key": dict(store.by_key),
        "worlds": {
            w.id: (
                w.topic,
                w.access_count,
                w.merged_into,
                w.messages,
                w.facts,
                w.centroid.tobytes(),
            )
            for w in store.worlds.values()
        },
        "facts": {
            f.id: (f.src, f.dst, f.predicate, round(f.confidence, 9), f.sources, f.world)
            for f in graph.by_id.values()
        },
        "mentions": {e: list(ms) for e, ms in graph.mentions.items() if ms},
        "pending": sorted((p.triple.subject, p.sources[0]) for p in store.pending()),
    }


async def test_staged_batches_leave_what_the_database_holds(core: Core) -> None:
    """After staged batches (re-confirmations and supersessions of facts of an earlier batch,
    world merges in between, pending items), the chat's indexes are those a fresh load of the
    chat from the database builds: every row and vector was written, none twice."""
    later = [
        ImportItem(
            author="crm", triple=fact("payments", "service", "DEPENDS_ON", "antifraud", "service")
        ),  # re-confirms a fact of batch one
        ImportItem(author="crm", triple=fact("Olga", "person", "WORKS_AT", "Initech", "company")),
        ImportItem(author="bia", message_id="m9", text="checkout depends on payments again"),
    ]
    await core.remember_many("c", ITEMS)
    second = await core.remember_many("c", later)
    assert outcome(second[0])[2] == [("payments", "DEPENDS_ON", "antifraud")]
    assert outcome(second[1])[5] == 1  # Initech supersedes Globex, stored by batch one
    live = await core.pool.run("c", snapshot)
    await core.pool.discard("c")  # forget the indexes: the next run loads the chat from disk
    loaded = await core.pool.run("c", snapshot)
    assert live == loaded
    assert len(live["facts"]) >= 5 and live["pending"] and live["mentions"]
    # the re-confirmed fact carries the sources of both batches
    assert any(f[2] == "DEPENDS_ON" and len(f[4]) == 2 for f in live["facts"].values())


def entity_vectors(store: ChatStore) -> dict[str, float]:
    return {
        e.name: round(float(np.linalg.norm(v)), 3)
        if (v := store.entity_vectors.vector(e.id)) is not None
        else 0.0
        for e in store.entities.values()
    }


async def test_entity_vectors_survive_checkpoints(core: Core) -> None:
    """Entities written by two batches, and by two lines with a checkpoint in between, keep
    their vectors after a restart. kuzu 0.11.3 reads some of them back as zeros once the shard
    checkpoints again (the test embedder's sparse vectors do it; a COPY into a rel table does
    the same): the store embeds those again when the chat opens (ChatStore.repair_vectors)."""
    zed = ImportItem(author="crm", triple=fact("Zed", "person", "WORKS_AT", "Initech", "company"))
    await core.remember_many("bulk", [ITEMS[0]])
    await core.remember_many("bulk", [zed])
    await core.remember("one", author="ana", text=ITEMS[0].text or "", message_id="m1")
    await core.pool.run("one", lambda s: s.checkpoint())
    await core.remember_triple("one", zed.triple, author="crm")  # type: ignore[arg-type]
    await core.pool.run("one", lambda s: s.checkpoint())
    for chat in ("one", "bulk"):
        live = await core.pool.run(chat, entity_vectors)
        await core.pool.discard(chat)
        assert await core.pool.run(chat, entity_vectors) == live, chat


async def test_batches_started_together_are_written_in_the_order_they_were_started(
    core: Core,
) -> None:
    """bot/cli.py starts the next batch before the previous one returns. The first batch here
    is large (slow to embed) and the second a single line, so without the chat's turns the
    second would be written first and Acme, not Globex, would be Olga's employer."""
    import asyncio

    big = [
        ImportItem(author="crm", triple=fact(f"svc{i}", "service", "USES", f"db{i}", "service"))
        for i in range(300)
    ]
    big.append(
        ImportItem(author="crm", triple=fact("Olga", "person", "WORKS_AT", "Acme", "company"))
    )
    small = [
        ImportItem(author="crm", triple=fact("Olga", "person", "WORKS_AT", "Globex", "company"))
    ]
    first = asyncio.ensure_future(core.remember_many("c", big))
    second = asyncio.ensure_future(core.remember_many("c", small))
    done_first, done_second = await asyncio.gather(first, second)
    assert outcome(done_second[0])[5] == 1  # it superseded the employer the first batch wrote
    facts = await core.facts("c", history=True, limit=1000)
    olga = {(f.object, f.status) for f in facts if f.subject == "Olga"}
    assert olga == {("Acme", "superseded"), ("Globex", "active")}
    assert len(done_first) == 301


async def test_a_batch_that_fails_before_writing_does_not_hold_up_the_next(
    core: Core, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat's batches take turns to embed and to write; one whose durable record fails
    (here the first call's) gives up both turns, and the batch started after it is written."""
    import asyncio

    from core import durable

    real = durable.begin_many
    calls = 0

    async def fails_once(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("disk full")
        return await real(*args, **kwargs)

    monkeypatch.setattr(durable, "begin_many", fails_once)
    first = asyncio.ensure_future(core.remember_many("c", ITEMS[:4]))
    second = asyncio.ensure_future(core.remember_many("c", ITEMS[4:8]))
    got = await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 60)
    assert isinstance(got[0], OSError)
    assert [outcome(r)[1] for r in got[1]] == [True, False, False, True]  # two refused
    facts = await core.facts("c", limit=100)
    assert ("olga", "WORKS_AT", "Globex") in {(f.subject, f.predicate, f.object) for f in facts}
