"""What a card says about the client, read from the client's own chat graph only."""

from __future__ import annotations

from typing import Any

from core.language import name_key
from core.ports import GraphStore


def _known_product(store: GraphStore, text: str) -> str | None:
    """A product this chat already knows that the message names (longest name first)."""
    keys = f" {name_key(text)} "
    names = sorted(
        (store.entities[e].name for e in store.by_kind.get("product", ()) if e in store.entities),
        key=len,
        reverse=True,
    )
    for name in names:
        if f" {name_key(name)} " in keys:
            return name
    return None


def _context(store: GraphStore, author: str, max_facts: int, max_messages: int) -> dict[str, Any]:
    """Company, role, the relevant facts and the last messages, from this chat only."""
    key = name_key(author)
    me = [eid for (_, k), eid in store.by_key.items() if k == key]
    mine = store.edges_from(me) if me else []
    company = role = None
    companies: list[str] = []
    for e in mine:
        if e.predicate in ("WORKS_AT", "DECIDES_FOR") and e.fact.object_kind == "company":
            companies.append(e.dst)
            company = company or e.fact.object
        if e.predicate == "HAS_ROLE":
            role = e.fact.object
    if not companies:  # nothing ties the client to a company: the companies this chat names
        companies = sorted(store.by_kind.get("company", ()))[:3]
        if len(companies) == 1:
            company = store.entities[companies[0]].name
    about = [*mine]
    if companies:
        about += store.edges_from(companies) + store.edges_to(companies)
    facts: dict[str, str] = {}
    for e in about:  # the client first, then their company: decision makers, products, budget
        facts.setdefault(e.fact_id, e.fact.sentence())
    recent = store.recent_messages(max_messages)
    return {
        "company": company,
        "role": role,
        "facts": list(facts.values())[:max_facts],
        "last_messages": [f"{m.author}: {m.text[:300]}" for m in recent],
    }
