"""The tools' JSON schemas and validation of their output: extraction and intent classification.

The extraction schema, generated from the ontology, is the model-side half of the closed
vocabulary (predicate and kinds are enums of the manifest, so editing llms.txt changes what the
model may say); `validate_triples` is the code-side half: whatever the model returns is
re-checked against the same ontology, because a schema only constrains a well-behaved model, and
nothing unchecked may reach the store. The intent tool works the same way on a fixed vocabulary
of wants (`INTENT_WANTS`): an enum in the schema, re-checked by `validate_intent`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.models import TripleIn
from ontology import Ontology

log = logging.getLogger(__name__)

TOOL_NAME = "record_facts"
TOOL_DESCRIPTION = (
    "Record the facts stated in the message as typed triples of the knowledge graph. "
    "Call it exactly once; pass an empty list when the message states no facts."
)
MAX_TRIPLES = 50  # per message: more is a runaway model, not a chat message


class MalformedOutput(ValueError):
    """The model's output does not have the tool's shape at all (not one bad triple)."""


def _nullable_string(description: str) -> dict[str, Any]:
    return {"anyOf": [{"type": "string"}, {"type": "null"}], "description": description}


def tool_input_schema(ontology: Ontology) -> dict[str, Any]:
    """JSON schema of the tool input; valid for `strict: true` tools.

    Strict (grammar-constrained) tools accept only a subset of JSON Schema: every object needs
    `additionalProperties: false`, and numeric bounds are not supported, so the [0, 1] range of
    confidence is stated in its description and enforced by `validate_triples`. Every property
    is required (identifiers may be null) so the grammar stays small and unambiguous.
    """
    kinds = sorted(ontology.kinds)
    predicates = sorted(ontology.predicates)
    triple = {
        "type": "object",
        "properties": {
            "subject": {"type": "string", "description": "entity name as written (base form)"},
            "subject_kind": {"type": "string", "enum": kinds},
            "predicate": {"type": "string", "enum": predicates},
            "object": {"type": "string", "description": "entity name as written (base form)"},
            "object_kind": {"type": "string", "enum": kinds},
            "confidence": {
                "type": "number",
                "description": "how certain the message is about this fact, from 0.0 to 1.0",
            },
            "subject_ident": _nullable_string(
                "tax id, e-mail, domain or deal id of the subject written in the message, else null"
            ),
            "object_ident": _nullable_string(
                "tax id, e-mail, domain or deal id of the object written in the message, else null"
            ),
        },
        "required": [
            "subject",
            "subject_kind",
            "predicate",
            "object",
            "object_kind",
            "confidence",
            "subject_ident",
            "object_ident",
        ],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"triples": {"type": "array", "items": triple}},
        "required": ["triples"],
        "additionalProperties": False,
    }


class _RawTriple(BaseModel):
    """One triple as the model sent it: shape only; the ontology is checked afterwards."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    subject: str = Field(min_length=1, max_length=200)
    subject_kind: str
    predicate: str
    object: str = Field(min_length=1, max_length=200)
    object_kind: str
    # strict: "0.9" or true are a confused model, not a confidence; no default either, because
    # a silently assumed 1.0 would skip the review queue
    confidence: float = Field(ge=0.0, le=1.0, strict=True)
    subject_ident: str | None = Field(default=None, max_length=200)
    object_ident: str | None = Field(default=None, max_length=200)


def _errors(exc: ValidationError) -> str:
    # locations and messages only: the input values are user data and stay out of the log
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'triple'}: {e['msg']}"
        for e in exc.errors(include_input=False, include_url=False)
    )


def _ident(value: str | None) -> str | None:
    return value or None  # "" means "no identifier"


def validate_triples(tool_input: object, ontology: Ontology) -> list[TripleIn]:
    """Triples the ontology allows; the others are logged and dropped.

    Raises MalformedOutput when the input is not `{"triples": [...]}` at all: that is garbage,
    not a fact to drop, and the caller must not mistake it for "the message had no facts".
    """
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("triples"), list):
        raise MalformedOutput("tool input is not {'triples': [...]}")
    items: list[object] = tool_input["triples"]
    if len(items) > MAX_TRIPLES:
        log.warning("LLM returned %d triples; keeping the first %d", len(items), MAX_TRIPLES)
    out: list[TripleIn] = []
    seen: set[tuple[str, str, str, str, str]] = set()
    for n, item in enumerate(items[:MAX_TRIPLES]):
        try:
            raw = _RawTriple.model_validate(item)
        except ValidationError as exc:
            log.warning("dropped LLM triple #%d: wrong shape: %s", n, _errors(exc))
            continue
        s_kind, o_kind = raw.subject_kind.lower(), raw.object_kind.lower()
        reason = ontology.check(s_kind, raw.predicate, o_kind)
        pred = ontology.predicate(raw.predicate)
        if reason is not None or pred is None:
            log.warning("dropped LLM triple #%d: %s", n, (reason or "unknown predicate")[:200])
            continue
        key = (raw.subject.casefold(), s_kind, pred.name, raw.object.casefold(), o_kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(
            TripleIn(
                subject=raw.subject,
                subject_kind=s_kind,
                predicate=pred.name,
                object=raw.object,
                object_kind=o_kind,
                confidence=raw.confidence,
                subject_ident=_ident(raw.subject_ident),
                object_ident=_ident(raw.object_ident),
            )
        )
    return out


# ====================================================================== intent
INTENT_TOOL_NAME = "record_intent"
INTENT_TOOL_DESCRIPTION = (
    "Record whether the message shows buying interest, what the client wants, how sure you are "
    "and why. Call it exactly once."
)
Want = Literal["price", "demo", "contract", "invoice", "buy", "person"]
INTENT_WANTS: tuple[str, ...] = get_args(Want)
MAX_REASON_CHARS = 200


@dataclass(frozen=True)
class IntentVerdict:
    """The classifier's verdict on one message (read by core.handoff.detect_intent)."""

    interested: bool
    want: tuple[str, ...]  # members of INTENT_WANTS, in the model's order, no repeats
    confidence: float
    reason: str  # one line, in English: it is shown on the managers' card
    product: str | None = None


def intent_tool_schema() -> dict[str, Any]:
    """JSON schema of the intent tool input; valid for `strict: true` tools (see above)."""
    return {
        "type": "object",
        "properties": {
            "interested": {
                "type": "boolean",
                "description": "true when the client shows interest in buying or in a manager",
            },
            "want": {
                "type": "array",
                "items": {"type": "string", "enum": list(INTENT_WANTS)},
                "description": "what the client asks for; empty when not interested",
            },
            "confidence": {
                "type": "number",
                "description": "how certain the verdict is, from 0.0 to 1.0",
            },
            "reason": {"type": "string", "description": "why, in one short English line"},
            "product": _nullable_string(
                "the product or plan the client asks about, as written in the message, else null"
            ),
        },
        "required": ["interested", "want", "confidence", "reason", "product"],
        "additionalProperties": False,
    }


class _RawIntent(BaseModel):
    """The intent tool input as the model sent it. Strict types: "true" or "0.9" are garbage."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    interested: bool = Field(strict=True)
    want: list[Want]
    confidence: float = Field(ge=0.0, le=1.0, strict=True)
    reason: str = Field(max_length=2000)
    product: str | None = Field(default=None, max_length=200)


def validate_intent(tool_input: object) -> IntentVerdict:
    """The verdict, checked; raises MalformedOutput on a wrong shape or an unknown `want`.

    An interested verdict must name at least one want (the prompt says "person" when nothing
    more specific fits): a card that says the client wants nothing is no use to a manager.
    """
    try:
        raw = _RawIntent.model_validate(tool_input)
    except ValidationError as exc:
        raise MalformedOutput(f"intent tool input has the wrong shape: {_errors(exc)}") from exc
    want = tuple(dict.fromkeys(raw.want)) if raw.interested else ()
    if raw.interested and not want:
        raise MalformedOutput("intent: interested but no want")
    reason = next((ln.strip() for ln in raw.reason.splitlines() if ln.strip()), "")
    return IntentVerdict(
        interested=raw.interested,
        want=want,
        confidence=raw.confidence,
        reason=reason[:MAX_REASON_CHARS],
        product=raw.product or None,
    )
