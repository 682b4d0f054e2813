"""One syntax for an explicit fact in every front-end: "subject | kind | PREDICATE | object |
kind" (Telegram's /remember, Slack's `/kb remember`, the console). Plain text stays a statement
the core extracts facts from."""

from __future__ import annotations

from pydantic import ValidationError

from core.errors import InvalidInput
from core.models import TripleIn

TRIPLE_PARTS = 5


class MalformedTriple(ValueError):
    """Text with "|" that is not the five parts of a triple."""


def parse_triple(parts: list[str]) -> TripleIn:
    """ "subject | kind | PREDICATE | object | kind" -> TripleIn (the core validates the rest)."""
    subject, subject_kind, predicate, obj, object_kind = (p.strip() for p in parts)
    try:
        return TripleIn(
            subject=subject,
            subject_kind=subject_kind.lower(),
            predicate=predicate.upper().replace(" ", "_"),
            object=obj,
            object_kind=object_kind.lower(),
        )
    except ValidationError as exc:
        fields = ", ".join(str(e["loc"][0]) for e in exc.errors() if e.get("loc"))
        raise InvalidInput(f"empty or too long: {fields}") from exc


def explicit_triple(text: str) -> TripleIn | None:
    """The triple `text` states in the pipe syntax, or None for a plain statement; raises
    MalformedTriple for "|" in any other number of parts."""
    parts = text.split("|")
    if len(parts) == 1:
        return None
    if len(parts) != TRIPLE_PARTS:
        raise MalformedTriple(text)
    return parse_triple(parts)
