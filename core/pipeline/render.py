"""The ingest summary without an LLM, localised through core/texts.py (the answer text is
core/answering.py)."""

from __future__ import annotations

from core.models import IngestResult
from core.texts import t

EXTRACTIVE_FACTS = 10  # facts cited by an extractive answer (its support; /why lists them)


def render_ingest_text(result: IngestResult, lang: str) -> str:
    if result.duplicate:
        return t("duplicate", lang)
    parts = []
    if result.stored:
        parts.append(t("remembered", lang, n=len(result.stored)))
        parts.extend(f"• {f.subject} {f.predicate} {f.object}" for f in result.stored[:10])
    if result.superseded:
        parts.append(t("closed", lang, n=len(result.superseded)))
    if result.pending:
        parts.append(t("pending", lang, n=len(result.pending)))
    if result.rejected:
        reasons = "; ".join(r.reason for r in result.rejected[:3])
        parts.append(t("rejected", lang, n=len(result.rejected), reasons=reasons))
    return "\n".join(parts) or t("noted", lang)
