"""Issue 8 through the real Telegram front-end (aiogram polling) against the fake Bot API."""

from __future__ import annotations

import asyncio

from bot.jobs import build_scheduler, handoff_job
from bot.settings import Settings
from bot.texts import t
from core.service import Core
from tests.handoff.conftest import (
    MANAGER_A,
    MANAGER_B,
    MAX_RESENDS,
    FlakyBotAPI,
    ManualClock,
    TelegramFront,
    make_service,
)

CHAT = "telegram:1"
INTEREST = "Quanto custa o plano anual? Quero comprar para 20 pessoas"


async def teach_company(telegram: TelegramFront) -> None:
    await telegram.say("Ana works at Acme Corp.", lang="en")
    await telegram.say("Ana is the decision maker for Acme Corp.", lang="en")
    await telegram.say("Acme Corp is located in Lisbon.", lang="en")


def buttons(call: object) -> dict[str, str]:
    """The card's buttons, text -> callback data (none once closed)."""
    markup = call.params.get("reply_markup")  # type: ignore[attr-defined]
    if markup is None:
        return {}
    (row,) = markup["inline_keyboard"]
    return {b["text"]: str(b["callback_data"]) for b in row}


def take_data(call: object) -> str:
    return buttons(call)["Take"]


def close_data(call: object) -> str:
    return buttons(call)["Close"]


async def test_interest_sends_one_card_per_manager_and_a_second_signal_updates_it(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core, clock: ManualClock
) -> None:
    await telegram.start(hcore, [MANAGER_A, MANAGER_B])
    await teach_company(telegram)
    assert tg_api.cards(MANAGER_A) == []  # plain statements raise nothing

    message_id, reply = await telegram.say(INTEREST)
    assert (
        t("lead.follow_up", "pt") in reply
    )  # the client hears, in Portuguese, that a person follows up
    (card_a,) = tg_api.cards(MANAGER_A)
    (card_b,) = tg_api.cards(MANAGER_B)
    for card in (card_a, card_b):
        text = card.visible_text
        assert "Ana (@ana_acme)" in text
        assert "Company: Acme Corp" in text
        assert "Ana WORKS_AT Acme Corp" in text
        assert "Ana DECIDES_FOR Acme Corp" in text
        assert "Acme Corp LOCATED_IN Lisbon" in text
        assert "price" in text
        assert "buy" in text
        assert "plano anual" in text
        assert INTEREST in text  # among the last messages
        assert "Status: open" in text
    assert take_data(card_a) == take_data(card_b)
    assert list(buttons(card_a)) == ["Take", "Close"]

    # INTERESTED_IN (client -> product) is in the graph, sourced from the client's message
    facts = [f for f in await hcore.facts(CHAT, "Ana") if f.predicate == "INTERESTED_IN"]
    assert [(f.object, f.object_kind, f.sources) for f in facts] == [
        ("plano anual", "product", [str(message_id)])
    ]

    clock.advance(minutes=10)  # within the window: the same hand-off is updated
    _, reply = await telegram.say("Vocês podem fazer uma demonstração?")
    assert t("lead.follow_up", "pt") in reply
    assert len(tg_api.cards(MANAGER_A)) == 1
    assert len(tg_api.cards(MANAGER_B)) == 1
    edits = {
        int(c.params["chat_id"]): c for c in tg_api.of("editMessageText") if c.result is not None
    }
    assert set(edits) == {MANAGER_A, MANAGER_B}
    assert int(edits[MANAGER_A].params["message_id"]) == card_a.result["message_id"]
    assert int(edits[MANAGER_B].params["message_id"]) == card_b.result["message_id"]
    for edit in edits.values():
        assert "demo" in edit.visible_text
        assert "Signals: 2" in edit.visible_text
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert lead.signals == 2
    assert lead.status == "open"


async def test_first_manager_takes_the_lead_others_see_it_and_cannot_take_it(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core
) -> None:
    await telegram.start(hcore, [MANAGER_A, MANAGER_B])
    await telegram.say(INTEREST)
    (card_a,), (card_b,) = tg_api.cards(MANAGER_A), tg_api.cards(MANAGER_B)

    tg_api.press_as(card_a, take_data(card_a), user_id=MANAGER_A, name="Alice")
    (answer,) = await tg_api.wait_for("answerCallbackQuery")
    assert answer.params["text"] == "The lead is yours."
    edits = await tg_api.wait_for("editMessageText", count=2)
    by_chat = {int(c.params["chat_id"]): c for c in edits}
    for chat_id, card in ((MANAGER_A, card_a), (MANAGER_B, card_b)):
        edit = by_chat[chat_id]
        assert int(edit.params["message_id"]) == card.result["message_id"]
        assert "Status: taken by Alice" in edit.visible_text
        assert list(buttons(edit)) == ["Close"]  # the Take button is gone

    tg_api.press_as(card_b, take_data(card_b), user_id=MANAGER_B, name="Bob")
    _, refused = await tg_api.wait_for("answerCallbackQuery", count=2)
    assert refused.params["text"] == "Sorry, Alice already took this lead."
    assert refused.params.get("show_alert") in ("true", "True", True)

    tg_api.press_as(card_b, take_data(card_b), user_id=1, name="Ana")  # not a manager
    *_, stranger = await tg_api.wait_for("answerCallbackQuery", count=3)
    assert stranger.params["text"] == "Sorry, leads are for managers only."

    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert (lead.status, lead.taken_by, lead.taken_by_name) == ("taken", "telegram:501", "Alice")
    await asyncio.sleep(0.1)
    assert len(tg_api.of("editMessageText")) == 2  # refusals change no card


async def test_failed_delivery_is_retried_and_untaken_leads_are_resent_at_most_n_times(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core, clock: ManualClock, tmp_path
) -> None:
    await telegram.start(hcore, [MANAGER_A, MANAGER_B])
    settings = Settings()
    tg_api.down.add(MANAGER_B)
    _, reply = await telegram.say(INTEREST)
    assert (
        t("lead.follow_up", "pt") in reply
    )  # the client is not kept waiting by a broken manager chat
    assert len(tg_api.cards(MANAGER_A)) == 1
    failed = [c for c in tg_api.of("sendMessage") if int(c.params["chat_id"]) == MANAGER_B]
    assert failed
    assert tg_api.cards(MANAGER_B) == []

    await handoff_job(hcore, settings)  # still down: still not delivered, not lost either
    assert tg_api.cards(MANAGER_B) == []
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()
    assert set(lead.notified) == {"telegram:501"}

    # a restart keeps the lead: a fresh service over the same file sees it
    reopened = make_service(tmp_path / "data", clock)
    assert [h.id for h in await reopened.leads()] == [lead.id]
    await reopened.aclose()

    tg_api.down.clear()
    report = await handoff_job(hcore, settings)
    assert report["handoff_delivered"] == 1
    assert len(tg_api.cards(MANAGER_B)) == 1
    assert len(tg_api.cards(MANAGER_A)) == 1

    clock.advance(minutes=29)
    await handoff_job(hcore, settings)
    assert len(tg_api.cards(MANAGER_A)) == 1  # not due yet

    for n in range(1, MAX_RESENDS + 1):
        clock.advance(minutes=31)
        report = await handoff_job(hcore, settings)
        assert report["handoff_resent"] == 1
        assert len(tg_api.cards(MANAGER_A)) == 1 + n
        assert len(tg_api.cards(MANAGER_B)) == 1 + n
        assert f"reminder {n}" in tg_api.cards(MANAGER_A)[-1].visible_text
    clock.advance(minutes=31)
    await handoff_job(hcore, settings)
    assert len(tg_api.cards(MANAGER_A)) == 1 + MAX_RESENDS  # at most N reminders

    # taking it from a reminder updates every copy, the first cards included
    last = tg_api.cards(MANAGER_B)[-1]
    tg_api.press_as(last, take_data(last), user_id=MANAGER_B, name="Bob")
    await tg_api.wait_for("answerCallbackQuery")
    edits = await tg_api.wait_for("editMessageText", count=2 * (1 + MAX_RESENDS))
    assert all("taken by Bob" in e.visible_text for e in edits)


async def test_plain_question_raises_nothing_and_leads_are_for_managers_only(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core
) -> None:
    await telegram.start(hcore, [MANAGER_A, MANAGER_B])
    _, reply = await telegram.say("what is our SLA?", lang="en")
    assert t("lead.follow_up", "en") not in reply
    assert tg_api.cards(MANAGER_A) == []
    assert tg_api.cards(MANAGER_B) == []
    assert hcore.handoff is not None
    assert await hcore.handoff.leads() == []

    await telegram.say(INTEREST)
    _, refused = await telegram.say("/leads", lang="en")
    assert refused == "Sorry, leads are for managers only."
    assert "Ana" not in refused

    _, listing = await telegram.say("/leads", user_id=MANAGER_A, lang="en")
    assert "Ana" in listing
    assert "open" in listing
    assert "price, buy" in listing


def test_the_scheduler_runs_the_handoff_job(hcore: Core) -> None:
    scheduler = build_scheduler(hcore, Settings())
    job = scheduler.get_job("handoff")
    assert job is not None
    assert job.func is handoff_job


async def test_a_manager_closes_a_lead_by_button_or_by_command(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core, clock: ManualClock
) -> None:
    await telegram.start(hcore, [MANAGER_A, MANAGER_B])
    await telegram.say(INTEREST)
    (card_a,), (card_b,) = tg_api.cards(MANAGER_A), tg_api.cards(MANAGER_B)
    assert hcore.handoff is not None
    (lead,) = await hcore.handoff.leads()

    tg_api.press_as(card_b, close_data(card_b), user_id=1, name="Ana")  # not a manager
    (stranger,) = await tg_api.wait_for("answerCallbackQuery")
    assert stranger.params["text"] == "Sorry, leads are for managers only."
    assert (await hcore.handoff.leads())[0].status == "open"

    tg_api.press_as(card_a, close_data(card_a), user_id=MANAGER_A, name="Alice")
    _, closed = await tg_api.wait_for("answerCallbackQuery", count=2)
    assert closed.params["text"] == f"Lead {lead.id} closed."
    edits = await tg_api.wait_for("editMessageText", count=2)
    assert {int(e.params["chat_id"]) for e in edits} == {MANAGER_A, MANAGER_B}
    for edit in edits:
        assert "Status: closed by Alice" in edit.visible_text
        assert buttons(edit) == {}  # no buttons left

    tg_api.press_as(card_b, close_data(card_b), user_id=MANAGER_B, name="Bob")  # a stale copy
    *_, again = await tg_api.wait_for("answerCallbackQuery", count=3)
    assert again.params["text"] == "This lead is already closed."
    assert await hcore.handoff.leads() == []  # closed leads leave the list
    (gone,) = await hcore.handoff.leads(include_closed=True)
    assert (gone.status, gone.closed_by, gone.closed_by_name) == (
        "closed",
        "telegram:501",
        "Alice",
    )

    # the same client shows interest again: a new lead, closed this time with /close
    clock.advance(minutes=5)
    await telegram.say("Quero comprar a licença anual, qual é o preço?")
    (second,) = await hcore.handoff.leads()
    assert second.id != lead.id
    _, refused = await telegram.say(f"/close {second.id}", lang="en")
    assert refused == "Sorry, leads are for managers only."
    _, usage = await telegram.say("/close", user_id=MANAGER_B, lang="en")
    assert usage.startswith("Usage: /close")
    _, done = await telegram.say(f"/close {second.id}", user_id=MANAGER_B, lang="en")
    assert done == f"Lead {second.id} closed."
    _, twice = await telegram.say(f"/close {second.id}", user_id=MANAGER_B, lang="en")
    assert twice == "This lead is already closed."
    _, unknown = await telegram.say("/close h_nope", user_id=MANAGER_B, lang="en")
    assert unknown == "This lead no longer exists."
    assert await hcore.handoff.leads() == []


async def test_interest_overheard_in_a_group_reaches_managers_silently(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core
) -> None:
    await telegram.start(hcore, [MANAGER_A])
    group = -1001
    update = tg_api.message_update(
        group, INTEREST, user_id=42, chat_type="supergroup", first_name="Rui", language_code="pt"
    )
    tg_api.push(update)
    (card,) = [
        c
        for c in await tg_api.wait_for(
            "sendMessage", lambda c: int(c.params["chat_id"]) == MANAGER_A
        )
        if "reply_markup" in c.params
    ]
    assert "Rui" in card.visible_text and "plano anual" in card.visible_text
    assert "tg://user?id=42" in card.visible_text
    await asyncio.sleep(0.2)
    assert tg_api.texts(group) == []  # the bot was not addressed: it says nothing there
    stats = await hcore.stats(f"telegram:{group}")
    assert stats["messages"] == 1  # and the message is remembered


async def test_cards_come_in_each_managers_language(
    telegram: TelegramFront, tg_api: FlakyBotAPI, hcore: Core
) -> None:
    await telegram.start(
        hcore,
        [MANAGER_A, MANAGER_B],
        language="ru",  # the default for managers who set none
        manager_languages={f"telegram:{MANAGER_A}": "pt"},
    )
    _, reply = await telegram.say(INTEREST)
    assert t("lead.follow_up", "pt") in reply  # the client's own language
    (card_a,) = tg_api.cards(MANAGER_A)
    (card_b,) = tg_api.cards(MANAGER_B)
    assert "Quer: preço, comprar" in card_a.visible_text
    assert "Status: aberto" in card_a.visible_text
    assert list(buttons(card_a)) == ["Assumir", "Encerrar"]
    assert "Хочет: цена, покупка" in card_b.visible_text
    assert "Статус: открыт" in card_b.visible_text
    assert list(buttons(card_b)) == ["Взять", "Закрыть"]
    assert INTEREST in card_b.visible_text  # the client's words stay as they were said
