"""Hybrid graph retrieval: k-hop expansion, directional reachability, personalised PageRank.

Pure functions over edges the store returns; the store is only asked for one hop at a time
(ids in, edges out), which measured far cheaper in Kùzu than var-length paths with properties.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from core.rows import Edge

EdgeFetch = Callable[[Iterable[str]], list[Edge]]


@dataclass(frozen=True)
class Step:
    """How BFS reached a node: from `parent` over `edge`, at `depth`, going `forward` or not."""

    parent: str
    edge: Edge
    depth: int
    forward: bool


def expand_hops(
    seeds: Iterable[str],
    *,
    hops: int,
    max_hops: Mapping[str, int],
    edges_from: EdgeFetch,
    edges_to: EdgeFetch,
) -> dict[str, Edge]:
    """Edges within `hops` of the seeds, following chains forwards or backwards.

    An edge whose predicate has max_hops h is only used at depth <= h (SIGNED_CONTRACT: 1).
    """
    found: dict[str, Edge] = {}
    for forward in (True, False):
        seen = set(seeds)
        frontier = set(seen)
        for depth in range(1, hops + 1):
            if not frontier:
                break
            nxt: set[str] = set()
            for edge in (edges_from if forward else edges_to)(frontier):
                if max_hops.get(edge.predicate, hops) < depth:
                    continue
                found[edge.fact_id] = edge
                other = edge.dst if forward else edge.src
                if other not in seen:
                    seen.add(other)
                    nxt.add(other)
            frontier = nxt
    return found


def directional_reach(
    sources: Iterable[str], edges: Iterable[Edge], *, max_hops: Mapping[str, int], limit: int
) -> dict[str, Step | None]:
    """Nodes reachable from the sources by a chain of edges all in one direction.

    Forward chains answer "what does X depend on / require"; backward chains "who decides for
    X". Zig-zags (X -> holding <- sibling) are not followed: two subsidiaries of one holding
    stay apart.
    """
    fwd: dict[str, list[Edge]] = {}
    bwd: dict[str, list[Edge]] = {}
    for e in edges:
        fwd.setdefault(e.src, []).append(e)
        bwd.setdefault(e.dst, []).append(e)
    return _reach(
        sources,
        lambda node, forward: (fwd if forward else bwd).get(node, ()),
        max_hops=max_hops,
        limit=limit,
    )


def _reach(
    sources: Iterable[str],
    adjacent: Callable[[str, bool], Iterable[Edge]],
    *,
    max_hops: Mapping[str, int],
    limit: int,
) -> dict[str, Step | None]:
    out: dict[str, Step | None] = dict.fromkeys(sources)
    for forward in (True, False):
        seen = set(out)
        queue = deque((s, 0) for s in list(out) if out[s] is None)
        while queue:
            node, depth = queue.popleft()
            if depth >= limit:
                continue
            for e in adjacent(node, forward):
                if max_hops.get(e.predicate, limit) < depth + 1:
                    continue
                other = e.dst if forward else e.src
                if other in seen:
                    continue
                seen.add(other)
                out[other] = Step(node, e, depth + 1, forward)
                queue.append((other, depth + 1))
    return out


def reach_within_hops(
    sources: Iterable[str],
    seeds: Iterable[str],
    *,
    hops: int,
    max_hops: Mapping[str, int],
    edges_from: EdgeFetch,
    edges_to: EdgeFetch,
) -> tuple[dict[str, Step | None], list[Edge]]:
    """`directional_reach(sources, expand_hops(seeds, hops=hops), limit=2 * hops)`, and the
    expansion's edges between the nodes reached, without listing the expansion.

    The seeds are the sources and the entities of the asked kind, whose expansion lets a chain
    from a source reach one of them in up to 2 x hops. Listed, that expansion holds every edge
    into a target: for "where does Dmitri work?" 2,541 edges into 8 companies and places of a
    10,000-fact chat, of which the reach kept 2 to 5 nodes; listing and grouping them was ~6 ms
    of an 18 ms question. Here an edge is tested when the reach meets it: it belongs to the
    expansion when its subject lies within hops - 1 of a seed going forwards (those distances
    come from the seeds' out-edges) or its object does going backwards (read from the object's
    own out-edges, memoised). The same nodes at the same depths; where two chains of one
    length reach a node, which one is kept may differ (it already followed set order).
    """
    inside = _Expansion(seeds, hops, max_hops, edges_from)

    def adjacent(node: str, forward: bool) -> list[Edge]:
        return [e for e in (edges_from if forward else edges_to)([node]) if inside.has(e)]

    reach = _reach(sources, adjacent, max_hops=max_hops, limit=2 * hops)
    kept = set(reach)
    between = [e for e in edges_from(kept) if e.dst in kept and inside.has(e)]
    return reach, between


class _Expansion:
    """Membership in `expand_hops(seeds, hops=hops, ...)` without listing it."""

    def __init__(
        self, seeds: Iterable[str], hops: int, max_hops: Mapping[str, int], edges_from: EdgeFetch
    ) -> None:
        self.seeds = set(seeds)
        self.hops, self.max_hops, self.edges_from = hops, max_hops, edges_from
        # forward BFS distance of each node whose out-edges the forward pass records
        self.forward: dict[str, int] = dict.fromkeys(self.seeds, 0)
        frontier = set(self.seeds)
        for depth in range(1, hops):
            nxt: set[str] = set()
            for e in edges_from(frontier):
                if max_hops.get(e.predicate, hops) >= depth and e.dst not in self.forward:
                    self.forward[e.dst] = depth
                    nxt.add(e.dst)
            frontier = nxt
        self._backward: dict[tuple[str, int], int | None] = {}

    def has(self, e: Edge) -> bool:
        allowed = self.max_hops.get(e.predicate, self.hops)
        d = self.forward.get(e.src)
        if d is not None and allowed >= d + 1:
            return True
        d = self.backward(e.dst, self.hops - 1)
        return d is not None and allowed >= d + 1

    def backward(self, node: str, budget: int) -> int | None:
        """The backward pass's BFS distance of node from the seeds, if at most budget: one more
        than the least distance of an object of node's facts whose predicate allows it there."""
        if node in self.seeds:
            return 0
        if budget <= 0:
            return None
        key = (node, budget)
        if key not in self._backward:
            best: int | None = None
            for e in self.edges_from([node]):
                d = self.backward(e.dst, budget - 1)
                if d is not None and self.max_hops.get(e.predicate, self.hops) >= d + 1:
                    best = d + 1 if best is None else min(best, d + 1)
            self._backward[key] = best
        return self._backward[key]


def path_to(node: str, reach: Mapping[str, Step | None]) -> list[Edge]:
    """The chain of edges from a source to node, in reading order (subject first)."""
    chain: list[Edge] = []
    step = reach.get(node)
    forward = step.forward if step else True
    while step is not None:
        chain.append(step.edge)
        step = reach.get(step.parent)
    return chain[::-1] if forward else chain


def personalized_pagerank(
    nodes: list[str],
    edges: Iterable[Edge],
    personalization: Mapping[str, float],
    *,
    damping: float = 0.85,
    iterations: int = 50,
    tol: float = 1e-8,
) -> dict[str, float]:
    """PPR on the induced subgraph, treating facts as undirected for relevance flow.

    Kùzu's page_rank has no personalisation, and the subgraph is small (tens to hundreds of
    nodes), so a dense power iteration is the cheapest correct thing.
    """
    if not nodes:
        return {}
    index = {n: i for i, n in enumerate(nodes)}
    n = len(nodes)
    adj = np.zeros((n, n), dtype=np.float64)
    for e in edges:
        i, j = index.get(e.src), index.get(e.dst)
        if i is None or j is None or i == j:
            continue
        w = max(e.confidence, 1e-3)
        adj[i, j] += w
        adj[j, i] += w
    out_deg = adj.sum(axis=1)
    p = np.array([max(personalization.get(x, 0.0), 0.0) for x in nodes], dtype=np.float64)
    p = p / p.sum() if p.sum() > 0 else np.full(n, 1.0 / n)
    trans = np.divide(adj, out_deg[:, None], out=np.zeros_like(adj), where=out_deg[:, None] > 0)
    # what does not change between iterations is computed once (the loop is 50 rounds of
    # small-array numpy calls: their count is the cost); the same arithmetic, the same ranks
    dangling = out_deg == 0
    any_dangling = bool(dangling.any())
    teleport = (1 - damping) * p
    rank = p.copy()
    for _ in range(iterations):
        flow = rank @ trans
        if any_dangling:  # none: adding 0.0 * p would change nothing
            flow += rank[dangling].sum() * p
        new = damping * flow + teleport
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    return {x: float(rank[i]) for x, i in index.items()}


def graph_scores(
    reach: Mapping[str, Step | None], s_vec: Mapping[str, float], *, alpha: float, gamma: float
) -> dict[str, float]:
    """S_graph = (1 - alpha) * sum(gamma^depth * S(parent)) along each node's BFS chain."""
    out: dict[str, float] = {}

    def score(node: str) -> float:
        if node in out:
            return out[node]
        step = reach.get(node)
        if step is None:
            out[node] = s_vec.get(node, 0.0)
        else:
            out[node] = (1 - alpha) * (gamma**step.depth) * score(step.parent)
        return out[node]

    for node in reach:
        score(node)
    return out


def rrf(rankings: Iterable[list[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion of several best-first id lists."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores, key=lambda x: -scores[x])
