"""End to end: the real run_telegram (aiogram Bot + Dispatcher, long polling) against the fake
Bot API server, with the real core on a Kùzu database."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.telegram.common import chat_key
from core.models import TripleIn
from tests.telegram.conftest import BotRunner
from tests.telegram.fake_bot_api import BOT_USERNAME, Call, FakeBotAPI

STATEMENTS = (
    "checkout depends on payments",
    "payments depends on antifraud",
    "antifraud requires encryption at rest",
)
QUESTION = "which policy applies to checkout?"
PATH = "checkout → payments → antifraud → encryption at rest"


def to_chat(chat_id: int) -> Any:
    return lambda c: int(c.params.get("chat_id", 0)) == chat_id


async def replies(fake: FakeBotAPI, chat_id: int, count: int) -> list[str]:
    calls = await fake.wait_for("sendMessage", to_chat(chat_id), count=count)
    return [c.visible_text for c in calls]


async def tell(fake: FakeBotAPI, chat_id: int, *texts: str, **kwargs: Any) -> None:
    for text in texts:
        fake.send_text(chat_id, text, **kwargs)


def mention(text: str) -> dict[str, Any]:
    handle = f"@{BOT_USERNAME}"
    return {"entities": [{"type": "mention", "offset": text.index(handle), "length": len(handle)}]}


async def test_private_statements_then_question_answers_with_path(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    await tell(fake_api, 1, *STATEMENTS)
    await replies(fake_api, 1, 3)
    fake_api.send_text(1, QUESTION)
    answer = (await replies(fake_api, 1, 4))[-1]
    assert PATH in answer

    # Another chat is another memory: nothing of chat 1 leaks into its answer.
    fake_api.send_text(2, QUESTION, user_id=2)
    other = (await replies(fake_api, 2, 1))[0]
    for name in ("payments", "antifraud", "encryption"):
        assert name not in other

    assert fake_api.of("sendChatAction"), "typing action while answering"
    assert fake_api.of("deleteWebhook")
    languages = sorted(c.params.get("language_code", "") for c in fake_api.of("setMyCommands"))
    assert languages == ["", "pt", "ru"]
    names = [c["command"] for c in fake_api.of("setMyCommands")[0].params["commands"]]
    assert {"ask", "remember", "why", "worlds", "facts", "forget", "review", "export"} <= set(names)
    # aiogram asks only for the update types it has handlers for: buttons must be among them.
    allowed = fake_api.of("getUpdates")[-1].params["allowed_updates"]
    assert {"message", "callback_query"} <= set(allowed)


async def test_group_remembers_everything_but_answers_only_when_addressed(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    group = -1001
    kw: dict[str, Any] = {"chat_type": "supergroup"}
    await tell(fake_api, group, *STATEMENTS, **kw)
    fake_api.send_text(group, QUESTION, **kw)  # not addressed: remembered, not answered
    fake_api.send_text(group, "@other_bot " + QUESTION, **kw, **mention_of("@other_bot"))
    fake_api.send_text(group, "/help@other_bot", **kw)
    asked = f"@{BOT_USERNAME} {QUESTION}"
    fake_api.send_text(group, asked, **kw, **mention(asked))
    # Updates of one chat are handled in order, so the first reply is the mention's answer.
    first = (await replies(fake_api, group, 1))[0]
    assert PATH in first
    call = fake_api.of("sendMessage")[-1]
    assert call.params["reply_parameters"]["message_id"], "group answers reply to the question"

    # A reply to one of the bot's messages counts as addressing it.
    bot_message = call.result
    fake_api.send_text(group, QUESTION, **kw, reply_to=bot_message)
    second = (await replies(fake_api, group, 2))[-1]
    assert PATH in second
    # A command is always for the bot.
    fake_api.send_text(group, f"/ask {QUESTION}", **kw)
    third = (await replies(fake_api, group, 3))[-1]
    assert PATH in third
    assert len(fake_api.texts(group)) == 3
    # Everything said in the group was stored, answered or not.
    facts = await core.facts(chat_key(group))
    assert {f.subject for f in facts} >= {"checkout", "payments", "antifraud"}


async def test_forum_topics_share_their_chats_memory_and_get_answers_in_topic(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    group = -1003
    # Every topic message "replies" to the topic's root; here the bot created the topic, which
    # must not count as the message replying to the bot.
    root = {
        "message_id": 7,
        "date": 0,
        "chat": {"id": group, "type": "supergroup", "title": "forum"},
        "from": {"id": 123456, "is_bot": True, "first_name": "GraphMem"},
    }
    kw: dict[str, Any] = {"chat_type": "supergroup", "thread_id": 7, "reply_to": root}
    await tell(fake_api, group, *STATEMENTS, **kw)
    asked = f"@{BOT_USERNAME} {QUESTION}"
    fake_api.send_text(group, asked, chat_type="supergroup", thread_id=9, **mention(asked))
    answer = (await fake_api.wait_for("sendMessage", to_chat(group)))[0]
    assert PATH in answer.visible_text  # topic 9 sees what was said in topic 7
    assert answer.params["message_thread_id"] == "9"
    typing = [c for c in fake_api.of("sendChatAction") if to_chat(group)(c)]
    assert typing[0].params["message_thread_id"] == "9"
    assert len(fake_api.texts(group)) == 1  # the statements in topic 7 were not answered
    assert await core.facts(chat_key(group))


def mention_of(handle: str) -> dict[str, Any]:
    return {"entities": [{"type": "mention", "offset": 0, "length": len(handle)}]}


async def test_forget_entity_asks_first_and_only_the_asker_decides(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    await tell(fake_api, 1, *STATEMENTS)
    await replies(fake_api, 1, 3)

    fake_api.send_text(1, "/forget paymints")  # nothing here names it: no question asked
    assert 'nothing about "paymints"' in (await replies(fake_api, 1, 4))[-1]
    assert not [c for c in fake_api.of("sendMessage") if _has_buttons(c)]

    fake_api.send_text(1, "/forget payments")
    confirm = (await fake_api.wait_for("sendMessage", _has_buttons, count=1))[-1]
    # what it would take: both facts about payments, and the two messages that name it
    assert '"payments" in this chat: 2 facts and 2 messages' in confirm.visible_text
    yes, cancel = _buttons(confirm)
    fake_api.press(confirm, cancel)
    edited = await fake_api.wait_for("editMessageText")
    assert "nothing was forgotten" in edited[-1].visible_text
    assert await core.facts(chat_key(1), "payments")

    fake_api.send_text(1, "/forget payments")
    confirm = (await fake_api.wait_for("sendMessage", _has_buttons, count=2))[-1]
    yes, _ = _buttons(confirm)
    fake_api.press(confirm, yes)
    edited = await fake_api.wait_for("editMessageText", count=2)
    assert 'Forgotten: "payments"' in edited[-1].visible_text
    fake_api.send_text(1, "/facts payments")
    assert 'nothing about "payments"' in (await replies(fake_api, 1, 7))[-1]
    # Pressing an already used button only says it expired.
    fake_api.press(confirm, yes)
    answers = await fake_api.wait_for("answerCallbackQuery", count=3)
    assert "expired" in answers[-1].params.get("text", "")


async def test_forgetting_in_a_group_is_for_its_admins(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    group, admin, member = -1002, 10, 11
    fake_api.members[(group, admin)] = "administrator"
    kw: dict[str, Any] = {"chat_type": "group"}
    await tell(fake_api, group, *STATEMENTS, **kw, user_id=member)

    fake_api.send_text(group, "/forget all", **kw, user_id=member)
    refused = (await replies(fake_api, group, 1))[-1]
    assert "Only chat admins" in refused
    assert fake_api.of("getChatMember")
    # a name too: it takes every message that names it
    fake_api.send_text(group, "/forget payments", **kw, user_id=member)
    assert "Only chat admins" in (await replies(fake_api, group, 2))[-1]
    assert await core.facts(chat_key(group), "payments")

    # an admin asks, and is no admin any more when pressing: refused
    fake_api.send_text(group, "/forget payments", **kw, user_id=admin)
    confirm = (await fake_api.wait_for("sendMessage", _has_buttons))[-1]
    yes, _ = _buttons(confirm)
    fake_api.members[(group, admin)] = "member"
    fake_api.press(confirm, yes, user_id=admin)
    answer = (await fake_api.wait_for("answerCallbackQuery"))[-1]
    assert "Only chat admins" in answer.params["text"]
    assert await core.facts(chat_key(group), "payments")
    fake_api.members[(group, admin)] = "administrator"

    fake_api.send_text(group, "/forget all", **kw, user_id=admin)
    confirm = (await fake_api.wait_for("sendMessage", _has_buttons, count=2))[-1]
    yes, _ = _buttons(confirm)
    fake_api.press(confirm, yes, user_id=member)  # a bystander presses: refused
    answer = (await fake_api.wait_for("answerCallbackQuery", count=2))[-1]
    assert "Only the person who asked" in answer.params["text"]
    assert await core.facts(chat_key(group))

    fake_api.press(confirm, yes, user_id=admin)
    edited = await fake_api.wait_for("editMessageText")
    assert "memory is empty" in edited[-1].visible_text
    assert await core.facts(chat_key(group)) == []


async def test_review_approve_stores_the_fact(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    triple = TripleIn(
        subject="billing",
        subject_kind="service",
        predicate="DEPENDS_ON",
        object="ledger",
        object_kind="service",
        confidence=0.4,
    )
    result = await core.remember_triple(chat_key(1), triple)
    assert result.pending
    assert not result.stored

    fake_api.send_text(1, "/review")
    item = (await fake_api.wait_for("sendMessage", _has_buttons))[-1]
    assert "billing" in item.visible_text
    approve, _ = _buttons(item)
    fake_api.press(item, approve)
    edited = (await fake_api.wait_for("editMessageText"))[-1]
    assert "Approved by Ana" in edited.visible_text
    assert "reply_markup" not in edited.params  # the buttons are gone
    assert await core.pending(chat_key(1)) == []
    assert [f.object for f in await core.facts(chat_key(1), "billing")] == ["ledger"]

    # The same button again: the item is gone, so the buttons are simply retired.
    fake_api.press(item, approve)
    await fake_api.wait_for("editMessageReplyMarkup")

    fake_api.send_text(1, "/review")
    assert "Nothing waiting" in (await replies(fake_api, 1, 2))[-1]


async def test_export_sends_the_graph_as_a_json_document(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    await tell(fake_api, 1, *STATEMENTS)
    await replies(fake_api, 1, 3)
    fake_api.send_text(1, "/export")
    call = (await fake_api.wait_for("sendDocument"))[-1]
    filename, data = call.files["document"]
    assert filename.endswith(".json")
    dump = json.loads(data)
    assert "checkout" in json.dumps(dump, ensure_ascii=False)
    assert any(c.params.get("action") == "upload_document" for c in fake_api.of("sendChatAction"))


async def test_commands_reply_in_the_users_language(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    fake_api.send_text(1, "/help", language_code="pt-br")
    fake_api.send_text(1, "/start", language_code="ru")
    fake_api.send_text(1, "/nonsense")  # unknown commands get help
    fake_api.send_text(1, "/why")
    fake_api.send_text(1, "/ask")
    pt, ru, unknown, why, ask = await replies(fake_api, 1, 5)
    assert "Comandos:" in pt
    assert "Команды:" in ru
    assert "Привет" in ru
    assert "Commands:" in unknown
    assert "/forget" in unknown
    assert "not answered anything" in why
    assert "Usage: /ask" in ask


async def test_world_and_fact_listings_are_in_the_users_language(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    """/worlds and /facts listed their fields in English to a Portuguese or Russian user."""
    await bot_runner.start(core)
    await tell(fake_api, 1, *STATEMENTS)
    fake_api.send_text(1, "/worlds", language_code="pt-br")
    fake_api.send_text(1, "/worlds", language_code="ru")
    await replies(fake_api, 1, len(STATEMENTS) + 2)
    pt, ru = (c.visible_text for c in fake_api.of("sendMessage")[-2:])
    assert "mensagens" in pt and "maturidade" in pt and "messages" not in pt, pt
    assert "сообщений" in ru and "зрелость" in ru, ru


async def test_why_worlds_facts_and_remember_triple(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    await bot_runner.start(core)
    await tell(fake_api, 1, *STATEMENTS)
    fake_api.send_text(1, "/remember ledger | service | DEPENDS_ON | vault | service")
    fake_api.send_text(1, "/remember <b>x</b> | service | NOPE | y & z | service")
    fake_api.send_text(1, f"/ask {QUESTION}")
    fake_api.send_text(1, "/why")
    fake_api.send_text(1, "/worlds")
    fake_api.send_text(1, "/facts ledger")
    fake_api.send_text(1, "/remember <i>x</i> depends on y & z")
    texts = await replies(fake_api, 1, 10)
    remembered, refused, answer, why, worlds, facts, markup = texts[3:]
    assert "vault" in remembered or "ledger" in remembered
    assert "NOPE" in refused or "vocabulary" in refused or "can't" in refused
    assert PATH in answer
    assert "Path: " + PATH in why
    assert "Seeds:" in why
    assert "maturity" in worlds
    assert "ledger" in facts
    assert "vault" in facts
    # User text is escaped for HTML: shown literally, and Telegram (the fake) accepts it.
    assert "<i>x</i> DEPENDS_ON y & z" in markup


def _has_buttons(call: Call) -> bool:
    return "reply_markup" in call.params


def _buttons(call: Call) -> list[str]:
    rows = call.params["reply_markup"]["inline_keyboard"]
    return [button["callback_data"] for row in rows for button in row]


async def test_a_reply_in_a_group_is_remembered_as_the_reply_to_its_message(
    core: Any, bot_runner: BotRunner, fake_api: FakeBotAPI
) -> None:
    """A team member's Telegram reply answers the message it replies to, whatever the group
    said between: the front-end passes its id (IncomingMessage.reply_to) and the chat keeps
    the link (core/replies.py reads it)."""
    await bot_runner.start(core)
    group = -1009
    kw: dict[str, Any] = {"chat_type": "supergroup"}
    asked = fake_api.message_update(group, "who approves the backup invoices?", user_id=2, **kw)
    between = fake_api.message_update(group, "the van is back", user_id=3, **kw)
    reply = fake_api.message_update(
        group, "Joana approves them", user_id=4, reply_to=asked["message"], **kw
    )
    for update in (asked, between, reply):
        fake_api.push(update)
    chat, ids = chat_key(group), [str(u["message"]["message_id"]) for u in (asked, reply)]

    async def links() -> dict[str, str]:
        return await core.pool.run(chat, lambda s: dict(s.recall.replied_to))

    async with asyncio.timeout(20):
        while not await links():  # noqa: ASYNC110 - overheard messages leave no trace
            await asyncio.sleep(0.05)
    assert await links() == {ids[1]: ids[0]}
