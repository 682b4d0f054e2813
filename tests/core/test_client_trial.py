"""Client questions from the trials of 2026-12-03 (a guesthouse, a car service, an online
school; en/pt/ru), through the real core on the offline multilingual model: each test failed
on the code before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.answers import tell_knowledge_base
from core.ports import Embedder
from core.service import Core
from core.store.pool import StorePool
from ontology import Ontology
from tests.core.telling import answer_after, tell_by_minute
from tests.doubles import ManualClock

GUESTHOUSE = [
    "Check-in from 3 pm to 10 pm, check-out until 11 am.",
    "O pequeno-almoço está incluído e é servido das 8h às 10h30.",
    "A double room costs 85 euros per night, the family room 120 euros.",
    "Pets are welcome, small dogs only, 10 euros per night.",
    "Cancelamento gratuito até 48 horas antes da chegada.",
]


@pytest.mark.parametrize(
    "question",
    [
        "how much is a double room in December?",
        "how much is a double room on Saturday?",
        "quanto custa o quarto duplo em dezembro?",
        "Сколько стоит двухместный номер в декабре?",
    ],
)
async def test_a_month_or_weekday_is_no_name_the_chat_never_mentioned(
    use_core: Core, question: str
) -> None:
    """ "December" is capitalised and no message writes it, so the question was answered "I
    have nothing about double room in December, December": a date is when, not what."""
    answer = await answer_after(use_core, GUESTHOUSE, question)
    assert "85" in answer, answer


SCHOOL = [
    "Welcome to Brightpath Academy, online courses in data science and design.",
    "The Data Science Bootcamp lasts 12 weeks and costs $1,900.",
    "Classes are live on Zoom, Tuesdays and Thursdays at 7 pm London time.",
    "No prior coding experience is needed for the bootcamp, but basic math helps.",
    "Graduates get a certificate and 3 months of career coaching.",
]


@pytest.mark.parametrize("question", ["how long is the bootcamp?", "quanto tempo dura o bootcamp?"])
async def test_how_long_is_answered_by_the_sentence_with_the_duration(
    use_core: Core, question: str
) -> None:
    """ "how long is the bootcamp?" quoted "No prior coding experience is needed for the
    bootcamp" (0.39 from the question with USE, the answer 0.30): "long" was an asked word no
    sentence holds, where a number holds it as it holds "how much"."""
    answer = await answer_after(use_core, SCHOOL, question)
    assert "12 weeks" in answer, answer


WAREHOUSE = [
    "Доставка по Москве — 500 рублей, по области — 900 рублей.",
    "Склад работает с 9 до 21 без выходных.",
    "Возврат в течение 14 дней при сохранении упаковки.",
]


@pytest.mark.parametrize(
    ("texts", "question", "expected"),
    [
        (WAREHOUSE, "what are the warehouse hours?", "с 9 до 21"),
        (SCHOOL, "do I need to know programming?", "No prior coding experience"),
    ],
)
async def test_a_sentence_near_in_meaning_answers_with_no_word_in_common(
    use_core: Core, texts: list[str], question: str, expected: str
) -> None:
    """A sentence three quarters of the way from two topics' distance to one topic's (0.27 to
    0.30 from these questions with USE) is quoted on its meaning alone; it needed a whole
    topic's closeness, so these found nothing."""
    answer = await answer_after(use_core, texts, question)
    assert expected in answer, answer


@pytest.mark.parametrize(
    ("texts", "question", "unknown", "nearest"),
    [
        (
            [*SCHOOL, "Students from Brazil and Portugal get a 15% discount."],
            "Есть ли скидка для студентов из России?",
            "России",
            "15% discount",
        ),
        (
            [*SCHOOL, "Students from Brazil and Portugal get a 15% discount."],
            "is there a discount for students from Mexico?",
            "Mexico",
            "15% discount",
        ),
    ],
)
async def test_a_name_the_chat_never_mentions_is_said_and_the_nearest_sentence_shown(
    use_core: Core, texts: list[str], question: str, unknown: str, nearest: str
) -> None:
    """The answer was only "I have nothing about France": the client did not learn where
    the shop does ship. It still says that first, then the sentence holding the rest of
    what the question asks."""
    answer = await answer_after(use_core, texts, question)
    lines = answer.splitlines()
    assert unknown in lines[0] and nearest not in lines[0], answer
    assert nearest in lines[1], answer


async def test_a_name_the_chat_never_mentions_shows_no_sentence_that_misses_the_rest(
    use_core: Core,
) -> None:
    """Nothing holds the rest of the question ("gift"): no sentence is shown."""
    answer = await answer_after(
        use_core,
        ["We ship to Portugal and Spain only, 3 to 5 days."],
        "do you sell Amazon gift cards?",
    )
    assert "Portugal" not in answer, answer


GUESTHOUSE_MORE = [
    *GUESTHOUSE,
    "Bem-vindos! Somos uma guesthouse no centro do Porto, na Rua das Flores 88.",
    "We can arrange an airport transfer for 25 euros, booked at least a day ahead.",
    "O Wi-Fi é grátis em todos os quartos, a senha está na recepção.",
    "Luggage can be left at reception after check-out, free of charge.",
    "The rooftop terrace is open from 5 pm to 9 pm in summer only.",
]


CAR_SERVICE = [
    "Автосервис «АвтоМастер»: Москва, ул. Лесная 12, работаем ежедневно с 8 до 20.",
    "Замена масла с фильтром — 2500 рублей, масло клиента или наше.",
    "Шиномонтаж на 4 колеса — 3200 рублей для R15-R17, от R18 — 4500.",
    "Диагностика подвески бесплатно при ремонте у нас, иначе 1000 рублей.",
    "Записаться можно по телефону +7 495 111-22-33 или через сайт.",
    "Гарантия на работы — 6 месяцев, на запчасти — по гарантии производителя.",
    "We also service electric cars: Tesla, Nissan Leaf, BYD.",
    "Хранение шин — 4000 рублей за сезон.",
    "Кузовной ремонт и покраску не делаем, рекомендуем партнёров «Кузов-Про».",
    "Оплата картой, наличными или по счёту для юрлиц.",
    "Пока машина в ремонте, можно подождать в клиентской зоне с кофе и Wi-Fi.",
    "С 1 ноября шиномонтаж на 4 колеса стоит 3500 рублей для R15-R17.",
    "Замена тормозных колодок — от 1800 рублей за ось.",
    "Эвакуатор не предоставляем.",
]


@pytest.mark.parametrize(
    ("texts", "question", "expected"),
    [
        (GUESTHOUSE_MORE, "where are you located?", "Rua das Flores 88"),
        (GUESTHOUSE_MORE, "what's your address?", "Rua das Flores 88"),
        (GUESTHOUSE_MORE, "где вы находитесь?", "Rua das Flores 88"),
        (
            [
                "Автосервис «АвтоМастер»: Москва, ул. Лесная 12, работаем с 8 до 20.",
                "Замена масла с фильтром — 2500 рублей.",
                "Гарантия на работы — 6 месяцев.",
            ],
            "onde vocês ficam?",
            "ул. Лесная 12",
        ),
        (CAR_SERVICE, "where are you?", "ул. Лесная 12"),  # ranked 10th: below the 8 quoted
    ],
)
async def test_where_the_company_is_is_answered_by_the_sentence_with_its_address(
    use_core: Core, texts: list[str], question: str, expected: str
) -> None:
    """ "where are you located?" found nothing: the address was written in another language
    and shares no word with the question (0.08 with USE). A sentence with a street and a
    number holds what an address question asks."""
    answer = await answer_after(use_core, texts, question)
    assert expected in answer, answer


async def test_where_someone_lives_asks_no_address(use_core: Core) -> None:
    """A "where" question about someone else is not answered by the company's street."""
    await tell_by_minute(
        use_core,
        [
            "Our shop is at Rua Augusta 1500, Lisbon.",
            "my ball python Monty eats one mouse a week",
            "Monty is a ball python",
            "meu píton mora num terrário de vidro",
        ],
    )
    answer = (await use_core.ask("c", "Onde o Monty mora?")).answer
    assert "terrário" in answer, answer


SALON = [
    "Салон «Лотос»: стрижка женская от 1800 ₽, мужская 1200 ₽",
    "маникюр с покрытием 2200, без покрытия 1200",
    "работаем без выходных с 10 до 21",
    "запись через WhatsApp +7 916 555-44-33 или в Instagram",
    "при опоздании больше чем на 15 минут запись может быть перенесена",
    "парковка во дворе бесплатная",
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("как записаться?", "через WhatsApp"),
        ("como faço para agendar?", "через WhatsApp"),
        ("а если я опоздаю?", "при опоздании"),
    ],
)
async def test_booking_and_being_late_are_asked_in_other_words_than_the_team_wrote(
    use_core: Core, question: str, expected: str
) -> None:
    """ "как записаться?" (how do I book?) answered "I have nothing about «записаться»": the
    team wrote "запись" (a booking), another word to the index and 0.20 from the question with
    USE. Booking and being late are everyday equivalents now."""
    answer = await answer_after(use_core, SALON, question)
    assert expected in answer, answer


async def test_a_verb_alone_is_never_said_back_as_something_unknown(use_core: Core) -> None:
    """ "во сколько вы закрываетесь?" answered "I have nothing about «закрываетесь»" (are you
    closing): the one word left of a question is said back only when it names a thing."""
    answer = await answer_after(
        use_core, ["маникюр с покрытием 2200, без покрытия 1200"], "во сколько вы закрываетесь?"
    )
    assert "закрываетесь" not in answer, answer


PARKING = [
    *GUESTHOUSE,
    "Não temos estacionamento próprio, mas há um parque público a 200 metros (15 euros por dia).",
    "We can arrange an airport transfer for 25 euros, booked at least a day ahead.",
]


async def test_a_follow_up_question_is_read_with_the_askers_previous_one(use_core: Core) -> None:
    """ "do you have parking?", then "how much is it?": the second question alone names
    nothing and found nothing. A short question that points back ("it", "isso", "это", or
    starting with "and") is read with the same person's question of the last minutes."""
    await tell_by_minute(use_core, PARKING)
    first = await use_core.ask("c", "do you have parking?", author="guest1")
    assert "estacionamento" in first.answer, first.answer
    answer = (await use_core.ask("c", "how much is it?", author="guest1")).answer
    assert "15 euros" in answer, answer
    answer = (await use_core.ask("c", "e quanto custa isso?", author="guest1")).answer
    assert "15 euros" in answer, answer


async def test_a_follow_up_asking_its_own_thing_keeps_only_what_the_last_was_about(
    use_core: Core,
) -> None:
    """ "quanto custa uma aula?", then "and on which days?": read with the whole of the last
    question, the price it asked took the quote to the price. The follow-up asks for the days;
    the last question gives only what it was about (the class)."""
    await tell_by_minute(
        use_core,
        [
            "a aula de yoga custa 12€, pacote de 10 aulas 100€",
            "yoga classes are monday, wednesday and friday at 18:30",
        ],
    )
    first = await use_core.ask("c", "quanto custa uma aula?", author="guest1")
    assert "12€" in first.answer, first.answer
    answer = (await use_core.ask("c", "and on which days?", author="guest1")).answer
    assert "wednesday" in answer.splitlines()[0], answer
    # a follow-up that asks nothing of its own still takes the whole of it
    await use_core.ask("c", "quanto custa uma aula?", author="guest2")
    answer = (await use_core.ask("c", "e o pacote?", author="guest2")).answer
    assert "100€" in answer.splitlines()[0], answer


async def test_a_follow_up_is_not_read_with_another_persons_question(use_core: Core) -> None:
    """Someone else's question, or one asked long before, is no context."""
    await tell_by_minute(use_core, PARKING)
    await use_core.ask("c", "do you have parking?", author="guest1")
    alone = (await use_core.ask("c", "how much is it?")).answer
    other = (await use_core.ask("c", "how much is it?", author="guest2")).answer
    assert "15 euros" not in other and other == alone, other


async def test_a_follow_up_is_not_read_with_a_question_of_long_ago(
    tmp_path: Path, use_embedder: Embedder, ontology: Ontology
) -> None:
    """The asker's question of more than ten minutes before is no context."""
    clock = ManualClock()
    pool = StorePool(tmp_path / "d", dim=use_embedder.dim, model_name=use_embedder.model_name)
    core = Core(pool=pool, embedder=use_embedder, ontology=ontology, clock=clock)
    try:
        await tell_by_minute(core, PARKING)
        await core.ask("c", "do you have parking?", author="guest1")
        clock.advance(minutes=9)
        assert "15 euros" in (await core.ask("c", "how much is it?", author="guest1")).answer
        clock.advance(minutes=11)
        late = (await core.ask("c", "how much is it?", author="guest1")).answer
        assert "15 euros" not in late, late
    finally:
        await core.close()


async def test_how_long_shows_no_later_price_under_the_duration(use_core: Core) -> None:
    """ "how long is the bootcamp?" quoted "lasts 12 weeks and costs $1,900" and, under it,
    "Later: the Data Science Bootcamp now costs $2,100": an update of the price, not of what
    was asked. A duration question is held by a sentence with a unit of time."""
    later = "Update: the Data Science Bootcamp now costs $2,100 from the January cohort."
    answer = await answer_after(use_core, [*SCHOOL, later], "how long is the bootcamp?")
    assert "12 weeks" in answer and "2,100" not in answer, answer


@pytest.mark.parametrize(
    ("question", "waits"),
    [
        ("Does Northwind depend on Contoso?", "waiting for review"),
        ("Northwind depende da Contoso?", "aguarda revisão"),
        ("Зависит ли Northwind от Contoso?", "ждёт проверки"),
    ],
)
async def test_a_no_says_when_the_statement_waits_for_review(
    use_core: Core, question: str, waits: str
) -> None:
    """ "Northwind depends on Contoso" waits for review (Northwind is a company here, and
    DEPENDS_ON links services), so "Does Northwind depend on Contoso?" answered a bare "No, I
    have no fact that ...", as if nobody had said it. The no now says a statement waits."""
    await tell_by_minute(use_core, ["Ann works at Northwind", "Northwind depends on Contoso"])
    assert await use_core.pending("c")
    answer = (await use_core.ask("c", question)).answer
    assert waits in answer, answer
    other = (await use_core.ask("c", "Does Ann work at Contoso?")).answer
    assert "review" not in other, other


PETS = [
    "Bom dia equipa! ☀️ semana cheia, vamos lá 💪",
    "bom dia! lembrete: para reclamações falem comigo (Inês Carvalho, sou a dona), reservas e"
    " horários é com o Dmitri",
    "Hospedagem do cão: 35 € por noite, com 2 passeios por dia incluídos 🐶",
    "Экзотических животных не берём — рептилии, птицы, хорьки нет. Только собаки и кошки",
]


@pytest.mark.parametrize(
    "question", ["who is the owner of the company?", "кто хозяин компании?", "quem é o dono?"]
)
async def test_who_owns_the_company_is_asked_in_other_words_than_the_team_wrote(
    use_core: Core, question: str
) -> None:
    """ "sou a dona" (I am the owner) is far from "who is the owner of the company?" by
    meaning (under 0.18 with USE); owner is an everyday equivalent now, and "company" in a
    question to a company's bot is the company itself, no word a sentence must hold."""
    answer = await answer_after(use_core, PETS, question)
    assert "sou a dona" in answer, answer


async def test_a_greeting_is_not_quoted_for_the_word_it_shares(use_core: Core) -> None:
    """ "vocês têm veterinário na equipa?" quoted "Bom dia equipa!" through "equipa" (a
    question of the blind company's tuning part)."""
    await tell_knowledge_base(use_core, "c", "patinhas")  # bench.answers --set patinhas
    answer = (await use_core.ask("c", "vocês têm veterinário na equipa?")).answer
    assert "Bom dia" not in answer, answer


async def test_qto_is_how_much(use_core: Core) -> None:
    """ "qto é a hospedagem do cão por noite" (qto: quanto) quoted a sentence without a price
    (a question of the blind company's tuning part)."""
    await tell_knowledge_base(use_core, "c", "patinhas")  # bench.answers --set patinhas
    answer = (await use_core.ask("c", "qto é a hospedagem do cão por noite")).answer
    assert "35 €" in answer, answer
