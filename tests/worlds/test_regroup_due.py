"""When the regrouping job runs (core/pipeline/due.py): a restart, a rebuild from the record, an
import and a kill all leave a chat's messages in the worlds the same messages sent one by one
in one run get; a plan a kill cut short is finished as planned."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core import durable
from core.config import CoreConfig
from core.models import ImportItem, IngestResult, TripleIn
from core.pipeline.due import REGROUPED
from core.ports import Embedder, GraphStore
from core.regroup import plan
from core.rows import WorldRow
from core.service import Core
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from core.world_names import newest_texts
from core.worlds import params_for
from ontology import Ontology
from tests.conftest import graph_tables
from tests.worlds.conftest import CODE, SNAKE, ManualClock, adaptive_core, partition, tell_hourly

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


async def test_a_restart_regroups_at_the_same_messages_as_a_run_through(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """The job run from the message path counts the chat's growth from what it saw last,
    kept with the chat: a bot restarted half-way (a deploy, a crash) groups the chat's
    messages as one that ran through, after every message (the crash test relies on it)."""
    texts = CODE[:6] + SNAKE
    steps: list[list[set[frozenset[str]]]] = []
    for restart_at in (None, 4):
        clock = ManualClock()
        core = adaptive_core(tmp_path / f"data-{restart_at}", use_embedder, ontology, clock)
        seen = []
        for i, text in enumerate(texts):
            if i == restart_at:
                await core.close()
                core = adaptive_core(tmp_path / f"data-{restart_at}", use_embedder, ontology, clock)
            clock.advance(seconds=20)
            await core.remember("tg:restart", author="ana", text=text)
            seen.append(partition(await core.export("tg:restart")))
        await core.close()
        steps.append(seen)
    through, restarted = steps
    assert len(through[-1]) == 2  # the two topics, split as the chat grew
    for i, (a, b) in enumerate(zip(through, restarted, strict=True)):
        assert a == b, f"after message {i + 1}"


async def test_stated_facts_do_not_move_the_regrouping_across_a_restart(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """A stated fact (/remember) is stored with a message of its own that the job's growth
    does not count; read again after a restart, the count leaves it out as well. It counted it
    then: the three facts below made the job run at the fourth message after a restart, and
    not in the chat that ran through (its record None against "7 7 0")."""
    facts = [
        TripleIn(
            subject="billing service",
            subject_kind="service",
            predicate="USES",
            object="Kafka",
            object_kind="concept",
        ),
        TripleIn(
            subject="Monty",
            subject_kind="person",
            predicate="LOCATED_IN",
            object="Lisbon",
            object_kind="place",
        ),
        TripleIn(
            subject="reports service",
            subject_kind="service",
            predicate="USES",
            object="Postgres",
            object_kind="concept",
        ),
    ]
    steps = []
    for restart_at in (None, 3):
        clock = ManualClock()
        data = tmp_path / f"data-{restart_at}"
        core = adaptive_core(data, use_embedder, ontology, clock)
        seen = []
        for i, text in enumerate(CODE[:3] + SNAKE + CODE[3:6]):
            if i == restart_at:
                await core.close()
                core = adaptive_core(data, use_embedder, ontology, clock)
            clock.advance(seconds=20)
            await core.remember("tg:stated", author="ana", text=text)
            if i < len(facts):
                clock.advance(seconds=5)
                assert (await core.remember_triple("tg:stated", facts[i])).stored
            record = await core.pool.run("tg:stated", lambda s: s.meta(REGROUPED))
            seen.append((record, partition(await core.export("tg:stated"))))
        await core.close()
        steps.append(seen)
    through, restarted = steps
    assert len(through[-1][1]) >= 2 and through[-1][0] is not None  # the job ran and split
    for i, (a, b) in enumerate(zip(through, restarted, strict=True)):
        assert a == b, f"after message {i + 1}"


async def test_a_chat_rebuilt_from_its_record_has_the_worlds_it_had(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """A chat whose database cannot be opened is rebuilt from its durable record; the rebuild
    runs the regrouping job where the message path ran it, so the chat comes back with its
    worlds (without it, two topics the job had split came back glued, and bench/crash.py saw
    facts superseded or sent to review that had not been)."""
    data = tmp_path / "data"

    def open_core() -> Core:
        pool = StorePool(data, dim=use_embedder.dim, model_name=use_embedder.model_name)
        inbound = SqliteInboundLog(data / "inbound.sqlite3")
        cfg = CoreConfig(world_mode="adaptive")
        return Core(
            pool=pool,
            embedder=use_embedder,
            ontology=ontology,
            config=cfg,
            clock=clock,
            inbound=inbound,
        )

    clock = ManualClock()
    core = open_core()
    await _one_by_one(core, "tg:rebuilt", clock, CODE[:6] + SNAKE)
    before = partition(await core.export("tg:rebuilt"))
    shard = core.pool.path("tg:rebuilt")
    await core.close()
    assert len(before) == 2  # the job split the two topics as the chat grew
    (shard / "graph.kz").write_bytes(b"not a database" * 1000)  # what a bad crash leaves
    core = open_core()
    try:
        assert partition(await core.export("tg:rebuilt")) == before
    finally:
        await core.close()


async def _one_by_one(core: Core, chat: str, clock: ManualClock, texts: list[str]) -> None:
    for i, text in enumerate(texts):
        clock.advance(seconds=20)
        await core.remember(chat, author="ana", text=text, message_id=f"m{i}")


async def test_an_import_groups_a_chat_as_its_messages_sent_one_by_one(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """`python -m bot ingest` of a chat's history: the batch stops where a message makes the
    regrouping job due, the job runs, the rest follows (core/pipeline/due.py), so the chat's
    worlds are those it gets when the messages come live (220 messages of the tuning part; with
    the job only once at the end of the import they were not: 2.33 worlds per topic against
    1.58 on the whole part)."""
    rows = [
        json.loads(x)
        for x in (FIXTURES / "worlds2" / "tune.jsonl").read_text("utf-8").splitlines()[:220]
    ]
    clock = ManualClock()
    live = adaptive_core(tmp_path / "live", use_embedder, ontology, clock)
    for r in rows:
        clock.t = datetime.fromisoformat(r["ts"])
        await live.remember("c", author=r["author"], text=r["text"], message_id=r["id"], ts=clock.t)
    want = partition(await live.export("c"))
    assert await live.pool.run("c", _newest_both_ways) is True
    await live.close()
    imported = adaptive_core(tmp_path / "import", use_embedder, ontology, clock)
    items = [
        ImportItem(
            author=r["author"],
            text=r["text"],
            message_id=r["id"],
            ts=datetime.fromisoformat(r["ts"]),
        )
        for r in rows
    ]
    got = await imported.remember_many("c", items)
    assert all(isinstance(r, IngestResult) for r in got)
    assert partition(await imported.export("c")) == want
    assert await imported.pool.run("c", _newest_both_ways) is True
    await imported.close()


def _newest_both_ways(store: GraphStore) -> bool:
    """The texts offline names are made from, read from the chat's message index in memory
    (newest_texts), are those the database holds for each live world after the job's moves
    and merges."""
    from_db: dict[str, list[str]] = {}
    for _, world, _, text in reversed(store.world_messages()):
        w = store.worlds.get(world)
        if w is not None and not w.merged_into and len(from_db.setdefault(world, [])) < 200:
            from_db[world].append(text)
    assert len(from_db) >= 2
    assert newest_texts(store, 200) == from_db
    live, fresh = graph_tables(store)  # and the graph, kept in step through the moves
    assert live == fresh and live["mentions"]
    return True


async def test_a_regrouping_a_kill_cut_short_runs_when_its_message_is_taken_up(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """Killed after a message that made the job due was stored, before the job ran: the
    message's durable record is not finished, so the next start takes it up, finds it stored,
    and runs the job before any later message is routed."""
    texts = CODE[:6] + SNAKE
    clock = ManualClock()
    through = adaptive_core(tmp_path / "through", use_embedder, ontology, clock)
    await _one_by_one(through, "tg:k", clock, texts)
    want = partition(await through.export("tg:k"))
    await through.close()

    data = tmp_path / "killed"
    clock = ManualClock()
    killed = _durable_core(data, use_embedder, ontology, clock)

    async def kill_at_first_due(chat: str) -> bool:
        if await killed.pool.run(chat, killed._ingest.ctx.regroup_due.pending):
            raise SystemExit("killed")  # what kill -9 leaves: stored, not regrouped, not done
        return False

    killed._ingest.regroup = kill_at_first_due
    sent = 0
    for i, text in enumerate(texts):
        clock.advance(seconds=20)
        sent = i + 1
        try:
            await killed.remember("tg:k", author="ana", text=text, message_id=f"m{i}")
        except SystemExit:
            break
    assert 0 < sent < len(texts)
    await killed.close()

    restarted = _durable_core(data, use_embedder, ontology, clock)
    assert await durable.recover(restarted) == 1
    for i, text in enumerate(texts[sent:], start=sent):
        clock.advance(seconds=20)
        await restarted.remember("tg:k", author="ana", text=text, message_id=f"m{i}")
    assert partition(await restarted.export("tg:k")) == want
    await restarted.close()


def _durable_core(data: Path, embedder: Embedder, ontology: Ontology, clock: ManualClock) -> Core:
    pool = StorePool(data, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    cfg = CoreConfig(world_mode="adaptive")
    inbound = SqliteInboundLog(data / "inbound.sqlite3")
    return Core(
        pool=pool, embedder=embedder, ontology=ontology, config=cfg, clock=clock, inbound=inbound
    )


async def test_a_chat_forgotten_and_used_again_regroups_as_a_new_chat(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """`/forget all` removes the chat's counts with its data: written to again, it regroups at
    the messages a new chat would."""
    texts = CODE[:6] + SNAKE
    steps = []
    for chat, before in (("tg:fresh", []), ("tg:again", SNAKE[:4])):
        clock = ManualClock()
        core = adaptive_core(tmp_path / chat.replace(":", "-"), use_embedder, ontology, clock)
        for text in before:
            clock.advance(seconds=20)
            await core.remember(chat, author="ana", text=text)
        if before:
            await core.forget_chat(chat)
        seen = []
        for text in texts:
            clock.advance(seconds=20)
            await core.remember(chat, author="ana", text=text)
            seen.append(partition(await core.export(chat)))
        await core.close()
        steps.append(seen)
    for i, (a, b) in enumerate(zip(*steps, strict=True)):
        assert a == b, f"after message {i + 1}"


@pytest.mark.parametrize("cut", ["recorded", "moved"])
async def test_a_regrouping_plan_a_kill_cut_short_is_finished_as_planned(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder, cut: str
) -> None:
    """The job's moves and merges commit one by one (core.regroup_apply.carry_out says why), after
    the plan is recorded with the chat. Killed after the record, or after the moves but before
    the job's mark, the chat is finished as planned at the next run: the same worlds and facts
    as a run through."""
    from core.pipeline.maintenance import PLAN, _live_messages

    chat = "tg:plan"
    glued = replace(
        params_for(use_embedder), base=-1.0, merge_inline=False, growth_share=0.0
    )  # one world live: the job splits it
    interleaved = [t for pair in zip(CODE, SNAKE, strict=False) for t in pair]
    results = []
    for run in ("through", "killed"):
        clock = ManualClock()
        data = tmp_path / run
        core = adaptive_core(data, use_embedder, ontology, clock, world_params=glued)
        await tell_hourly(core, chat, clock, interleaved)
        if run == "killed":
            rows = await core.pool.run(chat, _live_messages)
            x = (await core._ingest.route_vectors([r[3] for r in rows])).astype(np.float64)
            ts = np.array([r[2].timestamp() for r in rows], dtype=np.float64)
            groups = plan([r[1] for r in rows], ts, x, glued)

            now = clock.now()

            args = (rows, groups, x, now, cut)
            await core.pool.run(chat, lambda store, a=args: _record_plan_then_kill(store, *a))
            await core.close()  # the kill: the plan recorded, the job not marked
            core = adaptive_core(data, use_embedder, ontology, clock, world_params=glued)
            assert await core.pool.run(chat, lambda s: bool(s.meta(PLAN)))
        report = await core.regroup_worlds(chat)
        assert report["split"] >= 1
        assert not await core.pool.run(chat, lambda s: s.meta(PLAN))
        exported = await core.export(chat)
        facts = sorted(
            (f["subject"], f["predicate"], f["object"], f["status"], tuple(f["sources"]))
            for f in exported["facts"]
        )
        texts = {m["id"]: m["text"] for m in exported["messages"]}
        facts = sorted((s, p, o, st, tuple(texts[m] for m in src)) for s, p, o, st, src in facts)
        results.append((partition(exported), facts))
        assert await core.regroup_worlds(chat) == {"moved": 0, "split": 0, "merged": 0}
        await core.close()
    assert results[0] == results[1]


def _record_plan_then_kill(
    store: Any, rows: list[Any], groups: list[int], x: Any, now: datetime, cut: str
) -> None:
    """What apply_and_mark does before the kill: the plan recorded, then (cut "moved") its
    moves and merges carried out, the job not marked."""
    from core.pipeline.maintenance import PLAN
    from core.regroup_apply import carry_out, settle

    settled = settle(store, [r[0] for r in rows], [r[1] for r in rows], groups, x)
    assert settled.moves, "the plan moves messages"
    with store.transaction():
        for wid in settled.new_worlds:
            store.upsert_world(WorldRow(wid, "", np.zeros(x.shape[1], np.float32), 0, now, now, ""))
        store.set_meta(PLAN, settled.to_json())
    if cut == "moved":
        carry_out(store, settled, now)
