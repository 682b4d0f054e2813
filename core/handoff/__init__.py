"""Hand-off of buying interest to managers (issue 8): intent.py (rules and the LLM's verdict),
repository.py (SQLite records), context.py (what a card says, from the client's chat),
service.py (the delivery state machine). Records are core/models.py's
HandOff; the service reaches the core through the ChatMemory port and managers through
Notifiers (core/ports.py), so it never imports the core's facade."""

from __future__ import annotations

from core.handoff.intent import Intent, detect_intent, product_phrase, rules_intent
from core.handoff.repository import HandoffStore
from core.handoff.service import (
    SEND_TIMEOUT_S,
    HandoffConfig,
    HandoffService,
)
from core.models import ClientInfo, CloseOutcome, HandOff, TakeOutcome
from core.ports import Notifier

__all__ = [
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
    "product_phrase",
    "rules_intent",
]
