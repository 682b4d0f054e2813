"""The question's reach read lazily (core.retrieval.reach_within_hops) equals the reach over the
listed k-hop expansion it replaced, on random graphs with hubs and per-predicate hop limits;
the asked kind's nearest candidates in numpy equal them sorted by a Python key."""

from __future__ import annotations

import random
from collections.abc import Iterable

import numpy as np
import pytest

from core.index.vectors import VectorMatrix
from core.retrieval import (
    Step,
    directional_reach,
    expand_hops,
    path_to,
    reach_within_hops,
)
from core.rows import Edge


def _graph(rng: random.Random, nodes: int, facts: int) -> list[Edge]:
    hubs = [f"n{i}" for i in range(3)]  # many subjects point at a few objects, as companies
    edges = []
    for k in range(facts):
        src = f"n{rng.randrange(nodes)}"
        dst = rng.choice(hubs) if rng.random() < 0.4 else f"n{rng.randrange(nodes)}"
        if src != dst:
            edges.append(Edge(src, dst, f"f{k}", rng.choice("ABCD"), 0.9, ()))
    return edges


def _fetch(edges: list[Edge]) -> tuple:
    out: dict[str, list[Edge]] = {}
    inn: dict[str, list[Edge]] = {}
    for e in edges:
        out.setdefault(e.src, []).append(e)
        inn.setdefault(e.dst, []).append(e)

    def edges_from(ids: Iterable[str]) -> list[Edge]:
        return [e for i in ids for e in out.get(i, ())]

    def edges_to(ids: Iterable[str]) -> list[Edge]:
        return [e for i in ids for e in inn.get(i, ())]

    return edges_from, edges_to


def _depths(reach: dict[str, Step | None]) -> dict[str, tuple[int, bool] | None]:
    return {n: (s.depth, s.forward) if s else None for n, s in reach.items()}


@pytest.mark.parametrize("seed", range(120))
def test_the_lazy_reach_equals_the_listed_expansion(seed: int) -> None:
    rng = random.Random(seed)
    edges = _graph(rng, nodes=rng.choice([8, 30, 120]), facts=rng.choice([20, 150, 600]))
    edges_from, edges_to = _fetch(edges)
    nodes = sorted({n for e in edges for n in (e.src, e.dst)})
    sources = rng.sample(nodes, k=min(len(nodes), rng.choice([1, 1, 2, 4])))
    targets = rng.sample(nodes, k=min(len(nodes), rng.choice([0, 3, 8, 20])))
    seeds = list(dict.fromkeys([*sources, *targets]))
    hops = rng.choice([1, 2, 2, 3, 3])
    max_hops = {"A": 1, "B": 2} if rng.random() < 0.7 else {}

    listed = expand_hops(
        seeds, hops=hops, max_hops=max_hops, edges_from=edges_from, edges_to=edges_to
    )
    want = directional_reach(sources, listed.values(), max_hops=max_hops, limit=2 * hops)
    want_between = {e.fact_id for e in listed.values() if e.src in want and e.dst in want}

    reach, between = reach_within_hops(
        sources, seeds, hops=hops, max_hops=max_hops, edges_from=edges_from, edges_to=edges_to
    )
    assert _depths(reach) == _depths(want)
    assert sorted(e.fact_id for e in between) == sorted(want_between)
    for node, step in reach.items():  # each chain is made of the expansion's own edges
        chain = path_to(node, reach)
        assert all(e.fact_id in listed for e in chain)
        assert len(chain) == (step.depth if step else 0)


def test_a_company_with_many_staff_is_not_listed() -> None:
    """Where does Ann work? The targets are companies; their staff are never read."""
    staff = [Edge(f"p{i}", "acme", f"w{i}", "WORKS_AT", 0.9, ()) for i in range(500)]
    edges = [*staff, Edge("ann", "initech", "a1", "WORKS_AT", 0.9, ())]
    edges_from, edges_to = _fetch(edges)
    asked: list[str] = []

    def counting_to(ids: Iterable[str]) -> list[Edge]:
        ids = list(ids)
        asked.extend(ids)
        return edges_to(ids)

    reach, between = reach_within_hops(
        ["ann"],
        ["ann", "acme", "initech"],
        hops=2,
        max_hops={},
        edges_from=edges_from,
        edges_to=counting_to,
    )
    assert set(reach) == {"ann", "initech"}
    assert [e.fact_id for e in between] == ["a1"]
    assert "acme" not in asked


@pytest.mark.parametrize("seed", range(30))
def test_the_nearest_targets_are_the_ones_sorted_by_cosine(seed: int) -> None:
    """VectorMatrix.nearest_of equals sorting the candidates by their cosine (ties in the
    order given), an id without a vector at 0 and one named in the question at 1."""
    rng = np.random.default_rng(seed)
    vectors = VectorMatrix(8)
    for i in range(60):
        vectors.add(f"e{i}", rng.normal(size=8).astype(np.float32))
    query = rng.normal(size=8).astype(np.float32)
    sims = vectors.scores(query)
    if seed % 3 == 0:  # ties: the same cosine for many
        sims = np.round(sims, 0).astype(np.float32)
    ids = [f"e{i}" for i in rng.permutation(70)]  # e60..e69 have no vector
    exact = {f"e{i}" for i in rng.choice(70, size=int(rng.integers(0, 4)), replace=False)}

    def cosine(i: str) -> float:
        if i in exact:
            return 1.0
        row = vectors.row(i)
        return 0.0 if row is None else float(sims[row])

    k = int(rng.integers(1, 30))
    assert (
        vectors.nearest_of(ids, sims, k, exact=exact) == sorted(ids, key=lambda i: -cosine(i))[:k]
    )
    other_world = {i for i in ids if rng.random() < 0.7}  # most candidates in other worlds
    kept = [i for i in ids if i not in other_world]
    assert (
        vectors.nearest_of(ids, sims, k, exact=exact, keep=lambda i: i not in other_world)
        == (sorted(kept, key=lambda i: -cosine(i))[:k])
    )
