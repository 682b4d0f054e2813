"""The text of an answer: the direct answer first, then short support (issue 17).

A client reads the first line: "Policy: GDPR.", "Yes, Lumio Desk depends on Lumio Auth.", or
the sentence of a message that holds the answer. What supports it follows, kept short: the
path through the graph when it took more than one step, or who said the quoted sentence and
when. Fact ids, scores and every evidence message stay in the trace (`/why`).

Everything is in the question's language; predicates read as the ontology's own surface form
for that language ("depende de", "зависит от"), names stay as the chat wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.language import (
    QUESTION_WORDS,
    STOPWORDS,
    governed,
    key_tokens,
    lemma,
    name_key,
    tokens,
    written_tokens,
)
from core.models import FactView
from core.quoted import Quote
from core.texts import t
from ontology import Ontology

MAX_FACT_LINES = 3
MAX_PATH_LINES = 2
MAX_VALUES = 5

# Kind words that name a narrower group inside the catch-all kind "concept": "which language"
# asks for languages, not for every concept. An entity belongs when its name holds the word or
# it IS_A something whose name does ("Go IS_A programming language").
SUBKIND_WORDS: tuple[frozenset[str], ...] = tuple(
    frozenset(key_tokens(words))
    for words in (
        "language languages linguagem linguagens язык языки",
        "technology technologies tecnologia tecnologias технология технологии",
    )
)
# words of a question that asks what or who something is, or to be told about it, besides its
# question words, stop words and the name ("кто такой Монти?", "fale sobre a Ana")
_DESCRIBE = frozenset(
    """такой такая такое такие таков расскажи расскажите опиши опишите describe explain
    tell fale fala conte conta descreva explique""".split()
)
# kind words that are question words ("who", "onde", "где"): the answer is labelled with the
# kind's own name in the question's language instead
_QUESTION_KIND_WORDS = frozenset(key_tokens("who quem кто where onde где"))


@dataclass(frozen=True)
class KindAsked:
    kind: str
    word: str  # the kind word of the question, lemmatised ("политика" for "политику")
    written: str  # as the question wrote it ("política": simplemma's lemma is "político")

    def subkind(self) -> frozenset[str] | None:
        return next((g for g in SUBKIND_WORDS if self.word in g), None)


@dataclass(frozen=True)
class Support:
    """What an answer can draw on, already ranked; `compose` picks and orders it."""

    lang: str
    yes_no: str | None = None
    kind: KindAsked | None = None
    values: Sequence[str] = ()  # names of the entities of the asked kind that were reached
    paths: Sequence[Sequence[str]] = ()
    facts: Sequence[FactView] = ()
    direct_facts: bool = False  # the facts hold the predicate the question asks about
    quote: Quote | None = None
    prefer_quote: bool = False  # e.g. a "when" question: the dated message answers it
    describe: bool = False  # the question asks what or who its subject is: any fact answers
    unknown: Sequence[str] = ()  # names the question uses that the chat never mentioned
    person: bool = False  # a manager can take the conversation (core.handoff): say so


def asks_what_it_is(question: str, names: Sequence[str]) -> bool:
    """Does the question only name something ("who is Ann?", "o que é o Monty?", "кто такой
    Монти?", "tell me about Acme")? `names`: the names it was found to write."""
    named = {w.lower() for n in names for w in written_tokens(n)}
    rest = [
        w
        for w in (w.lower() for w in written_tokens(question))
        if w not in QUESTION_WORDS and w not in STOPWORDS and w not in _DESCRIBE and w not in named
    ]
    return bool(names) and not rest


def kind_asked(question: str, kind_by_key: dict[str, str]) -> KindAsked | None:
    for raw in tokens(question):
        key = lemma(raw)
        if key in kind_by_key:
            return KindAsked(kind_by_key[key], key, raw)
    return None


def in_subkind(name: str, group: frozenset[str], is_a_names: Sequence[str] = ()) -> bool:
    return any(group & set(name_key(n).split()) for n in (name, *is_a_names))


def predicate_phrase(ontology: Ontology, predicate: str, lang: str) -> str:
    pred = ontology.predicates.get(predicate)
    forms = pred.surface.get(lang) or pred.surface.get("en") if pred else None
    return forms[0] if forms else predicate.lower().replace("_", " ")


def fact_text(ontology: Ontology, subject: str, predicate: str, obj: str, lang: str) -> str:
    """ "A works at B", with B in the case a Russian phrase governs ("работает в Сбербанке")."""
    phrase = predicate_phrase(ontology, predicate, lang)
    return f"{subject} {phrase} {governed(phrase, obj) if lang == 'ru' else obj}"


def fact_sentence(ontology: Ontology, fact: FactView, lang: str) -> str:
    return fact_text(ontology, fact.subject, fact.predicate, fact.object, lang)


def kind_label(ontology: Ontology, asked: KindAsked, lang: str) -> str:
    if asked.word in _QUESTION_KIND_WORDS:
        forms = ontology.kinds[asked.kind].surface.get(lang) or (asked.kind,)
        word = forms[0]
    else:  # Russian inflects the kind word ("какую политику"): its lemma reads right
        word = asked.word if lang == "ru" else asked.written
    return word[:1].upper() + word[1:]


def yes_no_line(
    ontology: Ontology,
    lang: str,
    *,
    holds: bool,
    subject: str,
    predicate: str,
    obj: str,
    chain: Sequence[str],
) -> str:
    """ "Yes, A depends on B." (+ the path when it took several steps), or "No, ..." with the
    other direction when that one is known (`chain` is then the reverse chain)."""
    fact = fact_text(ontology, subject, predicate, obj, lang)
    if holds:
        line = t("yes_fact", lang, fact=fact)
        return line + (f"\n{t('paths', lang)}: " + " → ".join(chain) if len(chain) > 2 else "")
    line = t("no_fact", lang, fact=fact)
    return line + (" " + t("reverse", lang, path=" → ".join(chain)) if chain else "")


def quote_lines(quote: Quote, lang: str) -> str:
    said = f"«{quote.sentence}»" if lang == "ru" else f"“{quote.sentence}”"
    line = f"{said} " + t("quote_from", lang, author=quote.author, date=f"{quote.ts:%Y-%m-%d}")
    if quote.later is None:
        return line
    return f"{line}\n{t('said_later', lang)} {quote_lines(quote.later, lang)}"


def _path_lines(paths: Sequence[Sequence[str]], lang: str, values: Sequence[str]) -> list[str]:
    chosen = [p for p in paths if len(p) > 2 and (not values or p[-1] in values)]
    return [f"{t('paths', lang)}: " + " → ".join(p) for p in chosen[:MAX_PATH_LINES]]


def compose(ontology: Ontology, s: Support) -> str:
    """The answer text: one direct line, then at most a few lines of support."""
    lang = s.lang
    if s.yes_no:
        return s.yes_no
    # "Who is the CTO of Acme?": the people the graph reaches from Acme are near the question,
    # the sentence that holds "CTO" answers it (unless the graph held the asked predicate)
    said = s.quote is not None and s.quote.holds_asked and not s.direct_facts
    # "who is Ana?" asks who Ana is, not for the people the graph reaches from her ("Person:
    # Bob." for Bob who reports to her, in three languages: found in the console, 2026-12-07)
    if s.kind is not None and s.values and not said and not s.describe:
        values = ", ".join(s.values[:MAX_VALUES])
        lines = [f"{kind_label(ontology, s.kind, lang)}: {values}."]
        return "\n".join(lines + _path_lines(s.paths, lang, s.values))
    facts = [fact_sentence(ontology, f, lang) + "." for f in s.facts[:MAX_FACT_LINES]]
    if s.quote is not None and s.quote.lacks:
        nothing = not_found(lang, s.person, s.quote.lacks)
        return f"{nothing}\n{t('nearest', lang)} {quote_lines(s.quote, lang)}"
    if s.quote is not None and (s.prefer_quote or not s.direct_facts):
        return quote_lines(s.quote, lang)
    if facts:  # about the question's subject; said so when they answer something else
        lead = [] if s.direct_facts or s.describe else [t("not_direct", lang)]
        return "\n".join(lead + facts)
    return not_found(lang, s.person, s.unknown)


def not_found(lang: str, person: bool, names: Sequence[str] = ()) -> str:
    """That nothing (or nothing about the names) is known; and, where a manager can take the
    conversation, that the client can ask for one."""
    text = t("nothing_about", lang, names=", ".join(names)) if names else t("nothing_found", lang)
    return f"{text} {t('ask_person', lang)}" if person else text
