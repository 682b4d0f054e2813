"""What the bot says about a person taking the conversation (core/handoff/person.py): nothing
is promised where no manager is configured, and where one is, the follow-up line is not put
after "Noted (no facts recognised)" or "I could not find anything". Real Core, real Kùzu."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.conversation import with_follow_up
from bot.texts import t as bot_t
from core.models import IncomingMessage
from core.service import Core
from core.texts import t

WHEN = datetime(2026, 11, 2, tzinfo=UTC)


def said(text: str, n: int = 1) -> IncomingMessage:
    return IncomingMessage(text=text, author="client", message_id=str(n), ts=WHEN)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "can someone call me? my number is +351 912 345 678"),
        ("pt", "quero falar com uma pessoa"),
        ("ru", "Хочу купить годовую подписку, свяжите меня с менеджером"),
    ],
)
async def test_without_a_manager_a_request_for_a_person_is_told_there_is_none(
    real_core: Core, lang: str, text: str
) -> None:
    """Before: "Anotado (nenhum fato reconhecido)" for the statements, and for the question "I
    could not find anything about that ..., or ask for a person and someone will follow up",
    from a bot with no manager to follow up (found in the console)."""
    assert real_core.handoff is None
    reply = await real_core.handle_message("c", said(text))
    assert reply.text == t("no_person", lang), reply.text
    if not text.endswith("678"):  # a statement is remembered as any is (a question is asked)
        exported = await real_core.export("c")
        assert text in [m.get("text") for m in exported["messages"]], exported


async def test_without_a_manager_nothing_found_offers_no_person(real_core: Core) -> None:
    await real_core.remember("c", author="Ana", text="The Pro plan costs 49€ per month.", ts=WHEN)
    got = await real_core.ask("c", "do you have a parking lot for visitors?")
    assert got.answer == t("nothing_found", "en"), got.answer
    assert t("ask_person", "en") not in got.answer
    # an answer found is kept, with the word that there is no one after it
    reply = await real_core.handle_message("c", said("how much is the Pro plan? call me please"))
    assert "49€" in reply.text and reply.text.endswith(t("no_person", "en")), reply.text


async def test_with_a_manager_nothing_found_offers_one(hcore: Core) -> None:
    await hcore.remember("c", author="Ana", text="The Pro plan costs 49€ per month.", ts=WHEN)
    got = await hcore.ask("c", "do you have a parking lot for visitors?")
    assert got.answer == f"{t('nothing_found', 'en')} {t('ask_person', 'en')}", got.answer


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "can someone call me? my number is +351 912 345 678"),
        ("pt", "quero falar com uma pessoa"),
        ("ru", "Хочу купить годовую подписку, свяжите меня с менеджером"),
    ],
)
async def test_with_a_manager_the_follow_up_is_all_a_request_for_a_person_gets(
    hcore: Core, lang: str, text: str
) -> None:
    """Before: "Записал (фактов не распознано).\\n\\nС вами скоро свяжется сотрудник", and "I
    could not find anything ... Or ask for a person" before "A person ... will follow up"."""
    reply = with_follow_up(await hcore.handle_message("c", said(text)))
    assert reply.handoff is not None
    assert reply.text == bot_t("lead.follow_up", lang), reply.text
