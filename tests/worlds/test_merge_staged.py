"""A merge inside an import batch of a world born in that batch (core/store/merge_staged.py):
done on the batch's rows, it leaves what the stored merge leaves, and nothing is written
before the batch ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.embedding import HashEmbedder
from core.rows import PlannedEntity, PlannedFact, WorldRow
from core.store.kuzu_store import ChatStore

EMB = HashEmbedder()
NOW = datetime(2026, 3, 2, tzinfo=UTC)
# (world, message, subject, predicate, object, confidence); w2 is merged into w1 after m5
SAID = [
    ("w1", "m1", "crm", "DEPENDS_ON", "search", 0.8),
    ("w1", "m2", "Olga", "WORKS_AT", "Acme", 0.9),
    ("w2", "m3", "crm", "DEPENDS_ON", "search", 0.6),  # a copy once crm and search are one
    ("w2", "m4", "Olga", "WORKS_AT", "Globex", 0.9),  # a later value of a single-valued one
    ("w2", "m5", "billing", "DEPENDS_ON", "crm", 0.7),  # billing moves, crm is unified
    ("w1", "m6", "crm", "DEPENDS_ON", "search", 0.5),  # the folded fact said again
]
KINDS = {"Olga": "person", "Acme": "company", "Globex": "company"}


def _open(path: Path) -> ChatStore:
    store = ChatStore(path, dim=EMB.dim, model_name=EMB.model_name, chat="c")
    store.single_valued = frozenset({"WORKS_AT"})
    store.active_graph()  # loaded, as in a chat an import writes to (a load writes the batch)
    return store


def _entity(world: str, name: str) -> PlannedEntity:
    kind = KINDS.get(name, "service")
    return PlannedEntity(
        f"e_{world}_{name}", kind, name, name.lower(), world, "", EMB.embed([name])[0]
    )


def _play(
    store: ChatStore, step: Callable[[], AbstractContextManager[None]], lines: list[Any]
) -> None:
    """These lines of SAID written one by one, each in `step`, each world upserted with its
    first line, and the merge after m5."""
    for world, mid, s, p, o, conf in lines:
        n = [x[1] for x in SAID].index(mid)
        ts = NOW + timedelta(minutes=n)
        with step():
            if world not in store.worlds:
                store.upsert_world(WorldRow(world, world, EMB.embed([world])[0], 3, NOW, NOW, ""))
            store.add_message(
                message_id=mid,
                author="a",
                text=f"{s} {p} {o}",
                ts=ts,
                world=world,
                extraction="offline",
                embedding=EMB.embed([f"{s} {p} {o}"])[0],
            )
            fact = PlannedFact(_entity(world, s), p, _entity(world, o), conf, p == "WORKS_AT")
            store.write_facts([fact], source=mid, now=ts, world=world)
        if mid == "m5":
            with step():
                store.merge_worlds("w2", "w1", np.asarray(EMB.embed(["w1"])[0]), ts)


@contextmanager
def _inside() -> Iterator[None]:  # a line of a batch: the batch is the transaction
    yield


def _state(store: ChatStore) -> tuple[Any, ...]:
    data = store.export()
    facts = sorted(
        (
            f["subject"],
            f["predicate"],
            f["object"],
            f["status"],
            round(f["confidence"], 6),
            tuple(sorted(f["sources"])),
            f.get("world"),
        )
        for f in data["facts"]
    )
    entities = sorted((e["name"], e["world"], tuple(e["aliases"])) for e in data["entities"])
    messages = sorted((m["id"], m["world"]) for m in data["messages"])
    worlds = sorted(
        (w.id, w.merged_into, w.messages, w.facts, round(w.conf_sum, 6))
        for w in store.worlds.values()
    )
    return facts, entities, messages, worlds


@pytest.mark.parametrize("before", [0, 2], ids=["all-in-the-batch", "w1-stored-before"])
@pytest.mark.parametrize("upto", [5, 6], ids=["ends-with-the-merge", "said-again-after"])
def test_a_merge_in_a_batch_leaves_what_the_stored_merge_leaves(
    tmp_path: Path, before: int, upto: int
) -> None:
    """With w1's lines stored before the batch, the fold changes stored facts: the copy of
    "crm DEPENDS_ON search" folds into the stored one, the stored Acme is closed."""
    said = SAID[:upto]
    staged, stored = _open(tmp_path / "staged"), _open(tmp_path / "stored")
    try:
        _play(staged, staged.transaction, SAID[:before])
        staged.active_graph()
        with staged.staged():  # one import batch: w2 is born in it, and merged
            _play(staged, _inside, said[before:])
        _play(stored, stored.transaction, said)  # line by line: the stored merge's statements
        want = _state(stored)
        assert _state(staged) == want
        facts = want[0]
        # and what the merge is for, so equal-but-wrong cannot pass: the copy folded into one
        # fact of three sources, Acme closed by Globex, billing's fact on w1's crm
        crm = (0.96, ("m1", "m3", "m6")) if upto == 6 else (0.92, ("m1", "m3"))
        assert ("crm", "DEPENDS_ON", "search", "active", *crm, "w1") in facts
        assert ("Olga", "WORKS_AT", "Acme", "superseded", 0.9, ("m2",), "w1") in facts
        assert ("billing", "DEPENDS_ON", "crm", "active", 0.7, ("m5",), "w1") in facts
        assert ("crm", "w1", ()) in want[1] and ("billing", "w1", ()) in want[1]
        assert {w for _, w in want[2]} == {"w1"}
    finally:
        staged.close()
        stored.close()
    for name in ("staged", "stored"):  # and the database holds what memory held
        again = _open(tmp_path / name)
        try:
            assert _state(again) == want, name
        finally:
            again.close()


class _BatchFailed(Exception):
    pass


def test_a_batch_that_fails_after_such_a_merge_leaves_nothing(tmp_path: Path) -> None:
    """No statement ran for the merge, so nothing of the batch was committed before it (a merge
    of a world stored before the batch commits apart: test_merge.py)."""
    store = _open(tmp_path / "shard")
    try:
        try:
            with store.staged():
                _play(store, _inside, SAID)
                assert store.worlds["w2"].merged_into == "w1"
                raise _BatchFailed
        except _BatchFailed:
            pass
    finally:
        store.close()
    again = _open(tmp_path / "shard")
    try:
        assert again.export()["messages"] == [] and again.export()["facts"] == []
    finally:
        again.close()
