"""Questions about what a team said among themselves, from the trials of 2026-12-04 (a family
chat and an office chat, en/pt/ru, several topics each): replies to the team's own questions
and "when" questions, through the real core on the offline multilingual model. Each end-to-end
test failed on the code before its fix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.index.words import MessageIndex
from core.replies import REPLY_S, thread_of
from core.service import Core

# (author, text, minutes since the message before)
FAMILY = [
    ("Ana", "we need to book the flights to Lisbon for the 20th of December", 0),
    ("Ana", "TAP has a direct flight at 7:40, 310 euros each", 1),
    ("Igor", "too early, the kids will be grumpy", 1),
    ("Igor", "there's one at 13:15 for 280 but with a stop in Madrid", 1),
    ("Ana", "ok let's take the 13:15 one", 1),
    ("Igor", "машина опять стучит спереди справа", 31),
    ("Igor", "записал её в сервис на Ленинском на четверг, 10 утра", 1),
    ("Ana", "сколько они сказали будет стоить?", 1),
    ("Igor", "диагностика 2500, а там посмотрим", 1),
    ("Ana", "a escola do Pedro mandou recado: reunião de pais na sexta às 18h", 61),
    ("Ana", "a professora dele se chama Dona Célia", 1),
    ("Igor", "eu não consigo ir, tenho treino", 1),
    ("Ana", "eu vou então", 1),
    ("Ana", "hotel in Lisbon: Casa do Bairro, 3 nights, 420 euros total", 21),
    ("Igor", "does it have parking? we'll rent a car there", 1),
    ("Ana", "yes, parking is 15 euros a night", 1),
    ("Igor", "в сервисе сказали — шаровая опора, замена 7800 с работой", 41),
    ("Igor", "забрать можно в пятницу после обеда", 1),
    ("Ana", "o Pedro precisa levar um livro de ciências para a escola na segunda", 16),
    ("Ana", "e a mensalidade da escola subiu para 950 reais", 1),
]

OFFICE = [
    ("Lena", "вечеринка на Новый год — бронируем ресторан «Пушкин» на 27 декабря", 0),
    ("Lena", "депозит 60 000, на 25 человек", 1),
    ("Oleg", "а кто собирает деньги?", 1),
    ("Lena", "Марина собирает, по 2500 с человека", 1),
    ("Rui", "o servidor de backup encheu de novo", 30),
    ("Rui", "vou pedir mais 2 TB ao fornecedor, custa uns 90 euros por mês", 1),
    ("Tom", "who approves that?", 1),
    ("Rui", "a Joana aprova, ela é a diretora financeira", 1),
    ("Oleg", "во сколько начинается вечеринка?", 40),
    ("Lena", "в 19:00, до полуночи", 1),
]


async def _answer(core: Core, chat: list[tuple[str, str, int]], question: str) -> str:
    ts = datetime(2026, 11, 1, 9, tzinfo=UTC)
    for author, text, minutes in chat:
        ts += timedelta(minutes=minutes)
        await core.remember("c", author=author, text=text, ts=ts)
    return (await core.ask("c", question, author="client")).answer


async def test_a_question_of_one_topic_is_answered_from_its_world(use_core: Core) -> None:
    """ "сколько стоит ремонт машины?" is routed to the car's world, and quoted the hotel's
    "yes, parking is 15 euros a night" (a reply that borrows "car" from "does it have parking?
    we'll rent a car there"): a sentence of the question's world now weighs more."""
    answer = await _answer(use_core, FAMILY, "сколько стоит ремонт машины?")
    assert "2500" in answer and "parking" not in answer, answer


@pytest.mark.parametrize(
    ("question", "expected", "not_expected"),
    [
        # asked in Russian, answered in Portuguese to a question in English: nothing was found
        ("кто одобряет оплату бэкапа?", "Joana", "нашёл"),
        # "во сколько" asks a time: its reply "в 19:00" answers no price (it took this one when
        # a reply got the meaning of any chat question before it)
        ("сколько стоит вечеринка с человека?", "2500 с человека", "19:00"),
        ("what time does the party start?", "19:00", "2500"),
    ],
)
async def test_replies_in_an_office_chat(
    use_core: Core, question: str, expected: str, not_expected: str
) -> None:
    answer = await _answer(use_core, OFFICE, question)
    assert expected in answer and not_expected not in answer, answer


SHOP = [
    ("Maria", "olá, vocês entregam aos domingos?", 0),
    ("Pedro", "olá Maria! aos domingos não, só de segunda a sábado", 1),
    ("John", "hi, do you have gluten free bread?", 1),
    ("Pedro", "yes, every Tuesday and Friday, 4.50 euros a loaf", 1),
    ("Olga", "добрый день, можно оплатить картой при доставке?", 1),
    ("Anna", "да, курьер принимает карты и наличные", 1),
    ("Pedro", "reminder for the team: flour delivery moved to Wednesday", 120),
]


async def test_a_reply_answers_a_client_but_lends_no_word_it_lacks(use_core: Core) -> None:
    """A shop's group chat, clients asking and the team replying. "do you deliver on
    Sundays?" quoted the flour delivery; and "do you sell coffee?", which no message answers,
    is still said to be unknown: the bread reply is as near as its question, but "coffee" is
    nowhere (it quoted the bread reply when the unknown-word rule read the inherited cosine)."""
    assert "domingos" in await _answer(use_core, SHOP, "do you deliver on Sundays?")
    answer = (await use_core.ask("c", "do you sell coffee?")).answer
    assert "coffee" in answer.split(".")[0] and "nothing" in answer, answer


async def test_a_when_question_is_answered_by_the_sentence_with_the_day(use_core: Core) -> None:
    """ "когда можно забрать машину?" quoted "машина опять стучит спереди справа" (the word
    "машина") over "забрать можно в пятницу после обеда", which says when."""
    answer = await _answer(use_core, FAMILY, "когда можно забрать машину?")
    assert "пятницу" in answer, answer


def _index(rows: list[tuple[str, str, float]]) -> MessageIndex:
    index = MessageIndex()
    t0 = datetime(2026, 11, 1, 9, tzinfo=UTC)
    for i, (author, text, seconds) in enumerate(rows):
        index.add(f"m{i}", author, text, t0 + timedelta(seconds=seconds))
    return index


def test_a_reply_is_the_next_message_by_someone_else_soon_after_a_question() -> None:
    index = _index(
        [
            ("Tom", "where will it go?", 0),
            ("Sara", "in the kitchen", 60),  # a reply
            ("Sara", "is the fridge full?", 120),
            ("Sara", "I will check", 130),  # the same author: no reply
            ("Tom", "who has the key?", 200),
            ("Sara", "me", 200 + REPLY_S + 1),  # too late
            ("Tom", "ok", 5000),
        ]
    )
    around = thread_of(index)
    asked, reply = around("m0")
    assert asked is None and reply is not None and reply.id == "m1"
    asked, reply = around("m1")
    assert asked is not None and asked.id == "m0" and reply is None
    assert around("m3") == (None, None)
    assert around("m5") == (None, None)
    assert around("unknown") == (None, None)
    # a link a front-end gave wins over adjacency, both ways, and a message that replies to
    # another by link is no reply to the question before it
    index.link("m5", "m4")  # "me" answers "who has the key?", though 10 minutes late
    index.link("m1", "m2")  # (as if) "in the kitchen" replied to a later question
    asked, reply = around("m5")
    assert asked is not None and asked.id == "m4"
    asked, reply = around("m4")
    assert reply is not None and reply.id == "m5"
    assert around("m0")[1] is None  # its next message answers something else


CATERING = [
    ("James", "for the website: corporate lunch buffet is 24€ per person, minimum 20 people", 0),
    ("James", "does anyone know if we can do halal? the Al Noor group wants a team lunch", 60),
    ("Inês", "sim, halal com 10 dias de antecedência", 2),
    ("Rafael", "Degustação às quintas, 60€ para duas pessoas, cada pessoa adicional 25€", 60),
]


async def test_a_number_of_people_is_asked_a_number_not_a_person(use_core: Core) -> None:
    """From the tuning part of a fifth company written blind (bench.answers --set sabor): "the
    min number of people" named the kind Person, and the answer listed one: "People: Al Noor
    group."."""
    answer = await _answer(
        use_core, CATERING, "whats the min number of people for the office lunch buffet"
    )
    assert "minimum 20 people" in answer and "Al Noor" not in answer, answer


def test_possessives_are_stop_words_in_the_three_languages() -> None:
    """ "posso levar a minha mãe e a minha sogra à degustação?" (sabor's tuning part) was
    answered "I have nothing about minha, minha, sogra": Portuguese and Russian possessives
    were content words of the question (English ones were stop words already)."""
    from core.recall import index_tokens

    for text in ("a minha sogra e o meu pai", "моя тёща и наш офис", "my mother and your office"):
        toks = set(index_tokens(text))
        assert not toks & {"meu", "minha", "мой", "моя", "наш", "my", "your"}, toks
        assert len(toks) == 2, toks


async def test_a_short_first_sentence_is_quoted_with_the_next(use_core: Core) -> None:
    """ "fazem bolo vegano? é mais caro?" quoted "Bolo vegano também fazemos!" alone, without
    "mesmo preço do normal" after it (sabor's tuning part)."""
    chat = [
        ("Camila", "Bolos de casamento: 42€ por kg, mínimo 3 kg", 0),
        ("Camila", "Bolo vegano também fazemos! mesmo preço do normal, só o recheio muda", 60),
    ]
    answer = await _answer(use_core, chat, "fazem bolo vegano? é mais caro?")
    assert "mesmo preço do normal" in answer, answer


async def test_a_message_with_a_question_inside_is_answered_by_the_next(use_core: Core) -> None:
    """ "noted. and what payment methods do we take? the bank client asked" ends with no "?",
    and its reply was not read with it: "можно оплатить картой?" quoted "I keep forgetting
    and the card is in the van" (sabor's tuning part)."""
    chat = [
        ("James", "noted. and what payment methods do we take? the bank client asked", 0),
        ("Inês", "transferência bancária, MB Way ou cartão (Visa/Mastercard)", 3),
        ("James", "I keep forgetting and the card is in the van", 60),
    ]
    answer = await _answer(use_core, chat, "можно оплатить картой?")
    assert "Visa/Mastercard" in answer, answer


async def test_a_reply_a_front_end_links_is_read_with_its_question_in_a_busy_chat(
    use_core: Core,
) -> None:
    """In a busy group the answer is rarely the next message: a Telegram reply or a Slack
    thread says which message it answers (IncomingMessage.reply_to), and that link is kept
    with the chat (read back when it is opened again)."""
    from core.models import IncomingMessage

    t0 = datetime(2026, 11, 1, 9, tzinfo=UTC)
    said = [
        ("q", "Ana", "quanto cobramos pela limpeza profunda de um T2?", None, 0),
        ("x1", "Bob", "the van is back from the garage", None, 3),
        ("x2", "Olga", "кто взял мой зарядник?", None, 5),
        ("x3", "Bob", "not me, check the kitchen", "x2", 6),
        ("a", "Dan", "uns 140 euros, com janelas 170", "q", 25),
    ]
    for mid, author, text, parent, minutes in said:
        message = IncomingMessage(
            author=author,
            text=text,
            message_id=mid,
            ts=t0 + timedelta(minutes=minutes),
            reply_to=parent,
        )
        await use_core.remember_message("c", message)
    for _ in range(2):
        answer = (await use_core.ask("c", "how much is a deep cleaning of a T2?")).answer
        assert "140 euros" in answer and "nothing" not in answer, answer
        await use_core.pool.discard("c")  # opened again: the link is read back
