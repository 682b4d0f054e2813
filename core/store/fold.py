"""The fold after a world merge, as rules: which facts are copies of one fact, what the kept
copy becomes, and which values of a single-valued predicate close. Two callers apply them:
WorldMerger._consolidate to stored facts, by statements (merge.py), and StagedMerger to a
bulk batch's staged rows (merge_staged.py); tests/worlds/test_merge_staged.py holds the two
equal. The rules, as a write would apply them:

* copies: active facts with the same subject, predicate and object (after unification two
  worlds' copies of one fact hang off the same entities), the oldest (valid_from, then id) kept;
* the kept copy: the copies' sources joined in order, their confidences combined as a
  re-confirmation would (noisy-or), last said when the newest copy was;
* single values: of a cardinality-one predicate's values from one subject, all but the one
  said last close, as of when that one was said.

Nothing here reads or writes the store; times are compared as the caller gives them (aware
for stored rows, naive for staged ones), never mixed.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Copy:
    """An active fact as the fold groups it."""

    id: str
    a: str  # subject entity id
    predicate: str
    b: str  # object entity id
    since: Any  # valid_from: the oldest copy is kept


def copies_of(facts: Iterable[Copy]) -> list[list[Copy]]:
    """The facts grouped by (subject, predicate, object), each group oldest first: the first
    is kept, the others fold into it."""
    groups: dict[tuple[str, str, str], list[Copy]] = {}
    for fact in sorted(facts, key=lambda f: (f.since, f.id)):
        groups.setdefault((fact.a, fact.predicate, fact.b), []).append(fact)
    return list(groups.values())


def combined(copies: Iterable[tuple[float, Iterable[str], Any]]) -> tuple[float, list[str], Any]:
    """(confidence, sources, said) of the kept copy from each copy's (confidence, sources,
    said), the kept one first."""
    sources: dict[str, None] = {}
    miss, said = 1.0, None
    for confidence, srcs, when in copies:
        sources.update(dict.fromkeys(srcs or []))
        miss *= 1.0 - float(confidence)
        said = when if said is None or when > said else said
    return 1.0 - miss, list(sources), said


def value_groups(kept: Iterable[Copy], single_valued: Container[str]) -> list[list[str]]:
    """The kept facts' ids grouped by (subject, predicate) where the predicate takes one
    value and the group has more than one."""
    groups: dict[tuple[str, str], list[str]] = {}
    for fact in kept:
        if fact.predicate in single_valued:
            groups.setdefault((fact.a, fact.predicate), []).append(fact.id)
    return [group for group in groups.values() if len(group) > 1]


def older_values(groups: Iterable[list[str]], said: Callable[[str], Any]) -> list[tuple[str, Any]]:
    """(fact id, when the group's newest value was said) for every value but the newest of
    each group (value_groups), newest by said, then id."""
    out: list[tuple[str, Any]] = []
    for group in groups:
        ordered = sorted(group, key=lambda f: (said(f), f))
        newest = said(ordered[-1])
        out.extend((f, newest) for f in ordered[:-1])
    return out
