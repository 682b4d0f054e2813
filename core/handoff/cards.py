"""A hand-off card and the leads list as plain text; a card button's payload."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from core.models import HandOff
from core.texts import has_text, t


def render_card(h: HandOff, lang: str = "en") -> str:
    """The card as plain text in a manager's language (front-ends escape it and add their
    buttons). The client's own words (facts, messages, the reason) stay as they were said."""
    client = h.client.name + (f" (@{h.client.username})" if h.client.username else "")
    lines = [t("card_lead", lang, id=h.id, client=client)]
    if h.client.link:
        lines.append(t("card_chat", lang, link=h.client.link))
    who = " · ".join(
        x
        for x in (
            t("card_company", lang, v=h.company) if h.company else "",
            t("card_role", lang, v=h.role) if h.role else "",
        )
        if x
    )
    if who:
        lines.append(who)
    want = ", ".join(want_name(w, lang) for w in h.wants) + (f" · {h.product}" if h.product else "")
    lines.append(t("card_wants", lang, want=want, c=f"{h.confidence:.2f}"))
    if h.reason:
        lines.append(t("card_why", lang, v=h.reason))
    if h.facts:
        lines.append(t("card_facts", lang))
        lines.extend(f"• {f}" for f in h.facts)
    if h.last_messages:
        lines.append(t("card_last", lang))
        lines.extend(f"› {m}" for m in h.last_messages)
    if h.signals > 1:
        lines.append(t("card_signals", lang, n=h.signals, ts=f"{h.last_signal_at:%Y-%m-%d %H:%M}"))
    lines.append(status_line(h, lang))
    return "\n".join(lines)


def manager_language(target: str, languages: Mapping[str, str], default: str) -> str:
    """The language of the cards sent to one target ("telegram:501", "slack:C123")."""
    return languages.get(target, default)


def want_name(want: str, lang: str) -> str:
    return t(f"want_{want}", lang) if has_text(f"want_{want}") else want


def status_line(h: HandOff, lang: str = "en") -> str:
    if h.status == "taken":
        return t("status_taken", lang, who=h.taken_by_name or h.taken_by)
    if h.status == "closed":
        by = h.closed_by_name or h.closed_by
        return t("status_closed_by", lang, who=by) if by else t("status_closed", lang)
    return t("status_reminder", lang, n=h.resends) if h.resends else t("status_open", lang)


def render_leads(items: Sequence[HandOff], lang: str = "en") -> str:
    if not items:
        return t("no_leads", lang)
    out = []
    for h in items:
        company = f" ({h.company})" if h.company else ""
        owner = f" → {h.taken_by_name or h.taken_by}" if h.status == "taken" else ""
        wants = ", ".join(want_name(w, lang) for w in h.wants)
        out.append(
            f"• {h.id} · {t(f'lead_{h.status}', lang)}{owner} · {h.client.name}{company}"
            f" · {wants} · {h.created_at:%Y-%m-%d %H:%M}"
        )
    return "\n".join(out)


def parse_card_value(value: str) -> str:
    """A Take button's value/callback payload: the hand-off id, validated."""
    data = json.loads(value) if value.startswith("{") else {"id": value}
    handoff_id = str(data.get("id", ""))
    if not re.fullmatch(r"h_[0-9a-f]{12}", handoff_id):
        raise ValueError("not a hand-off id")
    return handoff_id
