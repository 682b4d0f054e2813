"""Answer selection: the entities a question names, the best paths to its targets, the facts
within the context budget, and the yes/no verdict on a directed chain."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.answering import KindAsked, fact_text, yes_no_line
from core.extract import ParsedClause
from core.identity import NameIndex
from core.language import clean_name, detect_language, key_tokens, name_key
from core.models import FactView
from core.ports import GraphStore
from core.retrieval import directional_reach, expand_hops, path_to
from core.rows import Edge
from core.texts import t
from ontology import Ontology

MAX_NAME_NGRAM = 6
YES_NO_STARTS = frozenset("does do did is are can was were será é o a".split())
# the words of a question that asks for something rather than whether it holds
_WH = frozenset(
    """what which who whom whose where when why how que qual quais quem onde quando porque
    por que como quanto quanta quantos quantas что какой какая какие каких какое какую кто где
    когда почему зачем как сколько чем кого кому""".split()
)
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")


@dataclass
class Mentions:
    """The entities a text names, and the phrases that name more than one (never mixed)."""

    found: list[str] = field(default_factory=list)
    ambiguous: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # the phrases, as the text writes them, that named a found entity ("Монти" for Monty)
    phrases: list[str] = field(default_factory=list)


def name_mentions(
    names: NameIndex,
    text: str,
    worlds: set[str],
    ident_of: Callable[[str], str] = lambda _eid: "",
) -> Mentions:
    """Entities named in a text: word n-grams, longest first, each at its strongest level
    (exact name, lemma, transliteration; core/identity.py)."""
    words = [w for w in (_EDGE_PUNCT.sub("", w) for w in clean_name(text).split()) if w]
    out = Mentions()

    def take(phrase: str) -> bool:
        match = names.find(worlds, phrase)
        if not match.ids:
            return False
        if _one_thing(names, match.ids, ident_of):
            out.found.extend(h for h in match.ids if h not in out.found)
            out.phrases.append(phrase)
        else:
            out.ambiguous.append((phrase, match.ids))
        return True

    cover_longest_first(words, take)
    return out


def cover_longest_first(words: list[str], take: Callable[[str], bool]) -> None:
    """Offer a text's word n-grams to `take`, longest first (at most MAX_NAME_NGRAM words);
    words inside an n-gram that `take` accepted are not offered again."""
    covered = [False] * len(words)
    for n in range(min(MAX_NAME_NGRAM, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if not any(covered[i : i + n]) and take(" ".join(words[i : i + n])):
                covered[i : i + n] = [True] * n


def _one_thing(names: NameIndex, ids: tuple[str, ...], ident_of: Callable[[str], str]) -> bool:
    # one name in two worlds is one thing seen in two topics; two in one world are two things,
    # and so are two with different stable ids wherever they are
    worlds = [names.world_of(i) for i in ids]
    idents = {ident_of(i) for i in ids} - {""}
    return len(set(worlds)) == len(worlds) and len(idents) <= 1


# a tax id's scheme follows from its length (ontology/checks.py): INN 10/12, CPF 11, CNPJ 14
_TAX_SCHEMES = {10: "ИНН", 12: "ИНН", 11: "CPF", 14: "CNPJ"}


def entity_label(store: GraphStore, eid: str) -> str:
    """A name as the user can tell it apart: 'ООО Ромашка (ИНН 7707083893)'."""
    ent = store.entities[eid]
    rule, _sep, value = ent.ident.partition(":")
    if rule == "tax_id":
        rule = _TAX_SCHEMES.get(len(value), rule)
    return f"{ent.name} ({rule} {value})" if value else f"{ent.name} ({ent.kind})"


def literal_entities(store: GraphStore, question: str, worlds: set[str]) -> list[str]:
    """Entities named in the question (longest match wins); name keys once indexed."""
    if store.names is not None:
        return name_mentions(store.names, question, worlds, lambda i: store.entities[i].ident).found
    found: list[str] = []

    def take(key: str) -> bool:
        hits = [store.by_key[(w, key)] for w in worlds if (w, key) in store.by_key]
        found.extend(h for h in hits if h not in found)
        return bool(hits)

    cover_longest_first(key_tokens(clean_name(question)), take)
    return found


def named_worlds(store: GraphStore, question: str, routed: set[str]) -> set[str]:
    """Worlds of the names a question uses that the routed worlds do not know: "Qual política
    se aplica ao Lumio Billing?" may be routed by meaning to the pricing talk, but it names a
    service only the service map knows. A name the routed worlds know keeps their reading
    (Python the language, not the snake)."""
    known = {store.entities[e].key for e in literal_entities(store, question, routed)}
    everywhere = literal_entities(store, question, set(store.worlds))
    return {store.entities[e].world for e in everywhere if store.entities[e].key not in known}


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
        chains.sort(key=lambda c: -sum(e.predicate in wanted for e in c) / len(c))
    chosen: list[list[Edge]] = []
    for chain in chains:
        ids = [e.fact_id for e in chain]
        if any(ids == [e.fact_id for e in c][: len(ids)] for c in chosen):
            continue  # a prefix of a path already shown
        chosen = [c for c in chosen if [e.fact_id for e in c] != ids[: len(c)]]
        chosen.append(chain)
        if len(chosen) >= 5:
            break
    return chosen


def kind_candidates(store: GraphStore, asked: KindAsked | None, kinds: set[str]) -> set[str]:
    """The entities a kind question asks for. "which language" asks for languages: entities
    whose name holds the word ("programming language") and what IS_A one ("Python"), of any
    kind (the offline extractor may have typed Python a service); otherwise the kinds named."""
    group = asked.subkind() if asked else None
    if group is None:
        return {eid for kind in kinds for eid in store.by_kind.get(kind, ())}
    categories = {eid for (_, key), eid in store.by_key.items() if group & set(key.split())}
    instances = {e.src for e in store.edges_to(categories) if e.predicate == "IS_A"}
    return categories | instances


def select_facts(
    paths: list[list[Edge]], sub_edges: list[Edge], score: dict[str, float], max_facts: int
) -> list[FactView]:
    ordered: dict[str, Edge] = {}
    for chain in paths:
        for e in chain:
            ordered.setdefault(e.fact_id, e)
    for e in sorted(sub_edges, key=lambda e: -(score.get(e.src, 0) + score.get(e.dst, 0))):
        if len(ordered) >= max_facts:
            break
        ordered.setdefault(e.fact_id, e)
    return [e.fact for e in list(ordered.values())[:max_facts]]


def yes_no_answer(
    store: GraphStore,
    question: str,
    clauses: list[ParsedClause],
    worlds: set[str],
    lang: str,
    *,
    ontology: Ontology,
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
        if not subj and not obj:
            continue
        if not subj or not obj:
            if _WH & {w.lower().strip("?,.!") for w in question.split()}:
                continue  # "which language does the API use?" asks, it does not check
            # "does billing depend on stripe?" with nothing known about billing: a plain no,
            # not stripe's other facts, which would read as an answer about something else
            written = (c.subject, c.predicate.name, clean_name(c.objects[0]))
            line = yes_no_line(
                ontology,
                lang,
                holds=False,
                subject=store.entities[subj[0]].name if subj else written[0],
                predicate=written[1],
                obj=store.entities[obj[0]].name if obj else written[2],
                chain=[],
            )
            now = current_value(store, subj[0], c.predicate.name, ontology) if subj else []
            if now:
                return line + " " + instead_line(store, now[0], ontology, lang), now
            named = (
                store.entities[subj[0]].name if subj else written[0],
                store.entities[obj[0]].name if obj else written[2],
            )
            return line + waiting_line(store, named, written[1], lang), []
        pred = c.predicate.name
        hop = max_hops.get(pred, default_hops)
        chain = predicate_chain(store, subj[0], obj[0], pred, hop)
        holds = bool(chain)
        if not holds:  # the other direction, when known, explains the "no"
            chain = predicate_chain(store, obj[0], subj[0], pred, hop)
        now = [] if holds or chain else current_value(store, subj[0], pred, ontology)
        text = (
            t("no_longer", lang)  # it held once: "no fact that ..." would read as never
            if not holds and not chain and store.replaced(subj[0], pred, obj[0])
            else yes_no_line(
                ontology,
                lang,
                holds=holds,
                subject=store.entities[subj[0]].name,
                predicate=pred,
                obj=store.entities[obj[0]].name,
                chain=chain_names(store, chain),
            )
        )
        if now:  # "does Ann work at Acme?" after "Ann works at Globex": no, and what holds
            return text + " " + instead_line(store, now[0], ontology, lang), now
        if not holds:
            names = (store.entities[subj[0]].name, store.entities[obj[0]].name)
            text += waiting_line(store, names, pred, lang)
        return text, chain
    return None


def waiting_line(store: GraphStore, names: tuple[str, str], pred: str, lang: str) -> str:
    """ " A message says so, but it is waiting for review." when the review queue holds the
    fact a "no" denies (a kind conflict or a low confidence keeps it out of the graph:
    "Northwind depends on Contoso" where Northwind is a company), else ""."""
    keys = (name_key(names[0]), name_key(names[1]))
    for item in store.pending():
        tr = item.triple
        if tr.predicate == pred and (name_key(tr.subject), name_key(tr.object)) == keys:
            return " " + t("waits_review", lang)
    return ""


def instead_line(store: GraphStore, edge: Edge, ontology: Ontology, lang: str) -> str:
    src, dst = store.entities[edge.src].name, store.entities[edge.dst].name
    return t("instead", lang, fact=fact_text(ontology, src, edge.predicate, dst, lang))


def current_value(store: GraphStore, subject: str, pred: str, ontology: Ontology) -> list[Edge]:
    """The subject's active fact of a single-valued predicate (its one current value)."""
    spec = ontology.predicates.get(pred)
    if spec is None or spec.cardinality != "one":
        return []
    return [e for e in store.edges_from([subject]) if e.predicate == pred][:1]


def chain_names(store: GraphStore, chain: list[Edge]) -> list[str]:
    if not chain:
        return []
    return [store.entities[chain[0].src].name, *(store.entities[e.dst].name for e in chain)]


def predicate_chain(store: GraphStore, src: str, dst: str, pred: str, hops: int) -> list[Edge]:
    edges = expand_hops(
        [src],
        hops=hops,
        max_hops={pred: hops},
        edges_from=lambda ids: [e for e in store.edges_from(ids) if e.predicate == pred],
        edges_to=lambda ids: [],
    )
    reach = directional_reach([src], edges.values(), max_hops={pred: hops}, limit=hops)
    return path_to(dst, reach) if reach.get(dst) is not None else []
