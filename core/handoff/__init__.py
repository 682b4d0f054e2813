"""Hand-off of buying interest to managers (issue 8): intent.py (rules and the LLM's verdict),
repository.py (SQLite records), context.py (what a card says, from the client's chat),
cards.py (card text), service.py (the delivery state machine). Records are core/models.py's
HandOff; the service reaches the core through the ChatMemory port and managers through
Notifiers (core/ports.py), so it never imports the core's facade."""

from __future__ import annotations

from core.handoff.cards import (
    manager_language,
    parse_card_value,
    render_card,
    render_leads,
    status_line,
)
from core.handoff.intent import Intent, detect_intent, product_phrase, rules_intent
from core.handoff.repository import HandoffStore
from core.handoff.service import (
    FOLLOW_UP,
    SEND_TIMEOUT_S,
    HandoffConfig,
    HandoffService,
    follow_up_line,
)
from core.models import ClientInfo, CloseOutcome, HandOff, TakeOutcome
from core.ports import Notifier

__all__ = [
    "FOLLOW_UP",
    "SEND_TIMEOUT_S",
    "ClientInfo",
    "CloseOutcome",
    "HandOff",
    "HandoffConfig",
    "HandoffService",
    "HandoffStore",
    "Intent",
    "Notifier",
    "TakeOutcome",
    "detect_intent",
    "follow_up_line",
    "manager_language",
    "parse_card_value",
    "product_phrase",
    "render_card",
    "render_leads",
    "rules_intent",
    "status_line",
]
