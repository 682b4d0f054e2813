"""Load ontology/llms.txt into pydantic models.

The manifest is the single contract between the extractors, the validator and the store. A
malformed manifest fails at start-up with an OntologyError naming the offending line.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ontology.checks import CHECKS

LANGS = ("en", "pt", "ru")
DEFAULT_PATH = Path(__file__).with_name("llms.txt")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_PRED = re.compile(r"^[A-Z][A-Z0-9_]*$")


class OntologyError(ValueError):
    """The manifest is malformed; the message names the file and line."""


class EntityKind(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    surface: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"kind name {v!r} must be lower_snake_case")
        return v


class Predicate(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    domain: tuple[str, ...]  # empty tuple = any kind
    range: tuple[str, ...]
    cardinality: Literal["one", "many"] = "many"
    max_hops: int = Field(default=3, ge=1, le=10)
    surface: dict[str, tuple[str, ...]] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _PRED.match(v):
            raise ValueError(f"predicate {v!r} must be UPPER_SNAKE_CASE")
        return v

    def allows(self, subject_kind: str, object_kind: str) -> bool:
        return (not self.domain or subject_kind in self.domain) and (
            not self.range or object_kind in self.range
        )


class IdentifierRule(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    kinds: tuple[str, ...]
    pattern: str
    normalise: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()  # check-digit schemes: the value must pass one of them
    identity: bool = True  # False: recognised and kept out of names, never used to merge

    @field_validator("checks")
    @classmethod
    def _known_checks(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [c for c in v if c not in CHECKS]
        if unknown:
            raise ValueError(f"unknown check(s) {unknown}: known are {sorted(CHECKS)}")
        return v

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from exc
        return v

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE)

    def normalise_value(self, raw: str) -> str:
        value = raw.strip()
        for rule in self.normalise:
            if rule == "digits":
                value = re.sub(r"\D", "", value)
            elif rule == "lower":
                value = value.lower()
            elif rule == "upper":
                value = value.upper()
            elif rule == "strip www.":
                value = re.sub(r"^(?:https?://)?(?:www\.)?", "", value.lower()).rstrip("/")
        return value

    def valid(self, value: str) -> bool:
        """Whether a normalised value passes the rule's check digits (no checks: any value)."""
        return not self.checks or any(CHECKS[c](value) for c in self.checks)


class Ontology(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    summary: str
    kinds: dict[str, EntityKind]
    predicates: dict[str, Predicate]
    identifiers: dict[str, IdentifierRule]
    legal_forms: dict[str, tuple[str, ...]] = Field(default_factory=dict)  # language -> forms

    def predicate(self, name: str) -> Predicate | None:
        return self.predicates.get(name.strip().upper())

    def check(self, subject_kind: str, predicate: str, object_kind: str) -> str | None:
        """None when the triple's shape is allowed, else the reason it is refused."""
        pred = self.predicate(predicate)
        if pred is None:
            return f"unknown predicate {predicate!r}: not in the ontology"
        for role, kind in (("subject", subject_kind), ("object", object_kind)):
            if kind not in self.kinds:
                return f"unknown {role} kind {kind!r}: not in the ontology"
        if not pred.allows(subject_kind, object_kind):
            return (
                f"{pred.name} does not allow {subject_kind} -> {object_kind} "
                f"(allowed: {'/'.join(pred.domain) or '*'} -> {'/'.join(pred.range) or '*'})"
            )
        return None

    def kind_words(self) -> dict[str, str]:
        """Surface word (lower case, any language) -> kind name."""
        out: dict[str, str] = {}
        for kind in self.kinds.values():
            for words in kind.surface.values():
                for w in words:
                    out.setdefault(w.lower(), kind.name)
        return out


_PARTS = re.compile(r"(?:`[^`]*`|[^|`])+")


def _fields(body: str) -> tuple[str, dict[str, str]]:
    # `|` separates fields except inside `backticks` (regex patterns use alternation)
    head, *rest = (part.strip() for part in _PARTS.findall(body))
    fields: dict[str, str] = {}
    for part in rest:
        key, sep, value = part.partition(":")
        if not sep:
            raise ValueError(f"field {part!r} has no 'key: value'")
        key = key.strip()
        if key in fields:
            raise ValueError(f"field {key!r} given twice")
        fields[key] = value.strip().strip("`")
    return head, fields


def _alternatives(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(";") if v.strip())


def _kinds(value: str) -> tuple[str, ...]:
    value = value.strip()
    if value == "*":
        return ()
    return tuple(k.strip() for k in value.split(",") if k.strip())


def _surface(fields: dict[str, str]) -> dict[str, tuple[str, ...]]:
    return {lang: _alternatives(fields.pop(lang)) for lang in LANGS if lang in fields}


def _parse_item(section: str, body: str) -> EntityKind | Predicate | IdentifierRule:
    name, sep, rest = body.partition(":")
    if not sep:
        raise ValueError("a list item must read '- name: ...'")
    name = name.strip()
    head, fields = _fields(rest)
    if section == "entity kinds":
        kind = EntityKind(name=name, description=head, surface=_surface(fields))
        if fields:
            raise ValueError(f"unknown field(s) {sorted(fields)}")
        return kind
    if section == "predicates":
        domain, arrow, range_ = head.partition("->")
        if not arrow:
            raise ValueError("a predicate needs 'domain -> range'")
        surface = _surface(fields)
        pred = Predicate(
            name=name,
            domain=_kinds(domain),
            range=_kinds(range_),
            cardinality=fields.pop("cardinality", "many"),
            max_hops=int(fields.pop("max_hops", "3")),
            surface=surface,
        )
        if fields:
            raise ValueError(f"unknown field(s) {sorted(fields)}")
        return pred
    if section == "identifiers":
        rule = IdentifierRule(
            name=name,
            kinds=_kinds(head),
            pattern=fields.pop("pattern", ""),
            normalise=_alternatives(fields.pop("normalise", "")),
            checks=_alternatives(fields.pop("check", "")),
            identity=fields.pop("identity", "yes").strip().lower() != "no",
        )
        if not rule.pattern:
            raise ValueError("an identifier needs a pattern")
        if fields:
            raise ValueError(f"unknown field(s) {sorted(fields)}")
        return rule
    raise ValueError(f"list item outside a known section (got section {section!r})")


_LANG = re.compile(r"^[a-z]{2}$")


def _legal_forms(body: str) -> tuple[str, tuple[str, ...]]:
    lang, sep, rest = body.partition(":")
    lang = lang.strip()
    if not sep or not _LANG.match(lang):
        raise ValueError("a legal-form line must read '- xx: form; form' (xx: a language code)")
    forms = _alternatives(rest)
    if not forms:
        raise ValueError(f"no legal forms given for {lang!r}")
    return lang, forms


def parse_ontology(text: str, source: str = "<ontology>") -> Ontology:
    name = ""
    summary: list[str] = []
    section = ""
    kinds: dict[str, EntityKind] = {}
    predicates: dict[str, Predicate] = {}
    identifiers: dict[str, IdentifierRule] = {}
    pred_lines: dict[str, int] = {}
    legal_forms: dict[str, tuple[str, ...]] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        try:
            if line.startswith("# ") and not name:
                name = line[2:].strip()
            elif line.startswith(">"):
                summary.append(line.lstrip("> ").strip())
            elif line.startswith("## "):
                section = line[3:].strip().lower()
            elif line.startswith("- ") and section == "legal forms":
                lang, forms = _legal_forms(line[2:])
                if lang in legal_forms:
                    raise ValueError(f"legal forms for {lang!r} declared twice")
                legal_forms[lang] = forms
            elif line.startswith("- ") and section in ("entity kinds", "predicates", "identifiers"):
                item = _parse_item(section, line[2:])
                target: dict[str, object] = (
                    kinds  # type: ignore[assignment]
                    if isinstance(item, EntityKind)
                    else predicates
                    if isinstance(item, Predicate)
                    else identifiers
                )
                if item.name in target:
                    raise ValueError(f"{item.name!r} declared twice")
                target[item.name] = item
                if isinstance(item, Predicate):
                    pred_lines[item.name] = lineno
            elif line.startswith("- ") and not section:
                raise ValueError("a list item before any '## ' section")
        except (ValueError, ValidationError) as exc:
            detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            raise OntologyError(f"{source}:{lineno}: {detail}: {line[:80]!r}") from exc
    if not name:
        raise OntologyError(f"{source}:1: the manifest must start with '# name'")
    if not kinds or not predicates:
        raise OntologyError(f"{source}: needs '## Entity kinds' and '## Predicates' sections")
    for pred in predicates.values():
        for kind in (*pred.domain, *pred.range):
            if kind not in kinds:
                raise OntologyError(
                    f"{source}:{pred_lines[pred.name]}: {pred.name} names unknown kind {kind!r}"
                )
    return Ontology(
        name=name,
        summary=" ".join(summary),
        kinds=kinds,
        predicates=predicates,
        identifiers=identifiers,
        legal_forms=legal_forms,
    )


def load_ontology(path: Path | None = None) -> Ontology:
    path = path or DEFAULT_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OntologyError(f"{path}: cannot read the ontology: {exc}") from exc
    return parse_ontology(text, str(path))
