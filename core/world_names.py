"""Offline world names (issue 15): a world's most distinctive words against the chat's other
worlds, so two worlds that both say "python" are told apart by "snake" and "code".

Each word's weight in a world is the share of the world's messages that use it times its
inverse world frequency (TF-IDF with worlds as documents; a word every world uses scores
nothing unless the chat has one world). The name is the three best words, in the form people
wrote them most often. The regrouping job recomputes every live world's name, so a name
follows what the world became rather than its first message.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Set

from core.language import STOPWORDS, lemma, tokens
from core.ports import GraphStore

# chat words that say nothing about a topic (en/pt/ru), on top of the question stop words
FILLER = frozenset(
    """just like also get got one now new lol kkk kkkk haha yes not but again still very
    really today tomorrow yesterday week month year time need want think anyone someone
    vou tá ta pra pro mais muito hoje ontem amanhã alguem alguém já não sim
    уже ещё еще очень сегодня завтра вчера надо нужно кто-нибудь всё все так там тут""".split()
)


def _words(text: str) -> list[str]:
    return [
        w
        for w in tokens(text)
        if len(w) > 2
        and not any(c.isdigit() for c in w)  # "10k", "6am", "2024": no topic
        and w not in STOPWORDS
        and w not in FILLER
    ]


def distinctive_names(
    texts_by_world: dict[str, list[str]],
    limit: int = 3,
    skip: Mapping[str, Set[str]] | None = None,
) -> dict[str, str]:
    """World id -> name, from each world's message texts; `skip`: world -> lemmas its name
    leaves out (the verbs of its facts' predicates: a world of "X depends on Y" statements
    was named "antifraud depends payments", while "run" names a marathon world well)."""
    used: dict[str, Counter[str]] = {}  # world -> lemma -> messages using it
    forms: dict[str, Counter[str]] = {}  # lemma -> surface forms seen
    for wid, texts in texts_by_world.items():
        counts: Counter[str] = Counter()
        left_out = (skip or {}).get(wid, frozenset())
        for text in texts:
            seen = set()
            for word in _words(text):
                key = lemma(word)
                if key in left_out:
                    continue
                forms.setdefault(key, Counter())[word] += 1
                seen.add(key)
            counts.update(seen)
        used[wid] = counts
    n_worlds = len(used)
    spread: Counter[str] = Counter()
    for counts in used.values():
        spread.update(counts.keys())
    names: dict[str, str] = {}
    for wid, counts in used.items():
        size = max(len(texts_by_world[wid]), 1)
        scored = sorted(
            counts,
            key=lambda k: (
                -(counts[k] / size) * (math.log((1 + n_worlds) / (1 + spread[k])) + 0.1),
                -counts[k],
                k,
            ),
        )
        names[wid] = " ".join(forms[k].most_common(1)[0][0] for k in scored[:limit])
    return names


def rename_offline(
    store: GraphStore, limit_per_world: int = 200, *, verbs: Mapping[str, Set[str]] | None = None
) -> dict[str, str]:
    """Recompute every live world's name from its newest messages; returns the changes.
    `verbs`: predicate -> the verbs of its forms, left out of the names of worlds holding
    facts of that predicate."""
    texts: dict[str, list[str]] = {}
    for _, world, _, text in reversed(store.world_messages()):
        w = store.worlds.get(world)
        if w is None or w.merged_into:
            continue
        bucket = texts.setdefault(world, [])
        if len(bucket) < limit_per_world:
            bucket.append(text)
    skip: dict[str, set[str]] = {}
    if verbs:
        for world, predicates in store.world_predicates().items():
            skip[world] = {v for p in predicates for v in verbs.get(p, ())}
    changed: dict[str, str] = {}
    for wid, name in distinctive_names(texts, skip=skip).items():
        if name and store.worlds[wid].topic != name:
            store.rename_world(wid, name)
            changed[wid] = name
    return changed
