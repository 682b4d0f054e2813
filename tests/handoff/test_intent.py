"""Intent detection: the multilingual rules, and the optional LLM classifier."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from core.errors import LlmUnavailable
from core.handoff import detect_intent, product_phrase, rules_intent


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Quanto custa o plano anual? Quero comprar para 20 pessoas", "price"),
        ("How much is the annual plan?", "price"),
        ("Can we book a demo next week?", "demo"),
        ("Please send me the contract draft", "contract"),
        ("Could you issue an invoice for March?", "invoice"),
        ("We want to buy 20 seats", "buy"),
        ("I'd like to talk to a person", "person"),
        ("Vocês podem fazer uma demonstração?", "demo"),
        ("Podem enviar a fatura?", "invoice"),
        ("Сколько стоит тариф Про?", "price"),
        ("Хотим купить 20 лицензий", "buy"),
        ("Пришлите договор, пожалуйста", "contract"),
        ("Выставьте счёт на оплату", "invoice"),
        ("Можно поговорить с менеджером?", "person"),
        ("I'd like to book an appointment for Tuesday", "book"),
        ("can I book a bike for tomorrow?", "book"),
        ("Quero agendar uma consulta", "book"),
        ("vcs conseguem marcar uma avaliação pra sexta?", "book"),
        ("Gostaria de reservar a sala Tejo", "book"),
        ("Хочу записаться на чистку", "book"),
        ("Можно забронировать переговорную на пятницу?", "book"),
        ("Запишите меня на пробный урок", "book"),
    ],
)
def test_rules_catch_clear_buying_signals(text: str, want: str) -> None:
    intent = rules_intent(text)
    assert intent is not None
    assert want in intent.wants
    assert intent.confidence >= 0.8
    assert intent.reason


@pytest.mark.parametrize(
    "text",
    [
        "what is our SLA?",
        "checkout depends on payments",
        "Acme signed the contract",  # a fact about the past, not a request
        "Acme purchased the Pro plan last year",
        "Romashka купил тариф Про",
        "qual política se aplica ao checkout?",
        "демократия и экономика",
        "the booking service depends on payments",
        "o agendamento depende do calendário",
        "we booked the venue last week",
        "Запись на приём ведёт Марина",
    ],
)
def test_rules_stay_quiet_without_interest(text: str) -> None:
    assert rules_intent(text) is None


def test_product_phrase() -> None:
    assert product_phrase("Quanto custa o plano anual?") == "plano anual"
    assert product_phrase("How much is the annual plan?") == "annual plan"
    assert product_phrase("what is our SLA?") is None


@dataclass
class Verdict:
    interested: bool
    want: str
    confidence: float
    reason: str


class ClassifyingLlm:
    def __init__(self, verdict: Verdict | Exception) -> None:
        self.verdict = verdict
        self.calls: list[str] = []

    async def classify_intent(self, *, text: str, language: str) -> Verdict:
        self.calls.append(text)
        if isinstance(self.verdict, Exception):
            raise self.verdict
        return self.verdict


async def test_the_llm_decides_when_it_can_classify() -> None:
    llm = ClassifyingLlm(Verdict(True, "demo", 0.8, "wants to see it working"))
    intent = await detect_intent(
        "could you show it to my team?", llm, language="en", min_confidence=0.6
    )
    assert intent is not None
    assert intent.source == "llm"
    assert intent.wants == ("demo",)
    assert intent.reason == "wants to see it working"
    unsure = ClassifyingLlm(Verdict(True, "price", 0.3, "maybe"))
    assert await detect_intent("hm", unsure, language="en", min_confidence=0.6) is None
    no = ClassifyingLlm(Verdict(False, "", 0.9, "just a question"))
    assert await detect_intent("how much is it?", no, language="en", min_confidence=0.6) is None


async def test_rules_decide_when_the_llm_fails_or_cannot_classify() -> None:
    broken = ClassifyingLlm(LlmUnavailable("down"))
    intent = await detect_intent("how much is the plan?", broken, language="en", min_confidence=0.6)
    assert broken.calls
    assert intent is not None
    assert intent.source == "rules"
    plain = object()  # an Llm without classify_intent
    intent = await detect_intent("how much is the plan?", plain, language="en", min_confidence=0.6)
    assert intent is not None
    assert intent.source == "rules"
