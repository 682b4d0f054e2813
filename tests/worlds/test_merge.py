"""A world merge that unifies several entities (same names in both worlds) re-attaches every
fact to the entities it was stated about, and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from core.embedding import HashEmbedder
from core.rows import PlannedEntity, PlannedFact, WorldRow
from core.store.kuzu_store import ChatStore

EMB = HashEmbedder()
NOW = datetime(2026, 3, 2, tzinfo=UTC)
# (world, message id, subject, object): every name is in both worlds, so a merge unifies many
SAID = [
    ("w1", "m1", "crm", "search"),
    ("w1", "m2", "billing", "search"),
    ("w1", "m3", "auth", "search"),
    ("w1", "m4", "etl", "billing"),
    ("w2", "m5", "crm", "billing"),
    ("w2", "m6", "search", "auth"),
    ("w2", "m7", "etl", "search"),
    ("w2", "m8", "auth", "billing"),
    ("w2", "m9", "billing", "etl"),
]


def _entity(world: str, name: str) -> PlannedEntity:
    return PlannedEntity(
        f"e_{world}_{name}", "service", name, name, world, "", EMB.embed([name])[0]
    )


def test_a_merge_unifying_many_entities_keeps_every_fact_on_its_own_entities(
    tmp_path: Path,
) -> None:
    store = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
    try:
        for w in ("w1", "w2"):
            store.upsert_world(WorldRow(w, w, EMB.embed([w])[0], 5, NOW, NOW, ""))
        # written as an import writes them (edges by COPY, core/store/staging.py)
        with store.staged():
            for n, (world, mid, s, o) in enumerate(SAID):
                ts = NOW + timedelta(minutes=n)
                store.add_message(
                    message_id=mid,
                    author="a",
                    text=f"{s} depends on {o}",
                    ts=ts,
                    world=world,
                    extraction="offline",
                    embedding=EMB.embed([f"{s} depends on {o}"])[0],
                )
                fact = PlannedFact(_entity(world, s), "DEPENDS_ON", _entity(world, o), 0.8, False)
                store.write_facts([fact], source=mid, now=ts, world=world)
        said = {mid: (s, o) for _, mid, s, o in SAID}
        with store.transaction():  # as a message's inline merge runs: after its own writes
            store.add_message(
                message_id="m10",
                author="a",
                text="ok",
                ts=NOW + timedelta(hours=1),
                world="w2",
                extraction="offline",
                embedding=EMB.embed(["ok"])[0],
            )
            store.merge_worlds("w2", "w1", np.asarray(EMB.embed(["w1"])[0]), NOW)
        reopened = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
        for check in (store, reopened):
            facts = check.export()["facts"]
            got = sorted((f["subject"], f["object"], tuple(f["sources"])) for f in facts)
            want = sorted((s, o, (mid,)) for mid, (s, o) in said.items())
            assert got == want
            assert {(f["world"], f["status"]) for f in facts} == {("w1", "active")}
            names = {(e.world, e.name) for e in check.entities.values()}
            assert names == {("w1", n) for n in ("crm", "search", "billing", "auth", "etl")}
            # the message index follows the merge as the database did (evidence reads it)
            assert set(check.recall.worlds) == {"w1"}, check.recall.worlds
    finally:
        store.close()


class _BatchFailed(Exception):
    """The failure a test injects after a merge inside a batch."""


def test_a_merge_inside_a_bulk_batch_commits_apart_from_the_batch(tmp_path: Path) -> None:
    """An import batch (COPY) that merges worlds commits what it wrote before the merge, then
    the merge, then goes on in a new transaction: a batch that fails afterwards rolls back only
    its rows written after the merge. With the merge in the batch's transaction, kuzu 0.11.3
    lost sight of later changes to stored facts and crashed rolling the batch back (SIGSEGV,
    a 10,000-message import; core/store/regroup.py WorldMover.apart)."""
    store = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
    try:
        for w in ("w1", "w2"):
            store.upsert_world(WorldRow(w, w, EMB.embed([w])[0], 5, NOW, NOW, ""))

        def said(n: int, world: str, s: str, o: str) -> None:
            ts = NOW + timedelta(minutes=n)
            text = f"{s} depends on {o}"
            store.add_message(
                message_id=f"m{n}",
                author="a",
                text=text,
                ts=ts,
                world=world,
                extraction="offline",
                embedding=EMB.embed([text])[0],
            )
            fact = PlannedFact(_entity(world, s), "DEPENDS_ON", _entity(world, o), 0.8, False)
            store.write_facts([fact], source=f"m{n}", now=ts, world=world)

        try:
            with store.staged():
                said(1, "w1", "crm", "search")
                said(2, "w2", "crm", "billing")
                store.merge_worlds("w2", "w1", np.asarray(EMB.embed(["w1"])[0]), NOW)
                said(3, "w1", "etl", "search")
                raise _BatchFailed
        except _BatchFailed:
            pass
        reopened = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
        data = reopened.export()
        assert sorted(m["id"] for m in data["messages"]) == ["m1", "m2"]
        assert {m["world"] for m in data["messages"]} == {"w1"}
        got = sorted((f["subject"], f["object"], f["world"]) for f in data["facts"])
        assert got == [("crm", "billing", "w1"), ("crm", "search", "w1")]
        reopened.close()
    finally:
        store.close()


def test_an_inline_merge_never_joins_two_meanings_of_one_name(tmp_path: Path) -> None:
    """Java the language in one world, Java the island in another (after the job parted
    them, or a person approved the other meaning): however alike the worlds, the merge of
    the world that just grew does not join them; a third world with no such name does."""
    from core.worlds import WorldParams, merge_touched

    store = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
    try:
        centroid = EMB.embed(["java"])[0]
        for w in ("code", "island", "other"):  # "other" the least alike: island's best is code
            vec = EMB.embed(["java payments"])[0] if w == "other" else centroid
            store.upsert_world(WorldRow(w, w, vec, 5, NOW, NOW, ""))
        for n, (world, s, s_kind, o, o_kind, pred) in enumerate(
            [
                ("code", "billing", "service", "Java", "concept", "USES"),
                ("island", "Jakarta", "place", "Java", "place", "LOCATED_IN"),
                ("other", "checkout", "service", "payments", "service", "DEPENDS_ON"),
            ]
        ):
            mid = f"m{n}"
            store.add_message(
                message_id=mid,
                author="a",
                text=f"{s} {pred} {o}",
                ts=NOW,
                world=world,
                extraction="offline",
                embedding=centroid,
            )
            subject = PlannedEntity(f"e_{world}_{s}", s_kind, s, s.lower(), world, "", centroid)
            obj = PlannedEntity(f"e_{world}_{o}", o_kind, o, o.lower(), world, "", centroid)
            store.write_facts(
                [PlannedFact(subject, pred, obj, 0.9, False)], source=mid, now=NOW, world=world
            )
        always = WorldParams(merge_inline=True, merge_similarity=-1.0)

        def live() -> set[str]:
            return {w for w, row in store.worlds.items() if not row.merged_into}

        with store.transaction():
            assert merge_touched(store, "island", always, NOW) == "island"  # not into "code"
        assert live() == {"code", "island", "other"}
        with store.transaction():
            merge_touched(store, "other", always, NOW)  # no name of two kinds: merged
        assert len(live()) == 2, live()
    finally:
        store.close()


def test_a_merge_keeps_the_history_of_a_fact_said_again_after_it_was_closed(
    tmp_path: Path,
) -> None:
    """Two facts of one unified entity with the same ends and predicate (one closed, one said
    again since) are both carried over: the merge's read keyed them by ends and predicate, so
    one was never copied and went with the entity it hung off (found importing 10,000 chat
    messages: a later change to the lost fact failed each batch, and the retries crashed)."""
    store = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
    try:
        for w in ("w1", "w2"):
            store.upsert_world(WorldRow(w, w, EMB.embed([w])[0], 5, NOW, NOW, ""))

        def say(world: str, mid: str, minutes: int) -> list[str]:
            ts = NOW + timedelta(minutes=minutes)
            store.add_message(
                message_id=mid,
                author="a",
                text="crm depends on search",
                ts=ts,
                world=world,
                extraction="offline",
                embedding=EMB.embed(["crm depends on search"])[0],
            )
            fact = PlannedFact(
                _entity(world, "crm"), "DEPENDS_ON", _entity(world, "search"), 0.8, False
            )
            return [f.id for f in store.write_facts([fact], source=mid, now=ts, world=world).stored]

        say("w1", "m1", 0)
        closed = say("w2", "m2", 1)
        store.set_fact_status(closed, "superseded", NOW + timedelta(minutes=2))
        say("w2", "m3", 3)
        with store.transaction():
            store.merge_worlds("w2", "w1", np.asarray(EMB.embed(["w1"])[0]), NOW)
        reopened = ChatStore(tmp_path / "shard", dim=EMB.dim, model_name=EMB.model_name, chat="c")
        for check in (store, reopened):
            facts = check.export()["facts"]
            got = sorted((f["status"], tuple(sorted(f["sources"]))) for f in facts)
            assert got == [("active", ("m1", "m3")), ("superseded", ("m2",))]
            assert {(f["subject"], f["object"], f["world"]) for f in facts} == {
                ("crm", "search", "w1")
            }
        reopened.close()
    finally:
        store.close()


def test_the_newest_messages_read_as_the_tail_of_all_of_them(tmp_path: Path) -> None:
    """The regrouping job reads its window (the newest MAX_MESSAGES) with a LIMIT instead of
    every message of the chat: the same rows, oldest first, whether they were written one by
    one or staged, in a chat shared with another (the shard)."""
    shard = tmp_path / "shard"
    stores = [
        ChatStore(shard, dim=EMB.dim, model_name=EMB.model_name, chat=chat) for chat in ("c", "d")
    ]
    try:
        for k, store in enumerate(stores):
            store.upsert_world(WorldRow("w", "w", EMB.embed(["w"])[0], 1, NOW, NOW, ""))
            for n in range(12):
                ts = NOW + timedelta(minutes=n)
                write = store.staged() if n >= 6 else store.transaction()
                with write:
                    store.add_message(
                        message_id=f"m{k}-{n}",
                        author="a",
                        text=f"message {n} of chat {k}",
                        ts=ts,
                        world="w",
                        extraction="offline",
                        embedding=EMB.embed([f"message {n}"])[0],
                    )
        every = stores[0].world_messages()
        assert [r[0] for r in every] == [f"m0-{n}" for n in range(12)]
        for n in (1, 5, 12, 40):
            assert stores[0].world_messages(newest=n) == every[-n:]
    finally:
        for store in stores:
            store.close()
