"""One syntax for an explicit fact in every front-end: "subject | kind | PREDICATE | object |
kind" (Telegram's /remember, Slack's `/kb remember`, the console). Plain text stays a statement
the core extracts facts from."""

from __future__ import annotations

from collections.abc import Coroutine
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from core.errors import InvalidInput
from core.models import IngestResult, TripleIn

if TYPE_CHECKING:
    from core.contract import CoreApi

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


def stated(
    core: CoreApi,
    chat: str,
    text: str,
    *,
    author: str,
    message_id: str | None = None,
    ts: datetime | None = None,
) -> Coroutine[Any, Any, IngestResult] | None:
    """What `/remember <text>` stores, in every front-end: a fact in the pipe syntax as
    written (the ontology checks it), else the text as a message; None when there is nothing
    to store (empty, or "|" in the wrong number of parts): the front-end shows its usage. Not
    awaited here, so a front-end can wrap the storing (typing, a slow reply)."""
    try:
        triple = explicit_triple(text)
    except MalformedTriple:
        return None
    if not text.strip():
        return None
    if triple is not None:
        return core.remember_triple(chat, triple, author=author)
    return core.remember(chat, author=author, text=text, message_id=message_id, ts=ts)
