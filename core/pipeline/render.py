"""Answer and ingest text without an LLM: the extractive answer, a "when" line, the ingest
summary. Localised through core/texts.py."""

from __future__ import annotations

from typing import Any

from core.models import FactView, IngestResult
from core.ports import GraphStore
from core.recall import Hit, is_when_question
from core.texts import t

EXTRACTIVE_FACTS = 10  # facts listed (and cited) by an extractive answer


def extractive(
    lang: str,
    paths: list[list[str]],
    facts: list[FactView],
    targets: list[str],
    reach: dict[str, Any],
    store: GraphStore,
    yes_no: str | None,
    unknown: list[str],
) -> str:
    lines: list[str] = []
    if yes_no:
        lines.append(yes_no)
    if unknown:
        lines.append(t("no_facts", lang, names=", ".join(unknown)))
    if not facts:
        if not lines:
            lines.append(t("no_facts_at_all", lang))
        return "\n".join(lines)
    if not yes_no:
        lines.append(t("known", lang))
        hits = [store.entities[n] for n in targets if reach.get(n) is not None]
        lines.extend(f"• {ent.kind}: {ent.name}" for ent in hits[:5])
    lines.extend(f"{t('paths', lang)}: " + " → ".join(path) for path in paths)
    lines.append(f"{t('facts', lang)}:")
    lines.extend(
        f"• {f.subject} {f.predicate} {f.object} [{f.id}]" for f in facts[:EXTRACTIVE_FACTS]
    )
    return "\n".join(lines)


def when_line(
    question: str, lang: str, hits: list[Hit], evidence: list[tuple[str, str]]
) -> str | None:
    """A "when" question cites the best evidence message with its date."""
    if not hits or not evidence or not is_when_question(question):
        return None
    best, said = hits[0], dict(evidence).get(hits[0].id, "")
    said = said if len(said) <= 240 else said[:239] + "…"
    return t("when_said", lang, date=f"{best.ts:%Y-%m-%d}", said=said, id=best.id)


def render_ingest_text(result: IngestResult, lang: str) -> str:
    if result.duplicate:
        return t("duplicate", lang)
    parts = []
    if result.stored:
        parts.append(t("remembered", lang, n=len(result.stored)))
        parts.extend(f"• {f.subject} {f.predicate} {f.object}" for f in result.stored[:10])
    if result.pending:
        parts.append(t("pending", lang, n=len(result.pending)))
    if result.rejected:
        reasons = "; ".join(r.reason for r in result.rejected[:3])
        parts.append(t("rejected", lang, n=len(result.rejected), reasons=reasons))
    return "\n".join(parts) or t("noted", lang)
