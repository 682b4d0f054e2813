"""The shape of a question: word orders the surface-form parser does not read as a statement.

Russian asks yes/no with the verb first and "ли" after it: "Зависит ли антифрод от платежей?"
(literally "depends whether antifraud on payments"). The parser finds predicates by their surface
form between two names ("антифрод зависит от платежей"), so the question is put back into that
order before parsing. English ("Does A depend on B?") and Portuguese ("O A depende do B?") keep
the predicate between the names already.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.asked import HOW_LONG, HOW_MUCH
from core.language import QUESTION_WORDS, STOPWORDS, key_tokens, written_tokens

_PARTICLE = "ли"
MAX_SUBJECT_WORDS = 4  # more is a phrase, not a name a question is about
# words a wh-question puts before its subject ("where does Ann work")
_AUX = frozenset("is are was were does do did será é está".split())


class VerbForms:
    """The predicates' surface forms by their verb (the first word that is no auxiliary,
    stop word or short particle), built once: split_verb looks up only the forms whose verb
    the question holds. Sorting every form for each question that did not parse cost 0.2-0.5
    ms a question, a tenth of the ask floor (issue 14)."""

    def __init__(self, surface_forms: Iterable[str]) -> None:
        # stem -> (position in the ontology's order, form, its words, its verb)
        self.by_stem: dict[str, list[tuple[int, str, tuple[str, ...], str]]] = {}
        for n, form in enumerate(surface_forms):
            parts = tuple(form.lower().split())
            heads = [p for p in parts if p not in _AUX and p not in STOPWORDS and len(p) > 2]
            if not heads:
                continue
            head = heads[0]
            for stem in {head, head.removesuffix("s")}:  # "works at": "where does Ann work"
                self.by_stem.setdefault(stem, []).append((n, form, parts, head))


def split_verb(question: str, forms: VerbForms) -> str | None:
    """A wh-question whose predicate form is split or moved, put back around its subject:
    "where is checkout located?" -> "checkout located in", "where does Ann work?" -> "Ann
    work at", "Onde fica o checkout?" -> "o checkout fica em", "Где работает Анна?" -> "Анна
    работает в" (the form that lacks fewest of its words, then the shortest). The subject is
    what stands between the question words and the form's verb (its first word that is no
    auxiliary), or after the verb when nothing does; at most MAX_SUBJECT_WORDS, in a sentence
    that starts with a question word. None when no form's verb is in the question.
    Unparsed, such a question named nothing the chat could say it did not know, and was
    answered from whatever its words were close to ("where is checkout located?" in a chat
    that never mentioned checkout: "Анна works at Сбер.")."""
    for sentence in re.split(r"(?<=[.?!])\s+", question.strip()):
        moved = _split_verb(sentence, forms)
        if moved:
            return moved
    return None


def _split_verb(sentence: str, forms: VerbForms) -> str | None:
    words = [w.strip("?¿!.,") for w in sentence.split()]
    low = [w.lower() for w in words]
    if not low or low[0] not in QUESTION_WORDS:
        return None  # "We want to buy 20 seats": no question, nobody asked about
    if len(low) > 2 and low[1] in ("many", "much"):
        words, low = words[3:], low[3:]  # "how many seats did Acme buy": about Acme
    candidates = {c for w in low for c in forms.by_stem.get(w, ())}

    def fit(c: tuple[int, str, tuple[str, ...], str]) -> tuple[int, int, int]:
        # the form's words the question lacks, then its length, then the ontology's order
        return (sum(p not in low for p in c[2]), len(c[1]), c[0])

    for _, form, parts, head in sorted(candidates, key=fit):  # "работает в", not "... в должности"
        stems = {head, head.removesuffix("s")}
        at = next(i for i, w in enumerate(low) if w in stems)
        before = [
            w for w in words[:at] if w.lower() not in QUESTION_WORDS and w.lower() not in _AUX
        ]
        after = [w for w in words[at + 1 :] if w.lower() not in parts]
        subject = before or after
        if 0 < len(subject) <= MAX_SUBJECT_WORDS:
            return " ".join([*subject, form])
    return None


# "who's your ceo": the parse read a name "s ceo" and USE put the question 0.15 from the
# sentence that answers it ("who is your CEO?": 0.21)
_CONTRACTION = re.compile(
    r"\b(who|what|where|when|how|why|which|that|it|there|he|she)['’]s\b", re.IGNORECASE
)
_ARE = re.compile(r"\b(who|what|where|when|how|why|you|we|they)['’]re\b", re.IGNORECASE)


# chat shorthand the model reads as another word: "what docs do i need to rent a car?" was
# nearer "não temos carros automáticos baratos" than "documentos: carta de condução..." (USE
# puts "docs" 0.53 from that sentence, "documents" 1.19 by the quote's meaning score)
_SHORTHAND = {"docs": "documents", "pls": "please", "plz": "please", "u": "you", "tix": "tickets"}
_SHORT = re.compile(r"(?<![\w.-])(" + "|".join(_SHORTHAND) + r")(?![\w-]|\.\w)", re.IGNORECASE)


def expand_contractions(question: str) -> str:
    """English question contractions written out: "who's" -> "who is", "where're" -> "where
    are" (a possessive "Ann's" stays); chat shorthand too ("docs", "pls", "u")."""
    out = _ARE.sub(r"\1 are", _CONTRACTION.sub(r"\1 is", question))
    return _SHORT.sub(lambda m: _SHORTHAND[m.group(1).lower()], out)


def declarative(question: str, surface_forms: Iterable[str]) -> str:
    """ "Зависит ли A от B?" -> "A зависит от B?"; any other question unchanged."""
    words = question.strip().split()
    if len(words) < 4 or words[1].lower().strip(",") != _PARTICLE:
        return question
    verb, rest = words[0], words[2:]
    lowered = [w.lower() for w in rest]
    for form in sorted(surface_forms, key=len, reverse=True):
        head, *tail = form.lower().split()
        if head != verb.lower() or not tail or tail[0] == _PARTICLE:
            continue
        for i in range(1, len(rest)):  # the subject takes at least one word
            if lowered[i : i + len(tail)] == tail:
                return " ".join([*rest[:i], verb.lower(), *rest[i:]])
    return question


# A question that points back to the one its asker asked just before: a pronoun for what was
# asked about, or "and" first ("do you have parking?" - "how much is it?", "e isso?", "а это
# сколько?"). Alone it names nothing: "how much is it?" found nothing. A question without
# such a cue asks on its own ("precisa reservar antes?" after a question about the transfer
# still quotes the cancellation rule).
_POINTS_BACK = frozenset(
    """it that this them those isso isto aquilo ele ela eles elas это этого этом оно он она
    они его её их""".split()
)
_AND_FIRST = frozenset("and e а и also também".split())
FOLLOW_UP_WORDS = 2  # content words at most: "is it possible to pay by card?" asks on its own


def points_back(question: str) -> bool:
    """Whether the question only makes sense with the one asked before it."""
    words = [w.lower() for w in written_tokens(question)]
    if not words or not (words[0] in _AND_FIRST or any(w in _POINTS_BACK for w in words)):
        return False
    skip = STOPWORDS | QUESTION_WORDS | _POINTS_BACK | _AND_FIRST
    return len([k for k in key_tokens(question) if k not in skip]) <= FOLLOW_UP_WORDS


# the words that say what a question asks for rather than what it is about: a wh-word, a price
# or a duration asked
_ASKING = (
    frozenset(
        key_tokens(
            "what which who whom whose where when why how whats qual quais quem onde quando "
            "porque como quanto quanta quantos quantas что какой какая какие каких какое кто где "
            "когда почему зачем как сколько чем"
        )
    )
    | HOW_MUCH
    | HOW_LONG
)


def read_with(last: str, question: str) -> str:
    """A follow-up (points_back) read with its asker's last question: all of it when the
    follow-up asks nothing of its own ("and for kids?"), else only what it was about, its
    asking words left out: "quanto custa uma aula?" then "and on which days?" is read "uma
    aula and on which days?". Read with the whole of it, the price asked first took the quote
    to the price, not to the days (the console, 2026-12-07)."""
    if not set(key_tokens(question)) & _ASKING:
        return f"{last} {question}"
    about = [
        w
        for w in last.split()
        if w.lower().strip("?!.,¿¡") not in QUESTION_WORDS and not set(key_tokens(w)) & _ASKING
    ]
    return " ".join([*about, question])
