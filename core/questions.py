"""The shape of a question: word orders the surface-form parser does not read as a statement.

Russian asks yes/no with the verb first and "ли" after it: "Зависит ли антифрод от платежей?"
(literally "depends whether antifraud on payments"). The parser finds predicates by their surface
form between two names ("антифрод зависит от платежей"), so the question is put back into that
order before parsing. English ("Does A depend on B?") and Portuguese ("O A depende do B?") keep
the predicate between the names already.
"""

from __future__ import annotations

from collections.abc import Iterable

_PARTICLE = "ли"


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
