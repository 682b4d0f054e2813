"""A kind of a thing the chat has only in other kinds (core/variant.py): the answer says first
that it has nothing about the kind asked, then shows the nearest, as for a name the chat never
writes. Real core, real Kùzu, the offline multilingual model."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.service import Core
from core.texts import t
from tests.core.telling import tell, tell_by_minute

PRICES = (
    "The Pro plan costs 49€ per month and includes 5 users.",
    "O plano Básico custa 19€ por mês, 1 utilizador.",
    "A city bike costs 12€ per day, an e-bike 25€ per day.",
    "Тариф Стандарт стоит 990 рублей в месяц.",
)


@pytest.mark.parametrize(
    ("lang", "question", "word"),
    [
        ("en", "how much is the enterprise plan?", "enterprise"),
        ("pt", "quanto custa o plano premium?", "premium"),
        ("ru", "сколько стоит тариф премиум?", "премиум"),
    ],
)
async def test_a_kind_the_chat_does_not_have_is_said_before_the_nearest(
    use_core: Core, lang: str, question: str, word: str
) -> None:
    """Found in the console: "how much is the enterprise plan?" was answered with the Pro
    plan's price and nothing before it (the price sentence is near by meaning and holds
    "plan")."""
    await tell(use_core, "c", *PRICES)
    got = await use_core.ask("c", question)
    assert got.answer.startswith(t("nothing_about", lang, names=word)[:12]), got.answer
    assert word in got.unknown, got.answer
    assert "“" in got.answer or "«" in got.answer, got.answer  # the nearest is still shown


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("how much is the pro plan?", "49€"),
        ("quanto custa o plano básico?", "19€"),
        ("сколько стоит тариф стандарт?", "990"),
        # "per day" names no kind of day: "full" is the client's, not a kind the chat lacks
        ("how much is a bike for a full day?", "12€"),
        # a kind the chat writes in lower case is left alone: "city bike" (a word the chat
        # lacks next to a lower-case one was as often a translation the bridge missed)
        ("do you have tandem bikes?", "12€"),
    ],
)
async def test_a_kind_the_chat_has_is_answered_as_before(
    use_core: Core, question: str, quoted: str
) -> None:
    await tell(use_core, "c", *PRICES)
    got = await use_core.ask("c", question)
    assert quoted in got.answer.splitlines()[0], got.answer  # quoted first, nothing before it


async def test_a_price_of_another_kind_is_no_later_price(use_core: Core) -> None:
    """ "сколько стоит план?" showed the Pro plan's 49€ and under it "Позже: O plano Básico
    custa 19€": another plan, not a later price of the Pro plan (found in the console)."""
    await tell_by_minute(use_core, list(PRICES[:2]))  # the Básico plan's price a minute later
    got = await use_core.ask("c", "сколько стоит план?")
    assert len(got.answer.splitlines()) == 1, got.answer
    # a later price of the same kind is still shown under it
    later = datetime(2026, 11, 20, tzinfo=UTC)
    await use_core.remember("c", author="Ana", text="update: the Pro plan is now 59€", ts=later)
    got = await use_core.ask("c", "how much is the Pro plan?")
    assert "49€" in got.answer and "59€" in got.answer, got.answer
