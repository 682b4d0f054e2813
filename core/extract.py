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

from core.language import QUESTION_WORDS, clean_name
from core.models import TripleIn
from ontology import Ontology, Predicate

OFFLINE_CONFIDENCE = 0.8
MAX_NAME_WORDS = 6

_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n+|[.!?;]+$")
_LIST_SPLIT = re.compile(r"\s*(?:,|\band\b|\be\b|\bи\b)\s*", re.IGNORECASE)
_LEADING = frozenset(
    "the a an this that our their its o a os as um uma uns umas este esta esse essa nosso nossa "
    "also também тоже также наш наша наши".split()
)
_PAREN = re.compile(r"\(([^)]*)\)")


def _drop_if_holds(needle: str, paren: re.Match[str]) -> str:
    """Drop a parenthesis that holds the identifier: 'Acme (INN 7701234567)' -> 'Acme '."""
    return "" if needle in paren.group(0) else paren.group(0)


KnownKind = Callable[[str], str | None]


@dataclass(frozen=True)
class ParsedClause:
    subject: str
    predicate: Predicate
    objects: tuple[str, ...]


def _strip_leading(words: list[str], extra: frozenset[str] = frozenset()) -> list[str]:
    while words and (words[0].lower() in _LEADING or words[0].lower() in extra):
        words = words[1:]
    return words


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

    def parse(self, text: str, *, question: bool = False) -> list[ParsedClause]:
        out: list[ParsedClause] = []
        for clause in _CLAUSES.split(text):
            clause = clause.strip().strip("?¿!")
            if not clause:
                continue
            match = self._pattern.search(clause)
            if match is None:
                continue
            pred = self._forms[match.group(1).lower()]
            head = clause[: match.start()].rsplit(",", 1)[-1]
            extra = QUESTION_WORDS if question else frozenset()
            subject_words = _strip_leading(head.split(), extra)
            tail = clause[match.end() :]
            objects = []
            for part in _LIST_SPLIT.split(tail):
                words = _strip_leading(part.split())
                if words:
                    objects.append(" ".join(words))
            subject = " ".join(subject_words)
            if not subject and not objects:
                continue
            out.append(ParsedClause(subject, pred, tuple(objects)))
        return out

    def _ident(self, name: str) -> tuple[str, str | None, tuple[str, ...]]:
        """Split an identifier out of a name: 'Romashka LLC (INN 7701234567)'.

        Returns the clean name, 'rule:value' or None, and the kinds the rule applies to.
        """
        for rule in self.ontology.identifiers.values():
            m = rule.regex.search(name)
            if m is None:
                continue
            raw = m.group(1) if m.groups() and m.group(1) else m.group(0)
            value = rule.normalise_value(raw)
            rest = _PAREN.sub(partial(_drop_if_holds, m.group(0)), name)
            if clean_name(rest) == clean_name(name):
                rest = name.replace(m.group(0), " ")
            return (clean_name(rest) or value), f"{rule.name}:{value}", rule.kinds
        return clean_name(name), None, ()

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

    def extract(self, text: str, known: KnownKind = lambda _name: None) -> list[TripleIn]:
        triples: list[TripleIn] = []
        for clause in self.parse(text):
            if not clause.subject or len(clause.subject.split()) > MAX_NAME_WORDS:
                continue
            subject, s_ident, s_hint = self._ident(clause.subject)
            s_kind = self._kind(subject, clause.predicate.domain, known, s_hint)
            for raw_obj in clause.objects:
                if len(raw_obj.split()) > MAX_NAME_WORDS:
                    continue
                obj, o_ident, o_hint = self._ident(raw_obj)
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
