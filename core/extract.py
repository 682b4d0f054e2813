"""The offline extractor: triples from the ontology's surface forms, in en / pt / ru.

"checkout depends on payments", "checkout depende de pagamentos" and "checkout зависит от
платежей" all give (checkout) -DEPENDS_ON-> (payments). It needs no model and no network, so the
bot works without an API key; the LLM extractor (core/llm) is better when configured.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from core.language import (
    QUESTION_WORDS,
    clean_name,
    is_cyrillic,
    is_time_word,
    is_verb_form,
    nominative,
)
from core.models import TripleIn
from ontology import Ontology, Predicate

OFFLINE_CONFIDENCE = 0.8
MAX_NAME_WORDS = 6

_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n+|[.!?;]+$")
_OUTSIDE_PARENS_COMMA = re.compile(r",(?![^()]*\))")
_LIST_PARTS = re.compile(r"\s*(,(?![^()]*\))|\band\b|\be\b|\bи\b)\s*", re.IGNORECASE)
_LEADING = frozenset(
    "the a an this that our their its o a os as um uma uns umas este esta esse essa nosso nossa "
    "also também тоже также наш наша наши".split()
)
# possessives before a lower-case word: "мой питон" is the python (the fact's subject was "мой
# питон"); before a capitalised one they are part of a name ("My Little Pony")
_POSSESSIVES = frozenset(
    "my your his her meu minha meus minhas seu sua seus suas teu tua мой моя мое моё мои твой "
    "твоя ваш ваша ваши".split()
)
# words that sit next to a name without being part of it: "Ann still reports to Bob"
_ADVERBS = frozenset(
    """still also now currently already always never just only really usually actually officially
    ainda também já agora sempre nunca só apenas atualmente realmente oficialmente
    всё все ещё еще уже сейчас теперь всегда тоже также только никогда официально
    по-прежнему""".split()
)
# Chat fillers: discourse words and hedges that open or close a chat clause without being part
# of a name ("btw pix depends on payments", "ok so the api depends on auth", "Ann works at Acme
# lol", "billing depends on auth, I guess"). Kept, the name would be "btw pix", a second entity
# beside "pix", and "I guess" an object. Stripped from a name's ends only while a word of the
# name is left; a list part made only of them is no name. Lower-case word tuples, longest first.
_FILLERS = """ok|okay|okey|so|yeah|yep|yup|oh|hey|hi|hello|btw|fyi|pls|please|and|but|um|
uh|hmm|hm|anyway|anyways|basically|guys|folks|lol|haha|hahaha|right|too|as well|though|
anymore|any more|
heads up|i think|i think that|i guess|i believe|i heard|i heard that|i suppose|it seems|
it seems that|looks like|seems like|just so you know|you know|então|entao|tipo|aliás|alias|olha|ah|ei|oi|pessoal|gente|mas|né|ne|enfim|kkk|kkkk|rs|tb|tbm|acho que|eu acho que|
parece que|sabia que|fiquei sabendo que|pelo jeito|blz|beleza|valeu|vlw|кстати|ну|короче|вот|итак|а|но|слушай|
слушайте|ребят|ребята|коллеги|кажется|похоже|вроде|впрочем|блин|ок|окей|в общем|я думаю|
мне кажется|по-моему|похоже что|кажется что|говорят|как я понял"""
_FILLER_PHRASES = tuple(
    sorted({tuple(p.split()) for p in _FILLERS.replace("\n", "").split("|")}, key=len, reverse=True)
)
# "Ann works at Acme since 2019": when, not part of the name. A time preposition cuts the object
# where a date follows it (a number, a month, a weekday, "next" / "last" ...); "с" and "from"
# only before a date ("работает с Борисом" is with Boris).
_TIME_LEADS = frozenset(
    "since until till from in on at desde até ate às aos ao à nas nos с со до по в".split()
)
_NOT_A_DATE_AFTER_IN = frozenset("in в".split())  # "in Lisbon", "в Москве": only a year cuts


# "Northwind depends on Contoso for payments": why, not part of the name. Cut where a purpose
# word is followed by a lower-case word or a number ("Doctors for Life" keeps its name). Before,
# the fact's object was "Contoso for payments", and "Does Northwind depend on Contoso?" was "No".
_PURPOSE_LEADS = frozenset("for para pra для".split())


# an amount, a date or a number alone is no name: a name holds a letter (or an identifier);
# nor is a chat filler alone ("pls")
_LETTER = re.compile(r"[^\W\d_]")


def _cut_purpose(words: list[str]) -> list[str]:
    for i in range(1, len(words) - 1):
        nxt = words[i + 1]
        if words[i].lower() in _PURPOSE_LEADS and (nxt[:1].islower() or nxt[:1].isdigit()):
            return words[:i]
    return words


def _cut_time(words: list[str]) -> list[str]:
    """The object without a trailing time phrase ("Acme since 2019" -> "Acme")."""
    for i in range(1, len(words) - 1):
        lead, nxt = words[i].lower(), words[i + 1].lower().strip(",;:.")
        if lead not in _TIME_LEADS:
            continue
        year = nxt.isdigit() and len(nxt) == 4
        timely = nxt[:1].isdigit() or is_time_word(nxt)
        if year or (lead not in _NOT_A_DATE_AFTER_IN and timely):
            return words[:i]
    return words


# a negation just before the predicate: "billing does not depend on auth" states no fact
_NEGATIONS = frozenset(
    """not never nor doesnt dont didnt isnt arent wasnt werent wont cant não nao nunca jamais
    nem не ни никогда нет""".split()
)


def _filler_at(words: list[str], end: bool) -> int:
    """How many words a filler phrase takes at the start (or end) of words, 0 for none."""
    low = [w.lower().strip(",:;!?.") for w in words]
    for phrase in _FILLER_PHRASES:
        n = len(phrase)
        if n <= len(low) and tuple(low[-n:] if end else low[:n]) == phrase:
            return n
    return 0


def _names_nothing(name: str) -> bool:
    """An amount, a date or a number alone ("60€" of "NIF ...: 60€, precisa de passaporte"),
    or a chat filler alone ("pls" of "pls use it: 1 waiter per 15 guests")."""
    words = name.split()
    return not _LETTER.search(name) or _filler_at(words, end=False) == len(words)


def _strip_fillers(words: list[str]) -> list[str]:
    """A name's words without chat fillers (and the articles they hid) at either end."""
    while True:
        before = len(words)
        n = _filler_at(words, end=False)
        if n and n < len(words):
            words = _strip_leading(words[n:])
        n = _filler_at(words, end=True)
        if n and n < len(words):
            words = words[:-n]
        words = _strip_adverbs(words)
        if len(words) == before:
            return words


def _negated(head: str, last: int = 3) -> bool:
    """A negation among the last words before the predicate ("does not", "doesn't", "não",
    "больше не"): the clause denies the fact rather than stating it."""
    tail = [w.lower().strip(",:;!?.") for w in head.split()[-last:]]
    # "no" alone is the Portuguese "no" (em + o) as often as a denial: only "no longer" counts
    return any(w in _NEGATIONS or w.endswith(("n't", "n’t")) for w in tail) or " ".join(
        tail
    ).endswith("no longer")


# what sits between a name and its denied verb: "billing does not", "Ann is no longer",
# "Анна больше не", "a Ana já não"
_DENIAL_WORDS = frozenset(
    """does do did is are was were will has have had no longer not never mais já ainda больше
    уже""".split()
)


# Portuguese "no longer" wraps the verb: "a Ana não trabalha mais na Acme" denies "trabalha na"
_NAO_MAIS = re.compile(r"\b(não|nao)\s+(\w+)\s+mais\s+", re.IGNORECASE)


def _before_negation(words: list[str]) -> list[str]:
    """A denied clause's subject without the negation and the words that lead to it."""
    while len(words) > 1 and (
        words[-1].lower() in _DENIAL_WORDS | _NEGATIONS or words[-1].lower().endswith("n't")
    ):
        words = words[:-1]
    return words


# a comma part that starts with one of these describes the name before it ("Bob, our CEO")
_APPOSITION_LEAD = frozenset(
    "our my his her their your nosso nossa meu minha seu sua dele dela наш наша наше наши мой моя "
    "его её ее их ваш ваша".split()
)
_RELATIVE = re.compile(
    r"\s+(?:which|that|who|whose|where|que|onde|cujo|cuja|который|которая|которое|которые|"
    r"где)\b.*$",
    re.IGNORECASE,
)
_PREPOSITIONS = frozenset("в во на in on at em no na nos nas".split())
# a common noun before a proper name: "на острове Ява" -> Ява, "the city of Lisbon" -> Lisbon
_PLACE_WORDS = frozenset(
    """остров острова острове island ilha город города городе city cidade страна стране country
    país река реке river rio штат штате state estado регион регионе region região область
    области province província улица улице street rua of de do da""".split()
)
_OF = frozenset("of de do da".split())
# a subject that only points back ("Monty is a ball python. He lives in a terrarium"): the
# subject before it, never an entity of its own (with none before it, no fact)
_PRONOUNS = frozenset("he she it they him her them ele ela eles elas он она оно они".split())
# a verb that ends a subject before a second verb joined by "and": "the billing service is
# written in Java and uses Kafka" is about "billing service" (Russian: its part of speech)
_AUXILIARIES = frozenset(
    """is are was were has have had will can could would should é está estão são foi foram
    era eram tem têm será vai""".split()
)
_CONJUNCTIONS = frozenset("and e и".split())
_PAREN = re.compile(r"\(([^)]*)\)")
_EMPTY_PARENS = re.compile(r"\(\s*[,;]?\s*\)")


def _drop_if_holds(needles: list[str], paren: re.Match[str]) -> str:
    """Drop a parenthesis that holds only identifiers: 'Acme (INN 7707083893)' -> 'Acme '."""
    rest = paren.group(0)
    for needle in needles:
        rest = rest.replace(needle, " ")
    return "" if not re.sub(r"[\s(),;]", "", rest) else paren.group(0)


KnownKind = Callable[[str], str | None]


@dataclass(frozen=True)
class ParsedClause:
    subject: str
    predicate: Predicate
    objects: tuple[str, ...]
    negated: bool = False  # "billing does not depend on auth": denies the fact, states none


def _strip_leading(words: list[str], extra: frozenset[str] = frozenset()) -> list[str]:
    while words and (
        words[0].lower() in _LEADING
        or words[0].lower() in extra
        or (words[0].lower() in _POSSESSIVES and len(words) > 1 and words[1][:1].islower())
    ):
        words = words[1:]
    return words


def _strip_adverbs(words: list[str]) -> list[str]:
    while len(words) > 1 and words[-1].lower() in _ADVERBS:
        words = words[:-1]
    while len(words) > 1 and words[0].lower() in _ADVERBS:
        words = words[1:]
    return words


def _subject_words(head: str, extra: frozenset[str]) -> list[str]:
    """The name before the predicate: the last comma part, or the one an apposition follows."""
    parts = [p.strip() for p in _OUTSIDE_PARENS_COMMA.split(head)]
    if len(parts) > 1 and not parts[-1]:  # "Ann, our CTO, reports to": the name is before it
        while len(parts) > 1 and not parts[-1]:  # a doubled comma ("Ann,, reports to") raised
            parts = parts[:-1]
        if len(parts) > 1 and parts[-1].split()[0].lower() in _APPOSITION_LEAD:
            parts = parts[:-1]
    last = parts[-1].rsplit(": ", 1)[-1]  # "update: Ann works at Acme": the name is after it
    words = last.split()
    if len(words) > 1 and words[-1].lower() in _CONJUNCTIONS:
        words = _before_first_verb(words[:-1])
    return _strip_fillers(_strip_adverbs(_strip_leading(words, extra)))


def _before_first_verb(words: list[str]) -> list[str]:
    """The words before the first verb: "billing service is written in Java" -> "billing
    service". No verb found: none of them is a name (the clause is not understood)."""
    at = next((i for i, w in enumerate(words) if _is_verb(w)), None)
    return [] if at is None else words[:at]


def _is_verb(word: str) -> bool:
    """An auxiliary (en/pt) or, in Russian, a verb form by pymorphy3's reading."""
    low = word.lower().strip(",;:")
    return low in _AUXILIARIES or (is_cyrillic(low) and is_verb_form(low))


def _object_words(part: str) -> list[str]:
    words = _RELATIVE.sub("", part).split()
    if _filler_at(words, end=False) == len(words) or _negated(part, len(words)):
        return []  # ", I guess", ", right": a tag; "and doesn't run on Linux": a denial
    if any(_is_verb(w) for w in words):
        return []  # a clause not understood ("Jakarta is located on Java"), not a name
    words = _strip_fillers(_strip_adverbs(_strip_leading(words)))
    proper = next((i for i, w in enumerate(words) if w[:1].isupper()), None)
    container = next(
        (
            i
            for i in range(len(words[:proper]) - 1)
            if words[i].lower() in _PLACE_WORDS - _OF and words[i + 1].lower() in _PREPOSITIONS
        ),
        None,
    )
    if proper and container is not None:  # "an island in Indonesia": an island, not Indonesia
        words = words[: container + 1]
    elif proper and all(w.lower() in _PREPOSITIONS | _PLACE_WORDS for w in words[:proper]):
        words = words[proper:]
    elif len(words) > 1 and words[0].lower() in _PREPOSITIONS:
        words = words[1:]
    return _cut_purpose(_cut_time(words))


class OfflineExtractor:
    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        forms: list[tuple[str, Predicate]] = []
        for pred in ontology.predicates.values():
            for words in pred.surface.values():
                forms.extend((form.lower(), pred) for form in words)
        # longest first: "is part of" must win over "is a", "является частью" over "является"
        forms.sort(key=lambda f: -len(f[0]))
        self._forms = dict(forms)
        alternation = "|".join(re.escape(f) for f, _ in forms)
        self._pattern = re.compile(rf"(?<!\w)({alternation})(?!\w)", re.IGNORECASE)
        # the last text parsed and its clauses: a stored message is parsed for its facts
        # (extract) and then for what it denies (denials), the same text twice in a row
        # (~0.4 s of the 10,000 chat messages bench.bulk imports, py-spy). One slot, replaced
        # whole, so the chats' threads sharing this extractor never read a mixed pair
        self._last: tuple[str, bool, tuple[ParsedClause, ...]] | None = None

    def forms_in(self, text: str) -> list[str]:
        """The predicates' surface forms a text uses, as written."""
        return [m.group(1) for m in self._pattern.finditer(text)]

    def parse(self, text: str, *, question: bool = False) -> list[ParsedClause]:
        last = self._last
        if last is not None and last[0] == text and last[1] == question:
            return list(last[2])
        out = self._parse(text, question)
        self._last = (text, question, tuple(out))
        return out

    def _parse(self, text: str, question: bool) -> list[ParsedClause]:
        out: list[ParsedClause] = []
        extra = QUESTION_WORDS if question else frozenset()
        previous = ""  # the subject of the clause before (what a pronoun points back at)
        for clause in _CLAUSES.split(text):
            clause = _NAO_MAIS.sub(r"\1 \2 ", clause.strip().strip("?¿!"))
            if not clause:
                continue
            match = self._pattern.search(clause)
            if match is None:
                continue
            head = clause[: match.start()]
            subject = " ".join(_subject_words(head, extra))
            if subject.lower() in _PRONOUNS:
                subject = previous  # "Monty is a ball python. He lives in a terrarium"
            previous = subject or previous
            out.extend(self._clauses(subject, match, clause, negated=_negated(head)))
        return out

    def _clauses(
        self, subject: str, match: re.Match[str], clause: str, *, negated: bool
    ) -> list[ParsedClause]:
        """One clause per predicate: "X uses Python and runs on Linux" states two facts."""
        groups: list[tuple[str, Predicate, list[str], bool]] = [
            (subject, self._forms[match.group(1).lower()], [], negated)
        ]
        pieces = _LIST_PARTS.split(clause[match.end() :])
        for n in range(0, len(pieces), 2):
            part = pieces[n].strip()
            if not part:
                continue  # ", and": an empty part between two separators (crashed before)
            again = self._pattern.search(part)
            lead = part[: again.start()] if again else ""
            if again and all(_negated(w) or w.lower() in _ADVERBS for w in lead.split()):
                # a list tail with its own verb is a new fact about the same subject, denied if
                # a negation leads it: "uses Python and doesn't run on Linux"
                groups.append((subject, self._forms[again.group(1).lower()], [], _negated(lead)))
                part = part[again.end() :]
            elif again and not _RELATIVE.search(" " + lead):
                # its own subject too: "Java is an island, Jakarta is located on Java", "Ann
                # works at Acme and Bob works at Globex" (a pronoun: the first clause's subject)
                own = " ".join(_subject_words(lead, frozenset()))
                own = subject if own.lower() in _PRONOUNS else own
                groups.append((own, self._forms[again.group(1).lower()], [], _negated(lead)))
                part = part[again.end() :]
            words = _object_words(part)
            after_comma = n > 0 and pieces[n - 1].strip() == ","
            if after_comma and groups[-1][2] and part.split()[0].lower() in _APPOSITION_LEAD:
                continue  # "reports to Bob, our CEO": a description of Bob, not a second name
            if words:
                groups[-1][2].append(" ".join(words))
        out = []
        for who, pred, objects, denied in groups:
            kept = objects[:1] if pred.cardinality == "one" else objects
            if who or kept:
                out.append(ParsedClause(who, pred, tuple(kept), denied))
        return out

    def identifiers(self, text: str) -> tuple[str | None, tuple[str, ...], list[str]]:
        """The stable id in a text ('rule:value' or None), the kinds it says, the ids found.

        Ids whose check digits fail are not found: they stay in the name as text and are never
        used to merge. An id that is not unique (`identity: no`, a KPP) is found, never returned.
        """
        ident: str | None = None
        kinds: tuple[str, ...] = ()
        found: list[str] = []
        for rule in self.ontology.identifiers.values():
            for m in rule.regex.finditer(text):
                raw = m.group(1) if m.groups() and m.group(1) else m.group(0)
                value = rule.normalise_value(raw)
                if not value or not rule.valid(value):
                    continue
                found.append(m.group(0))
                if rule.identity and ident is None:
                    ident, kinds = f"{rule.name}:{value}", rule.kinds
        return ident, kinds, found

    def normalise_ident(self, raw: str | None) -> str | None:
        """An identifier from elsewhere (an LLM's subject_ident): 'rule:value' if it is valid."""
        if not raw:
            return None
        name, sep, value = raw.partition(":")
        rule = self.ontology.identifiers.get(name.strip().lower()) if sep else None
        if rule is not None:
            value = rule.normalise_value(value)
            return f"{rule.name}:{value}" if value and rule.identity and rule.valid(value) else None
        return self.identifiers(raw)[0]

    def _ident(self, name: str) -> tuple[str, str | None, tuple[str, ...]]:
        """Split the identifiers out of a name: 'Romashka LLC (INN 7707083893)'.

        Returns the clean name, 'rule:value' or None, and the kinds the rule applies to.
        """
        ident, kinds, found = self.identifiers(name)
        if not found:
            return clean_name(name), None, ()
        rest = _PAREN.sub(partial(_drop_if_holds, found), name)
        for needle in found:
            rest = rest.replace(needle, " ")
        rest = clean_name(_EMPTY_PARENS.sub(" ", rest))
        return (rest or (ident or "").partition(":")[2]), ident, kinds

    def _kind(
        self, name: str, allowed: tuple[str, ...], known: KnownKind, hinted: tuple[str, ...] = ()
    ) -> str:
        kind = known(name)
        if kind and (not allowed or kind in allowed):
            return kind
        for hint in hinted:  # an identifier says what it is: a tax id belongs to a company
            if not allowed or hint in allowed:
                return hint
        return allowed[0] if allowed else (kind or "concept")

    def denials(self, text: str) -> list[tuple[str, str, str]]:
        """(subject, predicate, object) names of the facts a text denies ("Ann no longer works
        at Acme", "billing does not depend on auth"), as written; closed by the writer when
        the world holds them (Ingest.apply)."""
        out = []
        for clause in self.parse(text):
            if not clause.negated or not clause.subject:
                continue
            subject = self._ident(" ".join(_before_negation(clause.subject.split())))[0]
            for raw in clause.objects:
                obj = nominative(self._ident(raw)[0])
                if subject and obj:
                    out.append((subject, clause.predicate.name, obj))
        return out

    def extract(self, text: str, known: KnownKind = lambda _name: None) -> list[TripleIn]:
        triples: list[TripleIn] = []
        for clause in self.parse(text):
            if clause.negated or not clause.subject or len(clause.subject.split()) > MAX_NAME_WORDS:
                continue
            subject, s_ident, s_hint = self._ident(clause.subject)
            if s_ident is None and _names_nothing(subject):
                continue
            s_kind = self._kind(subject, clause.predicate.domain, known, s_hint)
            for raw_obj in clause.objects:
                if len(raw_obj.split()) > MAX_NAME_WORDS:
                    continue
                obj, o_ident, o_hint = self._ident(raw_obj)
                if o_ident is None and _names_nothing(obj):
                    continue
                obj = nominative(obj)  # "зависит от платежей" names "платежи"
                o_kind = self._kind(obj, clause.predicate.range, known, o_hint)
                if not subject or not obj:
                    continue
                triples.append(
                    TripleIn(
                        subject=subject[:200],
                        subject_kind=s_kind,
                        predicate=clause.predicate.name,
                        object=obj[:200],
                        object_kind=o_kind,
                        confidence=OFFLINE_CONFIDENCE,
                        subject_ident=s_ident,
                        object_ident=o_ident,
                    )
                )
        return triples
