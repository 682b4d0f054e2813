"""Hand-off cards in each manager's language (issue 17): labels, wants and status are
localised; what the client said (facts, messages, the product) stays as it was said."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.leads import render_card, render_leads
from bot.slack.handoff import card_blocks
from core.models import ClientInfo, HandOff

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def lead(**values: object) -> HandOff:
    base: dict[str, object] = {
        "id": "h_0123456789ab",
        "chat": "telegram:1",
        "client": ClientInfo(name="Ana", platform="telegram", user_id="1", username="ana_acme"),
        "client_key": "telegram:1",
        "company": "Acme Corp",
        "wants": ["price", "buy"],
        "product": "plano anual",
        "confidence": 0.9,
        "facts": ["Ana WORKS_AT Acme Corp"],
        "last_messages": ["Quanto custa o plano anual?"],
        "created_at": NOW,
        "updated_at": NOW,
        "last_signal_at": NOW,
        "last_sent_at": NOW,
    }
    base.update(values)
    return HandOff.model_validate(base)


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        ("en", ["Lead h_0123456789ab: Ana (@ana_acme)", "Company: Acme Corp", "Status: open"]),
        ("pt", ["Empresa: Acme Corp", "Quer: preço, comprar · plano anual", "Status: aberto"]),
        (
            "ru",
            ["Лид h_0123456789ab", "Компания: Acme Corp", "Хочет: цена, покупка", "Статус: открыт"],
        ),
    ],
)
def test_card_labels_follow_the_managers_language(lang: str, lines: list[str]) -> None:
    text = render_card(lead(), lang)
    for line in lines:
        assert line in text
    assert "Quanto custa o plano anual?" in text and "Ana WORKS_AT Acme Corp" in text


def test_taken_and_closed_cards_and_the_leads_list_are_localised() -> None:
    taken = lead(status="taken", taken_by="telegram:501", taken_by_name="Bia")
    assert "Status: assumido por Bia" in render_card(taken, "pt")
    assert "Статус: закрыт" in render_card(lead(status="closed"), "ru")
    assert "assumido → Bia" in render_leads([taken], "pt")
    assert render_leads([], "ru") == "Лидов нет."


def test_slack_card_buttons_and_context_in_the_channels_language() -> None:
    _, blocks = card_blocks(lead(), "pt")
    (actions,) = [b for b in blocks if b["type"] == "actions"]
    assert [e["text"]["text"] for e in actions["elements"]] == ["Assumir", "Encerrar"]
    _, taken = card_blocks(lead(status="taken", taken_by="slack:U1", taken_by_name="Bia"), "ru")
    assert any("Взял <@U1>" in str(b) for b in taken)
