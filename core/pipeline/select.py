"""Answer selection: the entities a question names, the best paths to its targets, the facts
within the context budget, and the yes/no verdict on a directed chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.extract import ParsedClause
from core.language import clean_name, detect_language, key_tokens
from core.models import FactView
from core.ports import GraphStore
from core.retrieval import directional_reach, expand_hops, path_to
from core.rows import Edge
from core.texts import t

MAX_NAME_NGRAM = 6
YES_NO_STARTS = frozenset("does do did is are can was were será é o a".split())


def literal_entities(store: GraphStore, question: str, worlds: set[str]) -> list[str]:
    """Entities named in the question (lemmatised n-grams, longest match wins)."""
    toks = key_tokens(clean_name(question))
    found: list[str] = []
    covered = [False] * len(toks)
    for n in range(min(MAX_NAME_NGRAM, len(toks)), 0, -1):
        for i in range(len(toks) - n + 1):
            if any(covered[i : i + n]):
                continue
            key = " ".join(toks[i : i + n])
            hits = [store.by_key[(w, key)] for w in worlds if (w, key) in store.by_key]
            if hits:
                found.extend(h for h in hits if h not in found)
                covered[i : i + n] = [True] * n
    return found


def best_paths(
    reach: dict[str, Any],
    score: dict[str, float],
    targets: list[str],
    sources: set[str],
    wanted: list[str],
) -> list[list[Edge]]:
    candidates = [n for n in targets if reach.get(n) is not None]
    if not candidates:
        candidates = sorted(
            (n for n in reach if n not in sources and reach[n] is not None),
            key=lambda n: -score.get(n, 0.0),
        )
    chains = [path_to(n, reach) for n in candidates]
    if wanted:  # paths made of the predicate the question asks about come first
        chains.sort(key=lambda c: -sum(e.fact.predicate in wanted for e in c) / len(c))
    chosen: list[list[Edge]] = []
    for chain in chains:
        ids = [e.fact.id for e in chain]
        if any(ids == [e.fact.id for e in c][: len(ids)] for c in chosen):
            continue  # a prefix of a path already shown
        chosen = [c for c in chosen if [e.fact.id for e in c] != ids[: len(c)]]
        chosen.append(chain)
        if len(chosen) >= 5:
            break
    return chosen


def select_facts(
    paths: list[list[Edge]], sub_edges: list[Edge], score: dict[str, float], max_facts: int
) -> list[FactView]:
    ordered: dict[str, FactView] = {}
    for chain in paths:
        for e in chain:
            ordered.setdefault(e.fact.id, e.fact)
    for e in sorted(sub_edges, key=lambda e: -(score.get(e.src, 0) + score.get(e.dst, 0))):
        if len(ordered) >= max_facts:
            break
        ordered.setdefault(e.fact.id, e.fact)
    return list(ordered.values())[:max_facts]


def yes_no_answer(
    store: GraphStore,
    question: str,
    clauses: list[ParsedClause],
    worlds: set[str],
    lang: str,
    *,
    max_hops: Mapping[str, int],
    default_hops: int,
) -> tuple[str, list[Edge]] | None:
    """'Does A depend on B?': a directed chain of that predicate from A to B, or no.

    Returns the reply line and the chain that supports it (or the reverse chain shown
    to explain a "no"; empty when nothing connects them).
    """
    first = (clean_name(question).split() or [""])[0].lower()
    for c in clauses:
        if len(c.objects) != 1 or not c.subject:
            continue
        if first not in YES_NO_STARTS and detect_language(question) == "en":
            continue
        subj = literal_entities(store, c.subject, worlds)
        obj = literal_entities(store, c.objects[0], worlds)
        if not subj or not obj:
            continue
        pred = c.predicate.name
        hop = max_hops.get(pred, default_hops)
        chain = predicate_chain(store, subj[0], obj[0], pred, hop)
        if chain:
            return f"{t('yes', lang)}: " + chain_names(store, chain), chain
        s_name, o_name = store.entities[subj[0]].name, store.entities[obj[0]].name
        text = f"{t('no', lang)}. " + t("no_fact_that", lang, s=s_name, p=pred, o=o_name)
        reverse = predicate_chain(store, obj[0], subj[0], pred, hop)
        if reverse:
            text += " " + t("reverse_known", lang, path=chain_names(store, reverse))
        return text, reverse
    return None


def chain_names(store: GraphStore, chain: list[Edge]) -> str:
    return " → ".join(
        [store.entities[chain[0].src].name, *(store.entities[e.dst].name for e in chain)]
    )


def predicate_chain(store: GraphStore, src: str, dst: str, pred: str, hops: int) -> list[Edge]:
    edges = expand_hops(
        [src],
        hops=hops,
        max_hops={pred: hops},
        edges_from=lambda ids: [e for e in store.edges_from(ids) if e.fact.predicate == pred],
        edges_to=lambda ids: [],
    )
    reach = directional_reach([src], edges.values(), max_hops={pred: hops}, limit=hops)
    return path_to(dst, reach) if reach.get(dst) is not None else []
