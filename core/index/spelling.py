"""A client's typo read as the chat's word: "whats included in full servce?" found nothing while
a message says "full service $140". Offline, a question meets its answer through shared words
(and the model's meaning, which a typo blurs too), so a question word that no message holds is
read as the one word of the chat's messages it is one edit away from (a letter added, dropped,
changed, or two swapped), when there is exactly one.

Only a lower-case word of at least MIN_LETTERS letters that no dictionary of the lemmatisers
holds is read so: a word of the language is what the client meant ("lunch" is not the chat's
"launch"), a capitalised one may name someone ("Marta" is not "Maria"), and short words have
too many neighbours ("cart" / "card").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.language import QUESTION_WORDS, STOPWORDS, is_cyrillic, is_dictionary_word, lemma

MIN_LETTERS = 5
_WORD = re.compile(r"[^\W\d_]+")
_LATIN = "abcdefghijklmnopqrstuvwxyzáàâãçéêíóôõú"
_CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"


def _neighbours(word: str) -> set[str]:
    """Every string one edit away from word, in its own script's letters."""
    letters = _CYRILLIC if is_cyrillic(word) else _LATIN
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in letters}
    out |= {a + c + b for a, b in splits for c in letters}
    out.discard(word)
    return out


def respelled(question: str, known: Callable[[str], bool]) -> str:
    """The question with each unknown lower-case word replaced by the one known word (an
    index token, `known`) it is one edit away from; unchanged when none or several are."""

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if len(word) < MIN_LETTERS or not word.islower() or word in STOPWORDS:
            return word
        if known(lemma(word)) or is_dictionary_word(word):
            return word
        found = [n for n in _neighbours(word) if known(n)]
        return found[0] if len(found) == 1 else word

    return _WORD.sub(fix, question)


# the question words a misspelled first word may stand for: long enough to have few
# neighbours ("quanto", "сколько", "where"), and none a statement starts with as written
# ("could" is one edit from "cloud" and "would" from "world", both dictionary words, which
# are never read as a typo below)
_LONG_QUESTION_WORDS = frozenset(w for w in QUESTION_WORDS if len(w) >= MIN_LETTERS)


def question_respelled(text: str) -> str:
    """The message with a misspelled question word that starts it read as that word:
    "qunato custa a avaliaçao" (no "?") was remembered as a statement, not answered (found
    in the console, 2026-12-07). Only a first word (lower-case or capitalised) of MIN_LETTERS
    letters or more that no dictionary holds and that is one edit from exactly one question
    word; anything else is returned unchanged."""
    m = _WORD.search(text)
    if m is None or m.start() > len(text) - len(text.lstrip()):
        return text
    word = m.group(0)
    low = word.lower()
    if word not in (low, low.capitalize()):  # "QUNATO", "QuNato": not read
        return text
    if len(low) < MIN_LETTERS or low in QUESTION_WORDS or is_dictionary_word(low):
        return text
    found = [n for n in _neighbours(low) if n in _LONG_QUESTION_WORDS]
    if len(found) != 1:
        return text
    fixed = found[0] if word == low else found[0].capitalize()
    return text[: m.start()] + fixed + text[m.end() :]
