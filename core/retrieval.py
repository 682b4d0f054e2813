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
    out: dict[str, Step | None] = dict.fromkeys(sources)
    fwd: dict[str, list[Edge]] = {}
    bwd: dict[str, list[Edge]] = {}
    for e in edges:
        fwd.setdefault(e.src, []).append(e)
        bwd.setdefault(e.dst, []).append(e)
    for forward in (True, False):
        adj = fwd if forward else bwd
        seen = set(out)
        queue = deque((s, 0) for s in list(out) if out[s] is None)
        while queue:
            node, depth = queue.popleft()
            if depth >= limit:
                continue
            for e in adj.get(node, ()):
                if max_hops.get(e.predicate, limit) < depth + 1:
                    continue
                other = e.dst if forward else e.src
                if other in seen:
                    continue
                seen.add(other)
                out[other] = Step(node, e, depth + 1, forward)
                queue.append((other, depth + 1))
    return out


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
