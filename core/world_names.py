"""Offline world names (issue 15): a world's most distinctive words against the chat's other
worlds, so two worlds that both say "python" are told apart by "snake" and "code".

Each word's weight in a world is the share of the world's messages that use it times its
inverse world frequency (TF-IDF with worlds as documents; a word every world uses scores
nothing unless the chat has one world). The name is the three best words, in the form people
wrote them most often. The regrouping job recomputes every live world's name, so a name
follows what the world became rather than its first message.

Words that name no topic are left out: chat filler and pronouns in the three languages (by
the word or its lemma: "years" is "year"), verb forms (core.language.names_a_thing: "troquei",
"прилетели"), numbers, and the verbs of the world's own facts. With word vectors (the chat's
embedder), a word close to one already in the name is skipped: one concept in three
languages took all three slots ("машину carro car"). Measured with USE (words alone):
translations 0.80-0.95 (car/carro 0.94, cat/кот 0.88, screen/tela 0.80, crane/кран 0.82),
related words of one topic below (cat/dog 0.67, snake/python 0.69, bank/loan 0.61); with the
English MiniLM the English pairs fall alike (cat/dog 0.66, car/truck 0.68) and near-synonyms
above (wedding/bride 0.83, kitten/cat 0.79), which a three-word name can spare.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.identity import fold, script, sound_key
from core.language import (
    STOPWORDS,
    english_not_a_thing,
    is_time_word,
    lemma,
    names_a_thing,
    russian_pos,
    tokens,
)
from core.ports import GraphStore

# chat words that say nothing about a topic (en/pt/ru), on top of the question stop words;
# matched on the word and on its lemma
FILLER = frozenset(
    """just like also get got one now new lol kkk kkkk haha yes not but again still very
    really today tomorrow yesterday week month year time need want think anyone someone
    out off over back down yet even ever never much many more most other another same own
    only well good great nice okay thanks thank guys everyone something anything nothing
    hello hey olá ola oi obrigado obrigada привет здравствуйте спасибо
    thing day way lot bit sure maybe here every he she him her his hers them theirs mine yours
    ours have has had having been being because until while against between through during
    before after above below under then once both each few such nor than too actually
    already lots stuff getting going gonna anyway guess almost enough around since pls next
    last along make take go say see know come give put let try keep min max asap btw
    fyi myself yourself ourselves per via plus
    gostar querer precisar ficar poder dever saber achar dizer falar ver dar deixar passar
    chegar levar colocar
    vou tá ta pra pro mais muito hoje ontem amanhã alguem alguém já não sim ele ela eles
    elas eu você vocês nós meu minha seu sua dele dela nosso nossa isso isto esse essa este
    esta aquele aquela ter ser estar fazer ir tive fiz fui foi era semana mês ano dia vez
    coisa gente cara bem bom boa aqui ali depois antes ainda sempre nunca também mesmo
    preciso acho agora até ate então entao porque pois afinal tipo outra outro outras outros
    correção correcao atualização atualizacao update updated correction
    остальные остальное остальных другой другая другие другое поправка обновление
    уже ещё еще очень сегодня завтра вчера надо нужно кто-нибудь всё все так там тут
    месяц неделя год день раз время вещь штука человек хорошо просто вообще сейчас""".split()
)
_DRAWN_OUT = re.compile(r"(.)\1\1")
# a longer "word" is a key, a hash or a pasted blob ("xxxx..." of 5,000 letters was a name)
MAX_WORD = 30
SAME_CONCEPT = 0.78  # word-vector cosine at which two words are one concept (see above)
COGNATE = 6  # letters of a common start (diacritics folded) that make two words one concept
CANDIDATES = 12  # a world's best words the concept check looks at (embedded once, cached)

WordVectors = Callable[[list[str]], npt.NDArray[np.float32]]


@dataclass(frozen=True)
class OfflineNaming:
    """How the regrouping job names worlds without an LLM: `verbs`, predicate -> the verbs
    of its surface forms (left out of the names of worlds holding such facts); `vectors`,
    unit word vectors (one concept in several languages takes one slot), or None."""

    verbs: Mapping[str, Set[str]]
    vectors: WordVectors | None = None


def _words(text: str, person: Callable[[str], bool] = lambda _: False) -> list[str]:
    """The words of a text that may name its topic; `person`: whether a word is the name of
    someone who writes in the chat."""
    return [
        w
        for w in tokens(text)
        if 2 < len(w) <= MAX_WORD
        and not any(c.isdigit() for c in w)  # "10k", "6am", "2024": no topic
        and w not in STOPWORDS
        and w not in FILLER
        and lemma(w) not in FILLER
        and names_a_thing(w)
        # a weekday or a month, an English verb or adverb ("asked", "weighs", "absolutely"), a
        # Portuguese adverb ("normalmente"), a colleague's name ("beatriz", "инес"): a team
        # chat's worlds were named "até encomendas beatriz", "domingo turno инес"
        and not is_time_word(w)
        and not (w.endswith(("ed", "ly", "s")) and english_not_a_thing(w))  # not "deploy"
        and not (w.endswith("mente") and len(w) > 7)
        and not person(w)
        and not _DRAWN_OUT.search(w)  # "yessss", "sooo"
        and not _russian_adjective(w)
    ]


def _russian_adjective(word: str) -> bool:
    """A Russian adjective or ordinal ("португальскому", "тринадцатая", "последняя"): in a
    name it reads as half a phrase; the noun it goes with names the topic."""
    return script(word) == "cyrl" and russian_pos(word) in ("ADJF", "ADJS")


def _one_per_concept(words: list[str], vectors: WordVectors | None, limit: int) -> list[str]:
    """The first `limit` words, each another concept than those kept before it: not the same
    sound in another script ("python", "питон", "píton"; three consonants at least: "java"
    and "ave" are both "v"), not a cognate (the same first COGNATE letters) and, with word
    vectors, further than SAME_CONCEPT (translations are not transliterations: car / carro /
    машина)."""
    words = words[:CANDIDATES]
    vecs = vectors(words) if vectors is not None and len(words) > 1 else None
    sounds = [sound_key(w) for w in words]
    folded = [fold(w) for w in words]
    kept: list[int] = []
    for i in range(len(words)):
        if any(len(sounds[i]) >= 3 and sounds[i] == sounds[j] for j in kept):
            continue
        if any(
            folded[i][:COGNATE] == folded[j][:COGNATE] for j in kept if len(folded[j]) >= COGNATE
        ):
            continue  # a cognate: "terrarium" / "terrário", "dependency" / "dependência"
        if vecs is not None and any(float(vecs[i] @ vecs[j]) >= SAME_CONCEPT for j in kept):
            continue
        kept.append(i)
        if len(kept) == limit:
            break
    return [words[i] for i in kept]


def distinctive_names(
    texts_by_world: dict[str, list[str]],
    limit: int = 3,
    skip: Mapping[str, Set[str]] | None = None,
    vectors: WordVectors | None = None,
    person: Callable[[str], bool] = lambda _: False,
) -> dict[str, str]:
    """World id -> name, from each world's message texts; `skip`: world -> lemmas its name
    leaves out (the verbs of its facts' predicates: a world of "X depends on Y" statements
    was named "antifraud depends payments", while "run" names a marathon world well);
    `vectors`: word vectors, so that one concept takes one slot (_one_per_concept); `person`:
    whether a word names someone who writes in the chat (left out)."""
    used: dict[str, Counter[str]] = {}  # world -> lemma -> messages using it
    forms: dict[str, Counter[str]] = {}  # lemma -> surface forms seen
    for wid, texts in texts_by_world.items():
        counts: Counter[str] = Counter()
        left_out = (skip or {}).get(wid, frozenset())
        for text in texts:
            seen = set()
            for word in _words(text, person):
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
                -len(k),  # a tie goes to the longer word: "terrarium" before "eats"
                k,
            ),
        )
        shown = [forms[k].most_common(1)[0][0] for k in scored[:CANDIDATES]]
        names[wid] = " ".join(_one_per_concept(shown, vectors, limit))
    return names


def first_name(text: str, skip: Set[str] = frozenset(), limit: int = 3) -> str:
    """A newborn world's name from its first message: its most used words, first seen first,
    by the same rules as distinctive_names (no filler, pronoun, verb form or number; one word
    per sound), leaving out the lemmas in `skip` (the verbs of the predicate forms the
    message uses: "Ana trabalha na Petrobras" is "ana petrobras", not "ana trabalha
    petrobras"). The regrouping job renames it from the world's messages later."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for word in _words(text):
        key = lemma(word)
        if key not in skip:
            counts[key] += 1
            shown.setdefault(key, word)
    ranked = [shown[k] for k, _ in counts.most_common()]
    return " ".join(_one_per_concept(ranked, None, limit)) or "general"


def newest_texts(store: GraphStore, limit_per_world: int) -> dict[str, list[str]]:
    """Each live world's newest texts, newest first, at most limit_per_world: from the chat's
    message index in memory (texts and worlds kept in step with the database through moves and
    merges, MessageIndex), not read from the database. Reading every message of the chat
    there cost each run of the regrouping job 103 ms in the chat of 10,000 facts and 10,000
    messages (bench.bulk's), against 4.3 ms here (medians of 15, alternated, one process;
    the same texts), growing with the chat: ~1.3 s of that import's 13 runs."""
    recall = store.recall
    out: dict[str, list[str]] = {}
    for row in range(len(recall) - 1, -1, -1):
        world = recall.worlds[row]
        w = store.worlds.get(world)
        if w is None or w.merged_into:
            continue
        bucket = out.setdefault(world, [])
        if len(bucket) < limit_per_world:
            bucket.append(recall.texts[row])
    return out


def rename_offline(
    store: GraphStore,
    naming: OfflineNaming,
    limit_per_world: int = 200,
    *,
    only: Set[str] | None = None,
) -> dict[str, str]:
    """Recompute every live world's name from its newest messages (or only those of `only`,
    still against all the others); returns the changes."""
    verbs = naming.verbs
    texts = newest_texts(store, limit_per_world)
    skip: dict[str, set[str]] = {}
    if verbs:
        for world, predicates in store.world_predicates().items():
            skip[world] = {v for p in predicates for v in verbs.get(p, ())}
    changed: dict[str, str] = {}
    named = distinctive_names(
        texts, skip=skip, vectors=naming.vectors, person=store.recall.names_an_author
    )
    for wid, name in named.items():
        if only is not None and wid not in only:
            continue
        if name and store.worlds[wid].topic != name:
            store.rename_world(wid, name)
            changed[wid] = name
    return changed
