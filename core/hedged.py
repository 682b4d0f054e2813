"""What an answer says before its quote (core/quote.py): the names and the words a question asks
with that the chat never mentions, and the quote kept beside them; then, for a quote that
stands, what the team said later on its thing (core/restated.py).

`pick_quote` scores each candidate sentence and keeps the best; `settle` reads that best
against the whole question once, after the loop."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.asked import AGE_RULE
from core.index.words import ChatWords
from core.quoted import Meaning, Quote
from core.recall import index_tokens
from core.restated import Nearness, Said, Written, later_of, updated_by
from core.unknown import holding_the_rest, unknown_names, unknown_words
from core.variant import lacked_kinds

# a candidate sentence, the asked words and the price words it holds, and its sentence as split
Held = tuple[Quote, frozenset[str], frozenset[str], str]


@dataclass(frozen=True)
class Picked:
    """The best candidate sentence, what it holds of the question, and every candidate that
    holds what the question asks for (`held_asked`, in the loop's order)."""

    best: Quote
    said: Said
    held_asked: Sequence[Held]
    # the best sentence's message's words (lemmas) that translate a question word, to it
    translates: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Read:
    """The question as pick_quote read it: its asked words (names aside), whether it tells a
    person's age to be ruled on (asked.AGE_TOLD), the chat's word statistics, the question's words a
    message in another language translates (`covered`), its entities' names, and whether a
    name is one of the chat's speakers."""

    question: str
    asked: frozenset[str]
    aged: bool
    words: ChatWords
    covered: set[str]
    entity_names: Sequence[str]
    speaker: Callable[[str], bool]


def settle(
    picked: Picked,
    read: Read,
    meaning: Meaning | None,
    near: Nearness | None,
    unknown: list[str] | None,
    restating: Callable[[str], Sequence[Written]] | None,
) -> Quote | None:
    """The quote the answer shows, with what the chat lacks (`lacks`, also added to `unknown`)
    or what was said later (`later`); None when a name the chat never mentions leaves no
    sentence worth showing."""
    best, held_asked = picked.best, picked.held_asked
    best_asked, best_sentence = picked.said.asked, picked.said.sentence
    question, asked, idf = read.question, read.asked, read.words.idf
    missing = unknown_names(question, idf, read.covered, read.entity_names, read.speaker)
    # the quote as shown writes an age rule for the age told: it answers what is asked, so no
    # word or name the chat lacks is said first (read on the sentence shown, lead-in and all)
    ruled_best = read.aged and bool(AGE_RULE.search(best.sentence))
    # a word the question asks with that no message holds in any language ("do you offer
    # french classes?", "quanto custa o curso de alemão?"), when no sentence is near the
    # question by meaning: the quote may answer another question, so the answer says first
    # that it has nothing about the word, and quotes the sentence after that as the nearest.
    # Tuning parts of bench.answers, questions nothing answers: says it does not know velo
    # 0.067 -> 0.133, patinhas 0.200 -> 0.400, lingva 0.267 -> 0.467, lumio 0.533 unchanged;
    # no answerable question lost. (Dropping the sentence, as for an unknown name, lost two
    # answerable held-out questions of lingva, not read; measured once, then this.)
    # Near by meaning, the quote may still answer for another kind of the thing asked: "how
    # much is the premium plan?" beside "the Pro plan costs 49€" (core/variant.py).
    if not missing and meaning is not None and near is not None and not best.holds_asked:
        absent = unknown_words(question, asked, idf, read.covered)
        if absent:  # a near kin in the quoted sentence: a word the chat says otherwise
            kin = meaning.kin(absent, best_sentence)
            absent = [w for w in absent if w not in kin]
        if near.cosines[best_sentence] >= meaning.relevant:
            absent = lacked_kinds(
                question, absent, asked, best_asked, best_sentence, picked.translates
            )
        if absent and not best.refuses and not ruled_best:
            if unknown is not None:
                unknown.extend(absent)
            return replace(best, lacks=tuple(absent))
    if ruled_best:
        missing = []  # the age told is what is asked ("my son is 4 and has tantrums, can he
        # see someone?" beside "crianças e adolescentes: atendemos a partir dos 6 anos", the
        # rule in the sentence shown after its lead-in: the twenty-ninth round)
    if missing:  # "how much is the Premium plan?" is not answered by the Pro plan's price
        if unknown is not None:
            unknown.extend(missing)
        kept = holding_the_rest(asked, missing, [(q, m) for q, m, _, _ in held_asked])
        if kept is not None and kept.refuses:
            return kept
        # else the nearest, if it holds an asked word or is near by meaning ("sou estudante na
        # FEUP, há algum desconto?" beside "8€ for students"; docs/answers.md, round twenty)
        close = (
            meaning is not None
            and near is not None
            and near.cosines.get(best_sentence, 0.0) >= meaning.relevant
        )
        holds_some = bool(best_asked - {t for n in missing for t in index_tokens(n)})
        if kept is None and meaning is not None and (holds_some or close):
            kept = best
        return replace(kept, lacks=tuple(missing)) if kept is not None else None
    if meaning is not None and near is not None:
        later = later_of(
            best, picked.said, held_asked, near, len(asked), meaning.vectors, restating, read.words
        )
        if later is None:  # a quote that is an update, under what it updates
            earlier = updated_by(best, picked.said, near, meaning.vectors, restating, read.words)
            if earlier is not None:  # what the update held of the question, the pair holds
                return replace(earlier, later=best, holds_asked=best.holds_asked)
        return replace(best, later=later)
    return best
