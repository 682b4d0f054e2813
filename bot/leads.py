"""Hand-off outcomes as the managers read them, mapped once for every front-end: what a press
of Take or Close (or /close) tells the manager who did it. Card text itself: core/handoff/cards.py."""

from __future__ import annotations

from collections.abc import Callable

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
