"""The fold's rules after a world merge (core/store/fold.py), which the stored merge and the
staged one both apply (tests/worlds/test_merge_staged.py holds those two equal; this holds the
rules themselves)."""

from __future__ import annotations

from datetime import datetime

from core.store.fold import Copy, combined, copies_of, older_values, value_groups


def at(day: int) -> datetime:
    return datetime(2026, 3, day)


def test_copies_of_one_fact_are_grouped_oldest_first() -> None:
    facts = [
        Copy("f3", "ana", "works_at", "acme", at(5)),
        Copy("f1", "ana", "works_at", "acme", at(2)),
        Copy("f2", "ana", "works_at", "acme", at(2)),  # the same day: by id
        Copy("f4", "ana", "lives_in", "porto", at(1)),
        Copy("f5", "rui", "works_at", "acme", at(1)),
    ]
    groups = {tuple(c.id for c in g) for g in copies_of(facts)}
    assert groups == {("f1", "f2", "f3"), ("f4",), ("f5",)}


def test_the_kept_copy_joins_sources_and_confidences_and_was_said_last_when_the_newest_was() -> (
    None
):
    confidence, sources, said = combined(
        [(0.5, ["m1", "m2"], at(2)), (0.5, ["m2", "m3"], at(9)), (0.2, None, at(4))]
    )
    assert abs(confidence - (1 - 0.5 * 0.5 * 0.8)) < 1e-12
    assert sources == ["m1", "m2", "m3"]
    assert said == at(9)


def test_a_single_valued_predicate_keeps_the_value_said_last() -> None:
    kept = [
        Copy("old", "ana", "lives_in", "porto", at(1)),
        Copy("new", "ana", "lives_in", "braga", at(2)),
        Copy("mid", "ana", "lives_in", "faro", at(3)),
        Copy("other", "rui", "lives_in", "faro", at(3)),  # one value: stays
        Copy("k1", "ana", "knows", "rui", at(1)),  # many values allowed
        Copy("k2", "ana", "knows", "eva", at(2)),
    ]
    groups = value_groups(kept, {"lives_in"})
    assert [sorted(g) for g in groups] == [["mid", "new", "old"]]
    said = {"old": at(1), "new": at(8), "mid": at(5)}  # "new" was re-confirmed last
    assert older_values(groups, said.__getitem__) == [("old", at(8)), ("mid", at(8))]
