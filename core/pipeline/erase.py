"""A user's erase request for one name (`/forget Pedro`): what it takes away, found in one place
so that the request, its recovery after a crash and a rebuild's replay all erase the same.

Forgetting only the entity and its facts left the messages that said them: "who is Pedro?"
went on quoting "Pedro works at the surf school since 2019" from the chat's messages (found in
the console). The request now takes away:

* the entities the name means in any world (as /facts finds them: exact name, else lemma) and
  every fact touching them;
* every message that names one of them, by any of its names or its identifier, in any
  inflection ("Ромашки" is "Ромашка"), plus the messages the entity was mentioned in or its
  facts came from (a pronoun's sentence the LLM read as about it): the whole message, because a
  message that names a person is about the person ("Pedro's phone is 912 345 678" keeps the
  number once the name is cut out of it);
* what cites them: review items, answer traces, reply links; the entities those messages
  alone held (no other mention, no fact left); a world name that used the name.

Facts those messages also gave about other things stay, without the erased messages among
their sources ("Pedro and Ana teach surf" keeps "Ana teaches surf"). A name whose words are
all stop words erases nothing ("/forget the"), and a message said after the request is new
knowledge, kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.identity import NameIndex
from core.language import STOPWORDS, key_tokens, name_key
from core.ports import GraphStore


@dataclass(frozen=True)
class ErasePlan:
    entity_ids: tuple[str, ...]
    message_ids: tuple[str, ...]
    keys: tuple[tuple[str, ...], ...]  # each name as lemma tokens

    def __bool__(self) -> bool:
        return bool(self.entity_ids or self.message_ids)

    def said_in(self, text: str) -> bool:
        return names_in(text, self.keys)


def name_keys(names: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Each name as its lemma tokens, without the names made only of stop words."""
    out: dict[tuple[str, ...], None] = {}
    for name in names:
        toks = tuple(name_key(name).split())
        if toks and not all(t in STOPWORDS for t in toks):
            out.setdefault(toks)
    return tuple(out)


def names_in(text: str, keys: Iterable[tuple[str, ...]]) -> bool:
    """Whether the text says one of the names: its tokens, as lemmas, in a row."""
    keys = list(keys)
    if not keys:
        return False
    toks = key_tokens(text)
    for key in keys:
        n = len(key)
        if any(tuple(toks[i : i + n]) == key for i in range(len(toks) - n + 1)):
            return True
    return False


def named(store: GraphStore, names: NameIndex, name: str) -> tuple[str, ...]:
    """The entities a name means in any world: its exact name first, else its lemma (so
    /forget of one of two lemma twins named exactly never deletes the other); what /facts
    lists and /forget erases."""
    worlds = {ent.world for ent in store.entities.values()}
    return tuple(dict.fromkeys(names.find(worlds, name, levels="el").ids))


def plan(store: GraphStore, names: NameIndex, name: str) -> ErasePlan:
    """What forgetting `name` takes away from this chat now (nothing is changed)."""
    ids = named(store, names, name)
    said = [name]
    for eid in ids:
        ent = store.entities[eid]
        said += [ent.name, *ent.aliases]
        if ent.ident:
            said.append(ent.ident)
    keys = name_keys(said)
    everything = len(store.message_ids)
    found = dict.fromkeys(
        [*store.mentions_of(ids, everything), *store.fact_sources(ids, everything)]
    )
    if keys:
        # a lemma twin the chat keeps apart ("Ромашка" beside the "Ромашки" forgotten by its
        # exact name) explains the name in the messages that mention it: those stay
        twins = [
            e.id
            for e in store.entities.values()
            if e.id not in ids and set(name_keys([e.name, *e.aliases])) & set(keys)
        ]
        theirs = set(store.mentions_of(twins, everything))
        recall = store.recall
        found.update(
            dict.fromkeys(
                m
                for m, t in zip(recall.ids, recall.texts, strict=True)
                if m not in theirs and names_in(t, keys)
            )
        )
    return ErasePlan(ids, tuple(m for m in found if m in store.message_ids), keys)
