"""Buying intent in a message: the LLM's classify_intent when it offers one, else multilingual
rules (en / pt / ru) for clear cases."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from core.errors import LlmUnavailable
from core.language import clean_name

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Intent:
    """A buying signal: what the client wants (price, demo, ...), how sure, and why."""

    wants: tuple[str, ...]
    confidence: float
    reason: str
    product: str | None = None
    source: str = "rules"  # "rules" or "llm"


# (want, confidence, pattern). Word starts are anchored; Russian stems cover inflections.
_RULES: list[tuple[str, float, re.Pattern[str]]] = [
    (want, conf, re.compile(pattern + r"(?!\w)", re.IGNORECASE))
    for want, conf, pattern in [
        (
            "price",
            0.9,
            r"\b(?:price|prices|pricing|how much (?:is|does|do|would|for)|quote for"
            r"|cost of|what does it cost"
            r"|pre[çc]o|pre[çc]os|quanto custa|quanto fica|quanto sai|valor do plano"
            r"|cota[çc][ãa]o|or[çc]amento para"
            r"|цен[аыуе]|стоимост\w*|сколько стоит|сколько будет стоить|прайс\w*)",
        ),
        (
            "demo",
            0.85,
            r"\b(?:demo|demos|demonstration|free trial|trial account"
            r"|demonstra[çc][ãa]o|teste gr[áa]tis|per[íi]odo de teste"
            r"|демо|демо-\w+|демонстрац\w*|пробн\w+ (?:период|доступ|верси\w+))",
        ),
        # a contract the client asks for, not one that was signed ("Acme signed the contract")
        (
            "contract",
            0.85,
            r"\b(?:(?:send|draft|prepare)(?: me| us)? (?:the |a )?contract"
            r"|contract (?:draft|proposal|terms)|ready to sign|want to sign"
            r"|(?:enviar|mandar|enviem|mandem)(?: o| um)? contrato"
            r"|minuta do contrato|assinar o contrato|fechar (?:o )?contrato"
            r"|(?:пришлите|отправьте|вышлите|подготовьте) (?:нам |мне )?"
            r"(?:договор|контракт)\w*|проект договора|готовы подписать"
            r"|заключить (?:договор|контракт))",
        ),
        (
            "invoice",
            0.9,
            r"\b(?:invoice|invoices|bill us|bill me"
            r"|fatura|faturas|nota fiscal|boleto"
            r"|сч[её]т на оплату|сч[её]т-фактур\w*|выстав\w* сч[её]т\w*)",
        ),
        (
            "buy",
            0.9,
            r"\b(?:buy|buying|purchase|purchasing|want to order|place an order"
            r"|subscribe|sign up for"
            r"|comprar|compraria|quero comprar|adquirir|assinar o plano|fechar neg[óo]cio"
            r"|куп(?:ить|лю|им|ят)|покупк\w*|приобрест\w*|приобрет\w*"
            r"|оформить заказ|заказать)",
        ),
        # a booking the client asks for: an appointment, a visit, a room, a bike (a clinic's,
        # a coworking's, a rental's first sale); asked in the first person, so the team's
        # "the booking service" or "o agendamento depende do calendário" stays quiet
        (
            "book",
            0.85,
            r"\b(?:(?:want to|wanna|like to|can i|can we|could i|could we|may i|how (?:do|can)"
            r" (?:i|we)) (?:book|reserve|schedule|make (?:an? )?(?:appointment|reservation))"
            r"|book (?:me|us)|make an appointment|schedule an appointment"
            r"|(?:quero|queria|quer[íi]amos|gostaria de|gostar[íi]amos de|posso|podemos"
            r"|como (?:fa[çc]o para |fa[çc]o pra )?) ?(?:agendar|marcar|reservar)"
            r"|(?:agendar|marcar) (?:uma |um )?(?:consulta|hor[áa]rio|visita|avalia[çc][ãa]o"
            r"|aula|sess[ãa]o)"
            r"|(?:хочу|хотим|хотел\w*|можно|могу|как) (?:бы )?(?:записаться|забронировать"
            r"|заброниро\w+)|запишите (?:меня|нас))",
        ),
        (
            "person",
            0.85,
            r"\b(?:talk to (?:a |an )?(?:person|human|someone|sales|manager|agent)"
            r"|speak (?:to|with) (?:a |an )?(?:person|human|someone|sales|manager)"
            r"|contact (?:me|us)|call me"
            r"|falar com (?:uma |um |o |a )?(?:pessoa|humano|atendente|vendedor"
            r"|consultor|gerente|algu[ée]m)|me liguem|entrem em contato"
            r"|поговорить с (?:человеком|менеджером|оператором|продавц\w*)"
            r"|свяжитесь со мной|свяжите (?:меня|нас)|позовите (?:менеджера|человека)|перезвоните)",
        ),
    ]
]

_PRODUCT = re.compile(
    r"\b((?:plano|plan|тариф|пакет|package|licen[cs]e|licen[çc]a|assinatura|subscription)"
    r"(?:\s+(?!para\b|for\b|para\b|на\b|для\b)[\w-]+)?)"
    r"|\b([\w-]+\s+(?:plan|package|license|subscription))\b",
    re.IGNORECASE,
)
_PRODUCT_LEAD_WORDS = frozenset({"the", "a", "an", "our", "your", "this", "that"})


def rules_intent(text: str) -> Intent | None:
    """Clear buying signals in English, Portuguese or Russian; None when there is none."""
    wants: list[str] = []
    hits: list[str] = []
    confidence = 0.0
    for want, conf, pattern in _RULES:
        m = pattern.search(text)
        if m:
            wants.append(want)
            hits.append(m.group(0))
            confidence = max(confidence, conf)
    if not wants:
        return None
    reason = "asked about " + ", ".join(wants) + " (" + "; ".join(f"'{h}'" for h in hits) + ")"
    return Intent(tuple(wants), confidence, reason, product_phrase(text), "rules")


def product_phrase(text: str) -> str | None:
    """'o plano anual' -> 'plano anual', 'the annual plan' -> 'annual plan'."""
    m = _PRODUCT.search(text)
    if not m:
        return None
    words = [w for w in (m.group(1) or m.group(2)).split() if w.lower() not in _PRODUCT_LEAD_WORDS]
    phrase = clean_name(" ".join(words))
    return phrase or None


async def detect_intent(
    text: str, llm: Any | None, *, language: str, min_confidence: float
) -> Intent | None:
    """The LLM's verdict when it offers `classify_intent`, else the rules.

    `classify_intent(text=..., language=...)` is optional on the Llm port: it returns an object
    with `interested` (bool), `want` (str or list), `confidence`, `reason` and optionally
    `product`. When it fails (LlmUnavailable or anything else) the rules decide.
    """
    classify = getattr(llm, "classify_intent", None) if llm is not None else None
    if classify is not None:
        try:
            verdict = await classify(text=text, language=language)
        except LlmUnavailable as exc:
            log.warning("intent classification failed, using the rules: %s", exc)
        except Exception:
            log.warning("intent classification failed, using the rules", exc_info=True)
        else:
            confidence = float(getattr(verdict, "confidence", 0.0))
            if not getattr(verdict, "interested", False) or confidence < min_confidence:
                return None
            want = getattr(verdict, "want", "interest")
            wants = tuple(want) if isinstance(want, list | tuple) else (str(want),)
            product = getattr(verdict, "product", None) or product_phrase(text)
            return Intent(wants, confidence, str(getattr(verdict, "reason", "")), product, "llm")
    intent = rules_intent(text)
    return intent if intent is not None and intent.confidence >= min_confidence else None
