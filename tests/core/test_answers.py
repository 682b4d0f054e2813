"""Issue 17 through the real core (real Kùzu, the offline model): the direct answer first, in
the question's language, from messages as well as facts, and nothing that reads as garbage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.answers import says_it_does_not_know
from core.models import IncomingMessage, TripleIn
from core.ports import Embedder
from core.service import Core
from core.texts import t
from ontology import Ontology
from tests.conftest import build_core
from tests.core.telling import CHAINS, POLICY, TEAM_IN_THREE_LANGUAGES, tell


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
    await tell(real_core, lang, *CHAINS[lang])
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
    await tell(real_core, lang, *CHAINS[lang])
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
    await tell(real_core, lang, *CHAINS[lang])
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
    await tell(real_core, lang, *CHAINS[lang], POLICY[lang])
    answer = (await real_core.ask(lang, question)).answer
    first, *support = answer.splitlines()
    assert first == f"{label} {value}."
    assert support and "→" in support[0]  # the path: it took several steps


async def test_which_service_lists_only_the_one_it_asks_about(real_core: Core) -> None:
    await tell(real_core, "c", *CHAINS["en"], POLICY["en"])
    answer = (await real_core.ask("c", "which service is subject to encryption at rest?")).answer
    assert answer == "Service: antifraud."  # no stray "no facts about service" before it


async def test_which_language_lists_only_languages(real_core: Core) -> None:
    await tell(
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
    await tell(
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
    await tell(real_core, "c", *CHAINS["en"])
    question = {
        "en": "How much is the Pro plan? We want to buy 20 seats.",
        "pt": "Quanto custa o plano Pro para 20 pessoas?",
        "ru": "Сколько стоит тариф Про на 20 мест?",
    }[lang]
    answer = (await real_core.ask("c", question)).answer
    assert answer == t("nothing_found", lang)


async def test_reply_language_follows_the_chat_for_short_messages(real_core: Core) -> None:
    await tell(real_core, "c", *CHAINS["pt"])
    reply = await real_core.handle_message(
        "c", IncomingMessage(author="cli", text="Quanto custa o plano anual?")
    )
    assert reply.answer is not None and reply.answer.language == "pt"
    short = await real_core.handle_message("c", IncomingMessage(author="cli", text="checkout?"))
    assert short.answer is not None and short.answer.language == "pt"  # the chat's language


async def test_a_message_in_another_language_answers_through_everyday_equivalents(
    real_core: Core,
) -> None:
    await tell(real_core, "c", "reminder: the free trial is 14 days, no credit card needed")
    answer = await real_core.ask("c", "Tem teste grátis?")
    assert answer.language == "pt"
    assert "14 days" in answer.answer and "de uma mensagem de Ana" in answer.answer


async def test_a_lead_in_before_a_colon_is_quoted_with_what_follows(real_core: Core) -> None:
    """(A message too long to be shown whole: core.sentences.shown_whole.)"""
    await tell(
        real_core,
        "c",
        "Where the data lives: customer data is hosted in Frankfurt. Brazil can pick São Paulo. "
        "Backups are encrypted and kept for thirty days in a second region of the same provider, "
        "and nothing leaves the European Union without a signed agreement.",
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
    await tell(real_core, "ru", *CHAINS["ru"], "Анна работает в Яндексе")
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
    await tell(use_core, lang, "Ann works at Acme", "A Ana trabalha na Petrobras")
    await tell(use_core, lang, "Анна работает в Сбере")
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
    await tell(use_core, lang, fact, "checkout is located in Lisbon")
    got = await use_core.ask(lang, question)
    assert got.answer.splitlines()[0] == answer, got.answer


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
    await tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
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
    await tell(use_core, "c", *TEAM_IN_THREE_LANGUAGES)
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
    await tell(
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
    await tell(
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
    await tell(
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
    await tell(use_core, "c", "Ann works at Acme", "Bob is the CTO of Acme")
    got = await use_core.ask("c", question)
    assert "Bob is the CTO of Acme" in got.answer, got.answer
    # the graph still answers where it holds what is asked
    got = await use_core.ask("c", "Who works at Acme?")
    assert "Ann" in got.answer.splitlines()[0], got.answer


@pytest.mark.parametrize("question", ["who is Ana?", "quem é a Ana?", "кто такая Ана?"])
async def test_who_someone_is_is_not_answered_with_the_people_around_them(
    use_core: Core, question: str
) -> None:
    """ "who is Ana?" was answered "Person: Bob." (Bob reports to her), in three languages
    (found in the console): the question asks who she is, so what the chat says of her."""
    await tell(use_core, "c", "Ana works at Acme", "Bob reports to Ana", "Ana is the CTO")
    got = await use_core.ask("c", question)
    first = got.answer.splitlines()[0]
    assert "Bob" not in first and "Ana" in first, got.answer
    got = await use_core.ask("c", "who does Bob report to?")  # asks for a person: still one
    assert got.answer.splitlines()[0] in ("Person: Ana.", "Bob reports to Ana."), got.answer
