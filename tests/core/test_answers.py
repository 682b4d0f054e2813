"""Issue 17 through the real core (real Kùzu, the offline model): the direct answer first, in
the question's language, from messages as well as facts, and nothing that reads as garbage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bench.answers import says_it_does_not_know
from core.models import IncomingMessage, TripleIn
from core.ports import Embedder
from core.service import Core
from core.texts import t
from ontology import Ontology
from tests.conftest import build_core

CHAINS = {
    "en": ["checkout depends on payments", "payments depends on antifraud"],
    "pt": ["checkout depende de pagamentos", "pagamentos depende do antifraude"],
    "ru": ["чекаут зависит от платежей", "платежи зависят от антифрода"],
}
POLICY = {
    "en": "antifraud requires encryption at rest",
    "pt": "antifraude exige criptografia em repouso",
    "ru": "антифрод требует шифрование данных",
}


async def _tell(core: Core, chat: str, *texts: str) -> None:
    for text in texts:
        await core.remember(chat, author="Ana", text=text, ts=datetime(2026, 11, 2, tzinfo=UTC))


@pytest.mark.parametrize(
    ("lang", "yes_q", "no_q", "yes", "no"),
    [
        (
            "en",
            "Does checkout depend on antifraud?",
            "Does antifraud depend on payments?",
            "Yes",
            "No",
        ),
        (
            "pt",
            "O checkout depende do antifraude?",
            "O antifraude depende de pagamentos?",
            "Sim",
            "Não",
        ),
        ("ru", "Зависит ли чекаут от антифрода?", "зависит ли антифрод от платежей?", "Да", "Нет"),
    ],
)
async def test_yes_no_in_three_languages_and_word_orders(
    real_core: Core, lang: str, yes_q: str, no_q: str, yes: str, no: str
) -> None:
    await _tell(real_core, lang, *CHAINS[lang])
    got = await real_core.ask(lang, yes_q)
    assert got.answer.startswith(yes), got.answer
    assert got.language == lang
    answer = (await real_core.ask(lang, no_q)).answer
    assert answer.startswith(no), answer
    assert "→" in answer  # the known other direction explains the "no"


@pytest.mark.parametrize(
    ("lang", "question", "no", "unknown"),
    [
        ("en", "Does billing depend on antifraud?", "No", "billing"),
        ("pt", "O faturamento depende do antifraude?", "Não", "faturamento"),
        ("ru", "Зависит ли биллинг от антифрода?", "Нет", "биллинг"),
    ],
)
async def test_a_yes_no_question_about_an_unknown_name_is_a_no_not_other_facts(
    real_core: Core, lang: str, question: str, no: str, unknown: str
) -> None:
    # antifraud is known, billing is not: its facts about payments are no answer to this
    await _tell(real_core, lang, *CHAINS[lang])
    got = await real_core.ask(lang, question)
    assert got.answer.startswith(no), got.answer
    assert unknown in got.answer
    assert not got.paths


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "Which service depends on antifraud?"),
        ("ru", "Какой сервис зависит от антифрода?"),
        ("pt", "Qual serviço depende do antifraude?"),
    ],
)
async def test_a_question_that_asks_is_not_answered_like_a_yes_no_one(
    real_core: Core, lang: str, question: str
) -> None:
    # "service" is no name the chat knows, yet the question asks which one: not a "no"
    await _tell(real_core, lang, *CHAINS[lang])
    got = await real_core.ask(lang, question)
    assert not got.answer.startswith(("No,", "Não,", "Нет,")), got.answer


@pytest.mark.parametrize(
    ("lang", "question", "value", "label"),
    [
        ("en", "Which policy applies to checkout?", "encryption at rest", "Policy:"),
        ("pt", "Qual política se aplica ao checkout?", "criptografia em repouso", "Política:"),
        ("ru", "Какая политика действует для чекаута?", "шифрование данных", "Политика:"),
    ],
)
async def test_kind_question_answers_with_the_value_first(
    real_core: Core, lang: str, question: str, value: str, label: str
) -> None:
    await _tell(real_core, lang, *CHAINS[lang], POLICY[lang])
    answer = (await real_core.ask(lang, question)).answer
    first, *support = answer.splitlines()
    assert first == f"{label} {value}."
    assert support and "→" in support[0]  # the path: it took several steps


async def test_which_service_lists_only_the_one_it_asks_about(real_core: Core) -> None:
    await _tell(real_core, "c", *CHAINS["en"], POLICY["en"])
    answer = (await real_core.ask("c", "which service is subject to encryption at rest?")).answer
    assert answer == "Service: antifraud."  # no stray "no facts about service" before it


async def test_which_language_lists_only_languages(real_core: Core) -> None:
    await _tell(
        real_core,
        "c",
        "billing uses Python",
        "billing uses Redis",
        "Python is a programming language",
        "Redis is a database",
    )
    assert (
        await real_core.ask("c", "which language does billing use?")
    ).answer == "Language: Python."
    pt = (await real_core.ask("c", "que linguagem o billing usa?")).answer
    assert pt.startswith("Linguagem: Python") and "Redis" not in pt


async def test_a_message_answers_when_no_fact_does(real_core: Core) -> None:
    await _tell(
        real_core,
        "c",
        "Pricing update for everyone: the Pro plan is $49 per seat per month. Starter is free.",
        "checkout depends on payments",
    )
    answer = await real_core.ask("c", "How much is the Pro plan? We want to buy 20 seats.")
    first = answer.answer.splitlines()[0]
    # with its lead-in, which says what the sentence is about ("Aparelho ortodôntico fixo:
    # R$ 250 por mês de manutenção" was quoted without the braces)
    assert first.startswith("“Pricing update for everyone: the Pro plan is $49 per seat"), first
    assert "Ana" in first and "2026-11-02" in first
    assert "no facts" not in answer.answer.lower()


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
async def test_nothing_found_is_one_clear_sentence(real_core: Core, lang: str) -> None:
    await _tell(real_core, "c", *CHAINS["en"])
    question = {
        "en": "How much is the Pro plan? We want to buy 20 seats.",
        "pt": "Quanto custa o plano Pro para 20 pessoas?",
        "ru": "Сколько стоит тариф Про на 20 мест?",
    }[lang]
    answer = (await real_core.ask("c", question)).answer
    assert answer == t("nothing_found", lang)


async def test_reply_language_follows_the_chat_for_short_messages(real_core: Core) -> None:
    await _tell(real_core, "c", *CHAINS["pt"])
    reply = await real_core.handle_message(
        "c", IncomingMessage(author="cli", text="Quanto custa o plano anual?")
    )
    assert reply.answer is not None and reply.answer.language == "pt"
    short = await real_core.handle_message("c", IncomingMessage(author="cli", text="checkout?"))
    assert short.answer is not None and short.answer.language == "pt"  # the chat's language


async def test_a_message_in_another_language_answers_through_everyday_equivalents(
    real_core: Core,
) -> None:
    await _tell(real_core, "c", "reminder: the free trial is 14 days, no credit card needed")
    answer = await real_core.ask("c", "Tem teste grátis?")
    assert answer.language == "pt"
    assert "14 days" in answer.answer and "de uma mensagem de Ana" in answer.answer


async def test_a_lead_in_before_a_colon_is_quoted_with_what_follows(real_core: Core) -> None:
    await _tell(
        real_core,
        "c",
        "Where the data lives: customer data is hosted in Frankfurt. Brazil can pick São Paulo.",
        "lol the coffee machine is broken again",
    )
    answer = (await real_core.ask("c", "where does the data live?")).answer
    assert answer.startswith("“Where the data lives: customer data is hosted in Frankfurt.”")


async def test_a_replaced_value_is_not_quoted_as_what_holds_now(
    tmp_path: Path, ontology: Ontology, real_embedder: Embedder
) -> None:
    """ "Ann works at Acme", then "Ann works at Globex": the first message is history. Quoted,
    it answered "where does Ann work?" with Acme; after a restart as well as live."""
    data = tmp_path / "data"
    core = build_core(data, real_embedder, ontology)
    day = datetime(2026, 11, 2, tzinfo=UTC)
    await core.remember("c", author="Bob", text="Ann works at Acme", ts=day)
    await core.remember("c", author="Bob", text="Ann works at Globex", ts=day + timedelta(days=3))
    for restarted in (False, True):
        if restarted:
            await core.close()
            core = build_core(data, real_embedder, ontology)
        where = (await core.ask("c", "where does Ann work?")).answer
        assert "Globex" in where and "Acme" not in where, (restarted, where)
        no = (await core.ask("c", "does Ann work at Acme?")).answer
        assert no == "No, not any more. What holds now: Ann works at Globex.", no
        pt = (await core.ask("c", "a Ann trabalha na Acme?")).answer
        assert pt.startswith("Não, não mais.") and "Globex" in pt, pt
        never = (await core.ask("c", "does Ann work at Initech?")).answer
        assert never.startswith("No, I have no fact that Ann works at Initech"), never
    await core.close()


async def test_a_denied_fact_is_answered_as_no_longer_true(real_core: Core) -> None:
    """ "Ann doesn't work at Acme anymore": asked later, the fact held once and does not now;
    "I have no fact that ..." read as if it never had."""
    day = datetime(2026, 11, 2, tzinfo=UTC)
    await real_core.remember("c", author="Bob", text="Ann works at Acme", ts=day)
    await real_core.remember(
        "c", author="Bob", text="Ann doesn't work at Acme anymore", ts=day + timedelta(days=1)
    )
    no = (await real_core.ask("c", "does Ann work at Acme?")).answer
    assert no == "No, not any more.", no


async def test_a_russian_answer_puts_the_object_in_the_case_its_verb_governs(
    real_core: Core,
) -> None:
    """ "Анна работает в Сбербанк" reads as broken Russian: the object takes the case of the
    phrase before it, as the person wrote it ("работает в Сбербанке")."""
    await _tell(real_core, "ru", *CHAINS["ru"], "Анна работает в Яндексе")
    await real_core.remember(
        "ru", author="Ana", text="Анна работает в Сбербанке", ts=datetime(2026, 11, 9, tzinfo=UTC)
    )
    yes = (await real_core.ask("ru", "Зависит ли чекаут от антифрода?")).answer
    assert yes.startswith("Да, чекаут зависит от антифрода."), yes
    no = (await real_core.ask("ru", "Работает ли Анна в Яндексе?")).answer
    assert no == "Нет, уже нет. Сейчас верно: Анна работает в Сбербанке.", no


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "where is checkout located?"),
        ("en", "what does billing use?"),
        ("pt", "Onde fica o checkout?"),
        ("ru", "Где находится биллинг?"),
    ],
)
async def test_a_wh_question_about_a_name_the_chat_never_used_says_so(
    use_core: Core, lang: str, question: str
) -> None:
    """ "where is checkout located?" with its verb split around the name did not parse, so it
    named nothing unknown and was answered from the nearest entity: "Анна works at Сбер."
    (USE, the bot's offline model, whose cosines put "Анна" near enough to be a seed)."""
    await _tell(use_core, lang, "Ann works at Acme", "A Ana trabalha na Petrobras")
    await _tell(use_core, lang, "Анна работает в Сбере")
    got = await use_core.ask(lang, question)
    assert got.unknown and not got.facts, got.answer
    assert not {"Acme", "Petrobras", "Сбер"} & set(got.answer.replace(".", " ").split())
    lead = t("nothing_about", lang, names="XX").split("XX")[0]
    assert got.answer.startswith(lead), got.answer


@pytest.mark.parametrize(
    ("lang", "fact", "question", "answer"),
    [
        ("en", "Ann works at Acme", "where does Ann work?", "Ann works at Acme."),
        ("pt", "A Ana trabalha na Petrobras", "Onde a Ana trabalha?", "Ana trabalha na Petrobras."),
        ("ru", "Анна работает в Сбере", "Где работает Анна?", "Анна работает в Сбере."),
    ],
)
async def test_where_someone_works_is_answered_with_the_fact(
    use_core: Core,
    lang: str,
    fact: str,
    question: str,
    answer: str,
) -> None:
    """The question's verb split around the name ("where does Ann work") did not parse, so it
    asked for a place and got the message quoted instead of the fact."""
    await _tell(use_core, lang, fact, "checkout is located in Lisbon")
    got = await use_core.ask(lang, question)
    assert got.answer.splitlines()[0] == answer, got.answer


TEAM_IN_THREE_LANGUAGES = (
    "Доставка в Москву не осуществляется, только по Португалии и Испании.",
    "Склад в Порту работает с 8 до 18, по субботам до 13.",
    "Returns are accepted within 30 days, the client pays return shipping.",
    "O Carlos é o gerente de contas dos clientes corporativos.",
    "the office coffee machine is broken again, it leaks water",
)


@pytest.mark.parametrize(
    ("lang", "question", "quoted"),
    [
        ("en", "do you deliver to Moscow?", "Доставка в Москву"),
        ("pt", "Vocês entregam em Moscou?", "Доставка в Москву"),
        ("pt", "Posso devolver um produto?", "Returns are accepted within 30 days"),
        ("ru", "Кто менеджер для корпоративных клиентов?", "O Carlos é o gerente de contas"),
    ],
)
async def test_a_message_in_another_language_answers_through_the_models_translations(
    use_core: Core,
    lang: str,
    question: str,
    quoted: str,
) -> None:
    """The question shares no word with the message that answers it, which was told in another
    language, and the everyday equivalents (core/vocabulary.py) do not list these words: it
    was answered "I could not find anything". The model's word vectors bridge them."""
    await _tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
    got = await use_core.ask("c", question)
    assert got.language == lang
    assert quoted in got.answer.splitlines()[0], got.answer


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "Do you have a mobile app?"),
        ("pt", "Vocês têm estacionamento?"),
        ("ru", "Какой у вас номер телефона?"),
    ],
)
async def test_a_question_no_message_answers_in_any_language_still_finds_nothing(
    use_core: Core, lang: str, question: str
) -> None:
    """The bridge counts only a word and its translation, not a related word ("CEO" and
    "gerente" are 0.58 apart with USE): a question about something the team never told is
    not answered with a message in another language. (A question that shares a translated
    word with a message, "Vocês aceitam pagamento com cartão?" and "Returns are accepted ...,
    the client pays", quotes it, as the same words in one language always did.)"""
    await _tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
    got = await use_core.ask("c", question)
    # or "I have nothing about parking" ("vocês", a pronoun, is no longer part of the phrase)
    assert says_it_does_not_know(got.answer, lang), got.answer
    assert "“" not in got.answer and "«" not in got.answer, got.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("can I leave my suitcase with you for the day?", "luggage storage"),
        ("Vocês guardam bagagem?", "luggage storage"),
        ("when do you close on sundays?", "domingos fechamos"),
    ],
)
async def test_a_paraphrased_question_quotes_the_message_that_answers_it(
    use_core: Core, question: str, quoted: str
) -> None:
    """A client's words are not the team's ("suitcase" against "luggage storage"): word
    overlap quoted another message that shared "day" or nothing at all; the sentences' meaning
    (core/quote.py) picks the one that answers. The model is the limit: USE puts "Posso
    deixar a minha mala aí durante o dia?" at 0.14 from the luggage message and 0.24 from the
    Sunday one, so that question still quotes the Sunday hours."""
    await _tell(
        use_core,
        "c",
        "city bikes are 15 € per day, the basket is included",
        "we have luggage storage at the shop, 4 € per bag",
        "aos domingos fechamos às 14h, nos outros dias às 19h",
        "lunch anyone? the place on the corner has a new menu",
    )
    got = await use_core.ask("c", question)
    assert quoted in got.answer.splitlines()[0], got.answer


async def test_the_evidence_holds_the_messages_nearest_the_question_by_meaning(
    tmp_path: Path, use_embedder: Embedder
) -> None:
    """The evidence a model is given (and /why shows) is fused from several signals, and
    fusion put the message nearest by meaning below ten messages that shared the question's
    words (a question asked in another language than its answer). On the second company of
    bench/answers.py the expected value was then missing from what an LLM is given for 3 of
    60 questions (1 with it). Its tuning part only."""
    from bench.answers import CHAT, load_questions, make_core, tell_knowledge_base

    core = make_core(tmp_path, use_embedder)
    try:
        await tell_knowledge_base(core, kb_set="velo")
        store = await core.pool.run(CHAT, lambda s: s)
        for q in [q for q in load_questions("velo") if q.split == "tune"]:
            answer = await core.ask(CHAT, q.question)
            qv = use_embedder.embed([q.question])[0]
            sims = store.message_vectors.scores(qv)
            best = store.message_vectors.ids[int(sims.argmax())]
            assert best in answer.evidence, q.question
    finally:
        await core.close()


@pytest.mark.parametrize(
    ("lang", "question", "name"),
    [
        ("en", "how much is the Premium plan per seat?", "Premium"),
        ("pt", "Quanto custa o plano Premium?", "Premium"),
        ("ru", "сколько стоит тариф Ultimate?", "Ultimate"),
    ],
)
async def test_a_question_about_a_name_the_chat_never_mentions_is_not_answered_with_another(
    use_core: Core, lang: str, question: str, name: str
) -> None:
    """Quoted before: the Pro plan's price for the Premium plan's. A client reads that as the
    answer; the bot now says it has nothing about Premium (and a person can follow up)."""
    await _tell(
        use_core,
        "c",
        "Pricing update: the Pro plan is $49 per seat per month, billed annually.",
        "O plano Team custa R$ 129 por usuário/mês.",
        "тариф Enterprise стоит от 390 000 ₽ в год",
    )
    got = await use_core.ask("c", question)
    assert got.answer.startswith(t("nothing_about", lang, names=name)[:12]), got.answer
    assert name in got.answer and name in got.unknown, got.answer
    # the plans the chat does know are still answered
    known = await use_core.ask("c", question.replace(name, "Pro" if lang != "ru" else "Enterprise"))
    assert "“" in known.answer or "«" in known.answer, known.answer


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("what does Monty eat?", "eats one mouse a week"),
        ("O que o Monty come?", "eats one mouse a week"),
        ("Сколько мышей в неделю ест Монти?", "eats one mouse a week"),
        # "ест" and "есть" ("there is") share a dictionary form; "Монти" lemmatises as a verb
        ("Что ест Монти?", "eats one mouse a week"),
        ("Где живёт Монти?", "mora num terrário"),
        ("Onde o Monty mora?", "mora num terrário"),
    ],
)
async def test_the_quick_starts_what_does_monty_eat_quotes_the_message_that_says_it(
    use_core: Core, question: str, quoted: str
) -> None:
    """The README's quick start chat. USE puts the question 0.55 from "Monty is a ball python"
    and 0.36 from the message that answers it, and the meaning score followed the model; a
    sentence holding the word the question asks with ("eat") now comes first. In Portuguese
    "come" is that word only as "comer" (its dictionary form, 0.88 from "eats"; as written,
    0.63); in Russian "Монти" names Monty, so it is no name the chat never mentioned."""
    await _tell(
        use_core,
        "c",
        "checkout depends on payments",
        "payments depends on antifraud",
        "antifraud requires encryption at rest",
        "my ball python Monty eats one mouse a week",
        "Monty is a ball python",
        "meu píton mora num terrário de vidro",
    )
    got = await use_core.ask("c", question)
    assert quoted in got.answer.splitlines()[0], got.answer


async def test_facts_that_answer_something_else_are_introduced_as_what_it_knows(
    use_core: Core,
) -> None:
    """No message says what Monty eats and no fact holds it: the facts about Monty are still
    worth giving, but not as if they answered ("Monty является ball python." to "Что ест
    Монти?"). A question that only asks who or what Monty is gets them as the answer."""
    fact = TripleIn(
        subject="Monty",
        subject_kind="concept",
        predicate="IS_A",
        object="ball python",
        object_kind="concept",
    )
    await use_core.remember_triple("c", fact, author="Ana")
    for lang, question in (
        ("en", "what does Monty eat?"),
        ("pt", "O que o Monty come?"),
        ("ru", "Что ест Монти?"),
    ):
        got = await use_core.ask("c", question)
        first, *rest = got.answer.splitlines()
        assert first == t("not_direct", lang), got.answer
        assert rest and "Monty" in rest[0] and "ball python" in rest[0], got.answer
    for question in ("who is Monty?", "O que é o Monty?", "Кто такой Монти?"):
        got = await use_core.ask("c", question)
        assert got.answer.startswith("Monty") and "ball python" in got.answer, got.answer


@pytest.mark.parametrize("question", ["Who is the CTO of Acme?", "Quem é o CTO da Acme?"])
async def test_a_who_question_is_answered_by_the_sentence_that_says_it_not_by_a_neighbour(
    use_core: Core, question: str
) -> None:
    """No fact says who the CTO is (no predicate holds it): the graph reaches Ann from Acme
    and the answer was "Person: Ann.", said as the answer. The sentence that holds what the
    question asks about ("CTO") answers it."""
    await _tell(use_core, "c", "Ann works at Acme", "Bob is the CTO of Acme")
    got = await use_core.ask("c", question)
    assert "Bob is the CTO of Acme" in got.answer, got.answer
    # the graph still answers where it holds what is asked
    got = await use_core.ask("c", "Who works at Acme?")
    assert "Ann" in got.answer.splitlines()[0], got.answer


async def test_a_question_someone_asked_is_never_quoted_as_the_answer(use_core: Core) -> None:
    """A chat holds questions too (a group's members ask each other); quoted, one read as the
    bot's answer ("«Кто брал мой торцевой ключ?»" to "who owns the company?")."""
    await _tell(use_core, "c", "does anyone know where the spare keys are?")
    got = await use_core.ask("c", "where are the spare keys?")
    assert "anyone know" not in got.answer, got.answer


async def test_a_short_russian_name_is_asked_about_in_latin_letters(use_core: Core) -> None:
    """ "Ivan" named nobody in a chat that wrote "Иван" (too short for a sound key): "Does Ivan
    work at Sber?" was "No", and "Where does Ivan work?" quoted the message a later one had
    replaced."""
    await _tell(use_core, "c", "Иван работает в Яндексе")
    await _tell(use_core, "c", "Иван больше не работает в Яндексе", "Иван работает в Сбере")
    got = await use_core.ask("c", "Does Ivan work at Sber?")
    assert got.answer.startswith(t("yes_fact", "en", fact="")[:4]), got.answer
    got = await use_core.ask("c", "Where does Ivan work?")
    assert "Сбер" in got.answer and "Яндекс" not in got.answer, got.answer


async def test_where_someone_works_is_not_answered_with_where_their_company_is(
    use_core: Core,
) -> None:
    """ "where" asks for a place, but "work" asks for WORKS_AT's object: the place the graph
    reaches beyond Acme ("Place: Lisbon.") answered before, with every fact about Ann below."""
    await _tell(
        use_core, "c", "Ann works at Acme", "Acme is located in Lisbon", "Bob reports to Ann"
    )
    for question, line in (
        ("where does Ann work?", "Ann works at Acme."),
        ("Onde trabalha a Ann?", "Ann trabalha na Acme."),
    ):
        got = await use_core.ask("c", question)
        assert got.answer == line, got.answer
    got = await use_core.ask("c", "where is Acme located?")  # the place, when it is asked
    assert "Lisbon" in got.answer.splitlines()[0], got.answer
    got = await use_core.ask("c", "Где работает Анн?")  # too short to bridge: said once
    assert got.answer.count("Анн") == 1, got.answer


async def test_chit_chat_answers_only_what_it_shares_a_word_with(use_core: Core) -> None:
    """ "?" was answered by quoting "ok" (short messages are near each other by meaning); a
    short message that shares a word with the question still answers it."""
    await _tell(use_core, "c", "ok", "hi", "Pix, sim")
    got = await use_core.ask("c", "?")
    assert "“" not in got.answer and "«" not in got.answer, got.answer
    got = await use_core.ask("c", "Vocês aceitam Pix?")
    assert "Pix, sim" in got.answer, got.answer


async def test_a_question_of_no_words_lists_no_facts(use_core: Core) -> None:
    """ "?" was answered "I have no direct answer to that. What I know:" and the facts nearest
    the vector of a lone question mark."""
    await _tell(use_core, "c", *CHAINS["en"], POLICY["en"])
    for question in ("?", "🙂?", "?!"):
        got = await use_core.ask("c", question)
        assert got.answer == t("nothing_found", "en") and not got.facts, got.answer


async def test_a_later_message_on_the_same_thing_is_shown_under_the_quote(use_core: Core) -> None:
    """ "the flexible desk costs 120 euros", then weeks later "from December the flexible desk
    costs 130 euros": the client asking the price read only the first (an outdated price).
    A later sentence that restates the quote (as close as USE puts updates) and holds the
    asked words it holds is shown under it, dated; a sibling with another name ("Business
    plan") and unrelated later messages are not."""
    day = datetime(2026, 11, 1, tzinfo=UTC)
    early = [
        "A mesa fixa custa 180 euros por mês e a mesa flexível custa 120 euros por mês.",
        "The Basic plan is $19 per month.",
        "The Business plan is $79 per month.",
        "Day pass is 15 euros and includes coffee.",
        "Estamos abertos de segunda a sexta, das 8h às 20h.",
    ]
    for i, text in enumerate(early):
        await use_core.remember("c", author="Rita", text=text, ts=day + timedelta(minutes=i))
    later = day + timedelta(days=19)
    await use_core.remember(
        "c",
        author="Rita",
        text="A partir de dezembro a mesa flexível passa a custar 130 euros por mês.",
        ts=later,
    )
    await use_core.remember(
        "c", author="João", text="Lockers are 10 euros per month.", ts=later + timedelta(hours=1)
    )
    for question, lead in (
        ("how much is a flexible desk?", "Later:"),
        ("quanto custa a mesa flexível?", "Depois:"),
    ):
        answer = (await use_core.ask("c", question)).answer
        assert "130 euros" in answer, answer
        if "120 euros" in answer:  # the old price is quoted: the new one comes under it
            assert answer.index(lead) < answer.index("130 euros"), answer
            assert "2026-11-20" in answer, answer
    # an update of one item of a sentence that priced two (0.40 from it by meaning)
    await use_core.remember(
        "c",
        author="Марина",
        text="Групповое занятие стоит 900 рублей, индивидуальное — 2000 рублей за 60 минут.",
        ts=day + timedelta(days=1),
    )
    await use_core.remember(
        "c",
        author="Марина",
        text="С ноября индивидуальное занятие стоит 2200 рублей.",
        ts=later + timedelta(days=1),
    )
    lesson = (await use_core.ask("c", "Сколько стоит индивидуальное занятие?")).answer
    assert "2200" in lesson, lesson
    assert "2000" not in lesson or lesson.index("Позже:") < lesson.index("2200"), lesson
    # an update that says no price word ("passa para"), and a question whose words no
    # sentence holds (Russian against Portuguese): the restatement alone decides
    await use_core.remember(
        "d", author="Paulo", text="Clareamento a laser custa 900 reais.", ts=day
    )
    await use_core.remember(
        "d",
        author="Carla",
        text="Atualização: a partir de novembro o clareamento a laser passa para 1000 reais.",
        ts=later,
    )
    for question in ("quanto custa o clareamento?", "Сколько стоит отбеливание?"):
        whitening = (await use_core.ask("d", question)).answer
        assert "1000 reais" in whitening, whitening
    # a price of another thing, as alike as a restatement (0.52), is not shown under a quote
    # chosen by meaning: it is much further from the question
    for text, when in (
        ("Olá! Somos o Cowork Alfama, um espaço de coworking em Lisboa.", day),
        ("Estamos abertos de segunda a sexta, das 8h às 20h.", day),
        ("Wi-Fi password is changed every Monday; ask at the front desk.", day),
        ("Our community manager is João Pires.", day),
        ("Pets are not allowed, except guide dogs.", day),
        ("Os cacifos custam 10 euros por mês.", day),
        ("Day pass is 15 euros and includes coffee.", day),
        ("A partir de dezembro a mesa flexível passa a custar 130 euros por mês.", later),
    ):
        await use_core.remember("e", author="Rita", text=text, ts=when)
    day_pass_ru = (await use_core.ask("e", "Сколько стоит дневной абонемент?")).answer
    assert "mesa flexível" not in day_pass_ru, day_pass_ru
    basic = (await use_core.ask("c", "how much is the Basic plan?")).answer
    assert "$19" in basic and "$79" not in basic and "Later" not in basic, basic
    day_pass = (await use_core.ask("c", "how much is a day pass?")).answer
    assert "15 euros" in day_pass and "Later" not in day_pass, day_pass


async def test_a_pronoun_or_filler_word_is_never_said_back_as_an_unknown_name(
    use_core: Core,
) -> None:
    """ "where are you located?" was answered "I have nothing about you yet": the parse's
    subject "you" was taken for a name the chat never mentioned."""
    await _tell(use_core, "c", "Day pass is 15 euros and includes coffee.")
    for question in ("where are you located?", "how much is it?", "what is it?"):
        answer = (await use_core.ask("c", question)).answer
        for word in ("you", "much", "it"):
            assert f"about {word} " not in answer and f"about {word}," not in answer, answer
    shower = (await use_core.ask("c", "how much is a shower?")).answer
    assert shower.startswith("I have nothing about shower"), shower
    # a greeting asked as a question ("hello?") was "I have nothing about hello"
    for greeting, lang in (("hello?", "en"), ("olá?", "pt"), ("привет?", "ru")):
        got = await use_core.ask("c", greeting)
        assert got.answer == t("nothing_found", lang) and got.unknown == [], got


async def test_a_yes_no_question_without_its_question_mark_is_answered_not_remembered(
    real_core: Core,
) -> None:
    """ "does Ann work at Acme" (no "?", as chat is typed) was remembered as the fact "does
    Ann WORKS_AT Acme", and "where does Ann work?" then answered with it."""
    await _tell(real_core, "c", "Ann works at Acme")
    for text in ("does Ann work at Acme", "is Acme in Lisbon", "do you deliver to Porto"):
        reply = await real_core.handle_message("c", IncomingMessage(author="cli", text=text))
        assert reply.kind == "answer", (text, reply)
    told = await real_core.handle_message(
        "c", IncomingMessage(author="cli", text="do the backup of billing tonight")
    )
    assert told.kind != "answer", told
    subjects = {f.subject for f in await real_core.facts("c", entity=None)}
    assert subjects == {"Ann"}, subjects


async def test_a_sentence_holding_every_asked_word_is_quoted_however_far_its_meaning(
    use_core: Core,
) -> None:
    """ "who's your ceo" is 0.15 from "Our CTO is Marcus Lee, CEO is Dana Whitfield" with USE,
    below the quote's meaning floor (0.17; "who is your CEO?" is above it), so the answer
    was that nothing was found although the sentence holds the one word asked."""
    await _tell(
        use_core,
        "c",
        "Our CTO is Marcus Lee, CEO is Dana Whitfield",
        "free trial is 14 days, no credit card needed",
        "support hours are 9-18 CET on weekdays",
    )
    for question in ("who's your ceo", "who is your CEO?"):
        got = await use_core.ask("c", question)
        assert "Dana Whitfield" in got.answer, (question, got.answer)
    got = await use_core.ask("c", "do you have a mobile app?")
    assert "“" not in got.answer, got.answer
    # "guys" addresses the team; it is no word the answer must hold
    await _tell(use_core, "c", "we don't support on-prem installs, cloud only (AWS eu-west-1)")
    got = await use_core.ask("c", "r u guys on prem?")
    assert "on-prem installs" in got.answer, got.answer


async def test_the_words_of_every_message_in_another_language_are_embedded_in_one_call(
    use_core: Core,
) -> None:
    """A model call costs ~0.7 ms however few its words (USE streams its weights once per
    call): the quote's word bridge embeds the new words of all the messages it reads at once,
    not one call per message. Counted on the real model's calls."""
    await _tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
    embedder = use_core.embedder
    real = embedder.embed

    async def ask_counting(question: str) -> list[int]:
        calls: list[int] = []

        def counted(texts: Sequence[str]) -> Any:
            calls.append(len(texts))
            return real(texts)

        embedder.embed = counted  # type: ignore[method-assign]
        try:
            got = await use_core.ask("c", question)
        finally:
            embedder.embed = real  # type: ignore[method-assign]
        assert "Доставка в Москву" in got.answer.splitlines()[0], got.answer
        return calls

    calls = await ask_counting("Vocês entregam em Moscou?")
    assert len(calls) == 2, calls  # the question, then every new word of the bridge at once
    assert calls[1] > 4, calls
    # the question's own words go with the question: once the chat's words are known, a
    # question with new words makes one call, not two (the question, then its words)
    calls = await ask_counting("Vocês fazem entregas para Moscou?")
    assert len(calls) == 1 and calls[0] > 1, calls


CAR_SERVICE = (
    "Анна-Мария будет принимать клиентов на ресепшене с понедельника.",
    "Замена масла стоит 45 евро, с фильтром 60.",
    "O diagnóstico por computador custa 35 euros e demora meia hora.",
    "the tow truck number is +351 912 345 678, available 24/7",
)


@pytest.mark.parametrize(
    "question", ["Кто работает на ресепшене?", "Кто на ресепшене?", "кто сидит на ресепшене?"]
)
async def test_who_asks_for_a_person_whatever_verb_follows(use_core: Core, question: str) -> None:
    """The question "Кто работает на ресепшене?" was answered "Пока у меня нет ничего про «ресепшене»"
    while a message says who receives clients there: the message holds no "работает", and by
    meaning alone USE puts it below the line (0.14). The verb after "who" only says how the
    person stands to the thing asked; the thing is what a sentence must hold."""
    first, answer = await _first_line(use_core, CAR_SERVICE, question)
    assert "Анна-Мария будет принимать клиентов" in first, answer


@pytest.mark.parametrize("question", ["where can I park?", "Onde posso estacionar?"])
async def test_parking_is_one_word_in_three_languages(use_core: Core, question: str) -> None:
    """The question "where can I park?" was answered "I have nothing about park yet" beside "Парковка для
    клиентов бесплатная": USE puts park and парковка 0.74 apart, below the bridge's line, so
    the everyday equivalents list them (core/vocabulary.py)."""
    await _tell(
        use_core,
        "c",
        "Парковка для клиентов бесплатная, въезд с улицы Фонтеш.",
        "A consulta normal custa 40 euros, urgência à noite 80.",
        "the hotel for pets is closed until March for renovation",
    )
    got = await use_core.ask("c", question)
    assert "Парковка для клиентов бесплатная" in got.answer.splitlines()[0], got.answer


@pytest.mark.parametrize(
    "question", ["Vocês fazem entregas para Moscou?", "Nós podemos receber entregas em Moscou?"]
)
async def test_a_pronoun_is_never_said_back_as_a_thing_it_does_not_know(
    use_core: Core, question: str
) -> None:
    """It was answered "Ainda não tenho nada sobre Vocês" before the message that answers:
    Portuguese personal pronouns passed for words that name a thing."""
    await _tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
    got = await use_core.ask("c", question)
    first = got.answer.splitlines()[0]
    assert "Доставка в Москву" in first, got.answer
    assert "Vocês" not in first and "Nós" not in first, got.answer


BEAUTY_STUDIO = (
    "Маникюр с покрытием гель-лак — 35 евро, снятие бесплатно если у нас делали.",
    "Педикюр 45, в субботу +5 евро.",
    "Наращивание ресниц делает только Катя, по вторникам и четвергам.",
    "Предоплата 10 евро при записи через Instagram, возвращаем если отмена за сутки.",
    "Студия на Avenida de Roma 12, 2 этаж, домофон 2B.",
    "Принимаем MB Way, карты и наличные. Revolut тоже можно.",
    "Детский маникюр с 6 лет, 15 евро.",
    "A partir de janeiro o preço da depilação a laser sobe para 60 euros por sessão.",
    "Подарочные сертификаты есть на любую сумму от 20 евро.",
)


async def test_a_brand_written_in_the_other_script_inside_one_language(use_core: Core) -> None:
    """The question "можно оплатить ревулютом?" was answered "nothing found" beside the Russian
    message "... Revolut тоже можно": the quote matched a loanword by its sound only in a
    message of another language, and only by the question's word as written (the case ending
    of "ревулютом" made another skeleton than "Revolut")."""
    first, answer = await _first_line(use_core, BEAUTY_STUDIO, "можно оплатить ревулютом?")
    assert "Revolut тоже можно" in first, answer


async def _first_line(core: Core, messages: Sequence[str], question: str) -> tuple[str, str]:
    """What the answer quotes or says first, and the whole answer (for the failure message)."""
    await _tell(core, "c", *messages)
    got = await core.ask("c", question)
    return got.answer.splitlines()[0], got.answer


BIKE_SHOP = (
    "Basic tune-up is $60, full service $140, parts extra.",
    "We're open Tue-Sat 10am to 6pm, closed Sundays and Mondays.",
    "Flat tire repair is $15 while you wait, usually 20 minutes.",
    "Rentals: $35/day for a road bike, helmet included.",
    "Shop is at 221 Market Street, parking in the back lot.",
)


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("whats included in full servce?", "full service $140"),
        ("how much is a flat tyre repiar?", "Flat tire repair is $15"),
    ],
)
async def test_a_clients_typo_is_read_as_the_chats_word(
    use_core: Core, question: str, quoted: str
) -> None:
    """The question "whats included in full servce?" was answered "I could not find anything":
    no message holds "servce", and the typo moved the question's vector too."""
    first, answer = await _first_line(use_core, BIKE_SHOP, question)
    assert quoted in first, answer


COWORKING = (
    "Hot desk is €15 a day or €180 a month, fixed desk €250 a month.",
    "Открыты с 8 до 22 по будням, в выходные с 10 до 18.",
    "Кофе и чай бесплатно для всех резидентов.",
    "Звонки — в phone booth на втором этаже, бронировать не нужно.",
    "Lockers are €10 a month, ask at the front desk for a key.",
)


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # a day is part of the weekend: "nothing about «субботу»" was said before
        ("вы работаете в субботу?", "в выходные с 10 до 18"),
        ("are you open on sunday?", "в выходные с 10 до 18"),
        # the verb "позвонить" and the noun "звонки" (calls): "found nothing" before
        ("где можно позвонить?", "phone booth"),
    ],
)
async def test_a_day_asked_is_answered_by_its_part_of_the_week(
    use_core: Core, question: str, quoted: str
) -> None:
    """A coworking space's trial (2026-12-05): the hours are told for weekdays and the
    weekend, and the client asks about one day."""
    first, answer = await _first_line(use_core, COWORKING, question)
    assert quoted in first, answer


BAKERY = (
    "Bolos de aniversário por encomenda com 48 horas de antecedência, a partir de 25 euros.",
    "Entregas só no centro do Porto, 3 euros, grátis acima de 30 euros.",
    "Fechamos às segundas. Terça a sábado 7h-19h, domingo 8h-13h.",
    "Pagamento por MB Way, cartão ou dinheiro; não aceitamos cheques.",
    "Диагностика ходовой бесплатно при ремонте, отдельно 1500.",
)


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # "entrega" is read as the verb, "Entregas" as the noun: "nothing about entrega"
        ("a entrega é grátis?", "Entregas só no centro do Porto"),
        # "segunda" and "segundas" have two lemmas ("segundo", "segundar"): found nothing
        ("abrem à segunda?", "Fechamos às segundas"),
        # a loanword in the plural: "nothing about diagnostics"
        ("do you do diagnostics?", "Диагностика ходовой"),
    ],
)
async def test_words_the_lemmatiser_reads_two_ways_still_meet(
    use_core: Core, question: str, quoted: str
) -> None:
    """A bakery's and a garage's trials (2026-12-05)."""
    first, answer = await _first_line(use_core, BAKERY, question)
    assert quoted in first, answer


async def test_a_place_never_mentioned_still_gets_what_is_known(use_core: Core) -> None:
    """ "do you deliver to Matosinhos?" was answered "I could not find anything": the delivery
    message is far from it by meaning, and it was dropped. Then it said that Matosinhos is
    unknown and quoted the rule under that; where an order goes is the client's place
    (unknown.situated, 2026-12-07), so the rule is the answer."""
    await _tell(use_core, "c", *BAKERY)
    got = await use_core.ask("c", "do you deliver to Matosinhos?")
    assert "Entregas só no centro do Porto" in got.answer.splitlines()[0], got.answer


TOURS = (
    "Тур в Синтру на целый день — 85 евро с человека, обед не включён.",
    "Sintra day tour includes hotel pickup at 8:30 and the Pena Palace ticket.",
    "coffee machine is broken again",
    "Passeio de barco no Tejo ao pôr do sol: 40 euros, 2 horas, sai de Belém.",
)


async def test_a_price_question_is_answered_by_a_price_not_a_clock_time(use_core: Core) -> None:
    """A travel agency's trial (2026-12-05): "how much is the Sintra tour?" quoted the English
    message, whose only number is the pickup time, over the Russian one with the price (whose
    first word, "Тур", the bridge compared capitalised: 0.75 from "tour", 0.85 lower-case)."""
    first, answer = await _first_line(use_core, TOURS, "how much is the Sintra tour?")
    assert "85 евро" in first, answer


async def test_a_word_written_with_yo_is_bridged_as_typed_without(use_core: Core) -> None:
    """ "is lunch included in the Sintra tour?" quoted the English message about the tour, not
    "обед не включён": USE puts "включён" 0.65 from "included", "включен" 0.87."""
    first, answer = await _first_line(use_core, TOURS, "is lunch included in the Sintra tour?")
    assert "обед не включён" in first, answer


GYM = (
    "Mensalidade 39€ com fidelização de 12 meses, 49€ sem fidelização.",
    "Inscrição custa 25€, oferecida em janeiro.",
    "Classes: yoga Mon/Wed 7pm, spinning Tue/Thu 6:30pm, pilates Sat 10am.",
    "Para congelar a mensalidade (lesão, viagem) avisar com 7 dias, máximo 3 meses por ano.",
    "Free trial day: bring an ID, no booking needed.",
)


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # a price asked with no price word, and durations are no price: the freeze rule won
        ("quanto é a mensalidade?", "Mensalidade 39€"),
        ("is there a joining fee?", "Inscrição custa 25€"),  # found nothing
        ("сколько стоит без контракта?", "Mensalidade 39€"),  # "nothing about «контракта»"
        ("what time does spinning start?", "spinning Tue/Thu"),  # "nothing about start"
    ],
)
async def test_a_gyms_client_questions(use_core: Core, question: str, quoted: str) -> None:
    """A gym's trial (2026-12-05)."""
    first, answer = await _first_line(use_core, GYM, question)
    assert quoted in first, answer
