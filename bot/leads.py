"""The hand-off as managers read it, for every front-end: the card and the leads list as plain
text (each front-end escapes it and adds its buttons), and what a press of Take or Close (or
/close) tells the manager who did it, mapped once from the core's typed outcomes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.texts import t
from core.models import CloseOutcome, HandOff, TakeOutcome


def take_reply(
    outcome: TakeOutcome, lang: str, owner: Callable[[HandOff], str]
) -> tuple[str, bool]:
    """(what the manager is told, whether it is a refusal). `owner` names who holds the lead
    (Slack mentions them, Telegram names them)."""
    if outcome.result == "taken":  # every card now says who took it
        return t("lead.taken_ok", lang), False
    h = outcome.handoff
    if outcome.result == "already_taken" and h is not None:
        return t("lead.already_taken", lang, name=owner(h)), True
    return t(f"lead.{outcome.result}", lang), True


def close_reply(outcome: CloseOutcome, handoff_id: str, lang: str) -> str:
    if outcome.result == "closed":
        return t("lead.closed_ok", lang, id=handoff_id)
    return t(f"lead.{outcome.result}", lang)


def render_card(h: HandOff) -> str:
    """The card as plain text (front-ends escape it and add their button)."""
    client = h.client.name + (f" (@{h.client.username})" if h.client.username else "")
    lines = [f"Lead {h.id}: {client}"]
    if h.client.link:
        lines.append(f"Chat: {h.client.link}")
    who = " · ".join(
        x
        for x in (f"Company: {h.company}" if h.company else "", f"Role: {h.role}" if h.role else "")
        if x
    )
    if who:
        lines.append(who)
    want = ", ".join(h.wants) + (f" · {h.product}" if h.product else "")
    lines.append(f"Wants: {want} (confidence {h.confidence:.2f})")
    if h.reason:
        lines.append(f"Why: {h.reason}")
    if h.facts:
        lines.append("Facts:")
        lines.extend(f"• {f}" for f in h.facts)
    if h.last_messages:
        lines.append("Last messages:")
        lines.extend(f"› {m}" for m in h.last_messages)
    if h.signals > 1:
        lines.append(f"Signals: {h.signals} (last {h.last_signal_at:%Y-%m-%d %H:%M} UTC)")
    lines.append(status_line(h))
    return "\n".join(lines)


def status_line(h: HandOff) -> str:
    if h.status == "taken":
        return f"Status: taken by {h.taken_by_name or h.taken_by}"
    if h.status == "closed":
        by = h.closed_by_name or h.closed_by
        return "Status: closed" + (f" by {by}" if by else "")
    return "Status: open" + (f" (reminder {h.resends})" if h.resends else "")


def render_leads(items: Sequence[HandOff]) -> str:
    if not items:
        return "No leads."
    out = []
    for h in items:
        company = f" ({h.company})" if h.company else ""
        owner = f" → {h.taken_by_name or h.taken_by}" if h.status == "taken" else ""
        out.append(
            f"• {h.id} · {h.status}{owner} · {h.client.name}{company} · {', '.join(h.wants)}"
            f" · {h.created_at:%Y-%m-%d %H:%M}"
        )
    return "\n".join(out)
