"""A hand-off card and the leads list as plain text; a card button's payload."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from core.models import HandOff


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


def parse_card_value(value: str) -> str:
    """A Take button's value/callback payload: the hand-off id, validated."""
    data = json.loads(value) if value.startswith("{") else {"id": value}
    handoff_id = str(data.get("id", ""))
    if not re.fullmatch(r"h_[0-9a-f]{12}", handoff_id):
        raise ValueError("not a hand-off id")
    return handoff_id
