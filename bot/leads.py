"""The hand-off as managers read it, for every front-end: the card and the leads list as plain
text (each front-end escapes it and adds its buttons), and what a press of Take or Close (or
/close) tells the manager who did it, mapped once from the core's typed outcomes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.texts import has_text, t
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


def render_card(h: HandOff, lang: str = "en") -> str:
    """The card as plain text in a manager's language (front-ends escape it and add their
    buttons). The client's own words (facts, messages, the reason) stay as they were said."""
    client = h.client.name + (f" (@{h.client.username})" if h.client.username else "")
    lines = [t("lead.card_lead", lang, id=h.id, client=client)]
    if h.client.link:
        lines.append(t("lead.card_chat", lang, link=h.client.link))
    who = " · ".join(
        x
        for x in (
            t("lead.card_company", lang, v=h.company) if h.company else "",
            t("lead.card_role", lang, v=h.role) if h.role else "",
        )
        if x
    )
    if who:
        lines.append(who)
    want = ", ".join(want_name(w, lang) for w in h.wants) + (f" · {h.product}" if h.product else "")
    lines.append(t("lead.card_wants", lang, want=want, c=f"{h.confidence:.2f}"))
    if h.reason:
        lines.append(t("lead.card_why", lang, v=h.reason))
    if h.facts:
        lines.append(t("lead.card_facts", lang))
        lines.extend(f"• {f}" for f in h.facts)
    if h.last_messages:
        lines.append(t("lead.card_last", lang))
        lines.extend(f"› {m}" for m in h.last_messages)
    if h.signals > 1:
        lines.append(
            t("lead.card_signals", lang, n=h.signals, ts=f"{h.last_signal_at:%Y-%m-%d %H:%M}")
        )
    lines.append(status_line(h, lang))
    return "\n".join(lines)


def manager_language(target: str, languages: Mapping[str, str], default: str) -> str:
    """The language of the cards sent to one target ("telegram:501", "slack:C123")."""
    return languages.get(target, default)


def want_name(want: str, lang: str) -> str:
    return t(f"lead.want_{want}", lang) if has_text(f"lead.want_{want}") else want


def status_line(h: HandOff, lang: str = "en") -> str:
    if h.status == "taken":
        return t("lead.status_taken", lang, who=h.taken_by_name or h.taken_by)
    if h.status == "closed":
        by = h.closed_by_name or h.closed_by
        return t("lead.status_closed_by", lang, who=by) if by else t("lead.status_closed", lang)
    return (
        t("lead.status_reminder", lang, n=h.resends) if h.resends else t("lead.status_open", lang)
    )


def render_leads(items: Sequence[HandOff], lang: str = "en") -> str:
    if not items:
        return t("lead.no_leads", lang)
    out = []
    for h in items:
        company = f" ({h.company})" if h.company else ""
        owner = f" → {h.taken_by_name or h.taken_by}" if h.status == "taken" else ""
        wants = ", ".join(want_name(w, lang) for w in h.wants)
        out.append(
            f"• {h.id} · {t(f'lead.state_{h.status}', lang)}{owner} · {h.client.name}{company}"
            f" · {wants} · {h.created_at:%Y-%m-%d %H:%M}"
        )
    return "\n".join(out)
