"""Plain-text renderings of the core's typed results (facts, trace, worlds, review queue, ingest
result), shared by the console, Telegram and Slack front-ends."""

from __future__ import annotations

from bot.texts import t
from core.models import Answer, FactView, IngestResult, PendingFact, Trace, WorldInfo
from core.pipeline.render import render_ingest_text


def render_answer(answer: Answer) -> str:
    """The answer text already carries its paths and fact citations."""
    return answer.answer


def render_ingest(result: IngestResult, language: str) -> str:
    return render_ingest_text(result, language)


def render_fact(f: FactView, lang: str = "en") -> str:
    until = t("render.until", lang, date=f"{f.valid_to:%Y-%m-%d}") if f.valid_to else ""
    status = "" if f.status == "active" else f" [{f.status}]"
    return f"{f.subject} ({f.subject_kind}) {f.predicate} {f.object} ({f.object_kind}) · {f.confidence:.2f}{status}{until}"


def render_facts(facts: list[FactView], lang: str = "en") -> str:
    if not facts:
        return t("render.no_facts", lang)
    return "\n".join(f"• {render_fact(f, lang)}" for f in facts)


def render_trace(trace: Trace) -> str:
    lines = [f"Question: {trace.question}", f"Model: {trace.model} · trace {trace.id}"]
    if trace.worlds:
        lines.append("Worlds: " + ", ".join(trace.worlds))
    lines.append(
        "Seeds: " + (", ".join(f"{s.entity} ({s.score:.2f})" for s in trace.seeds) or "none")
    )
    lines.extend("Path: " + " → ".join(p) for p in trace.paths)
    if trace.nodes:
        lines.append("Scores (R = α·S_vec + (1-α)·PPR):")
        lines.extend(
            f"  {n.name}: R={n.score:.3f} S_vec={n.s_vec:.3f} PPR={n.ppr:.3f}"
            for n in trace.nodes[:10]
        )
    if trace.cited:
        lines.append("Cited facts: " + ", ".join(trace.cited))
    if trace.evidence_hits:
        lines.append("Evidence messages (found by):")
        lines.extend(
            f"  {h.id}"
            + (f" {h.ts:%Y-%m-%d}" if h.ts else "")
            + (f" {h.author}" if h.author else "")
            + ": "
            + (", ".join(h.signals) or "provenance")
            for h in trace.evidence_hits[:10]
        )
    elif trace.evidence:
        lines.append("Evidence messages: " + ", ".join(trace.evidence[:10]))
    return "\n".join(lines)


def render_worlds(worlds: list[WorldInfo], lang: str = "en") -> str:
    """The chat's live worlds; a merged one is only an alias of another (its id keeps
    resolving there), so it is counted, not listed."""
    live = [w for w in worlds if not w.merged_into]
    if not live:
        return t("render.no_worlds", lang)
    lines = [
        t(
            "render.world",
            lang,
            topic=w.topic,
            id=w.id,
            maturity=f"{w.maturity:.2f}",
            facts=w.facts,
            messages=w.messages,
            last=f"{w.last_active:%Y-%m-%d %H:%M}",
        )
        for w in live
    ]
    merged = len(worlds) - len(live)
    if merged:
        lines.append(t("render.merged", lang, n=merged))
    return "\n".join(lines)


def render_pending(p: PendingFact) -> str:
    t = p.triple
    line = f"{t.subject} ({t.subject_kind}) {t.predicate} {t.object} ({t.object_kind}) · confidence {t.confidence:.2f}"
    return f"{line} · {p.reason}" if p.reason else line
