"""Name keys: legal forms, siblings, inflection, transliteration; and the offline names."""

from __future__ import annotations

import pytest

from core.extract import OfflineExtractor
from core.identity import NameIndex, NameRules
from core.language import governed
from core.service import Core
from ontology import load_ontology

ONTO = load_ontology()
RULES = NameRules(ONTO.legal_forms)
EXTRACTOR = OfflineExtractor(ONTO)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ООО «Ромашка-Трейд»", "Ромашка-Трейд"),
        ("ООО Ромашка-Трейд", "ромашка трейд"),
        ("Romashka Trade LLC", "Romashka Trade"),
        ("Acme, Inc.", "ACME"),
        ("Flores Ltda.", "Flores"),
        ("Petrobras S.A.", "petrobras"),
        ("Sistemas Rápidos ME", "Sistemas Rapidos"),
        ("Klein GmbH", "Klein"),
        ("Сбер ПАО", "ПАО Сбер"),
    ],
)
def test_a_name_with_or_without_its_legal_form_is_one_name(a: str, b: str) -> None:
    assert RULES.exact_key(a) == RULES.exact_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ООО Ромашка-Трейд", "ООО Ромашка-Логистика"),
        ("Romashka Trade LLC", "Romashka Logistics LLC"),
        ("Flores Comércio Ltda", "Flores Serviços Ltda"),
        ("Acme Inc", "Acme Labs Inc"),
        ("ИП Сидоров", "ИП Петров"),
    ],
)
def test_siblings_never_share_a_key(a: str, b: str) -> None:
    assert RULES.exact_key(a) != RULES.exact_key(b)
    assert RULES.sound_key(a) != RULES.sound_key(b)


def test_a_legal_form_alone_stays_a_name() -> None:
    assert RULES.exact_key("LLC") == "llc"
    assert RULES.split_form("ME") == ("ME", "")


def test_short_forms_only_as_written() -> None:
    # "me" in a sentence or "Sa" as a name are not legal forms; "ME" at the end is
    assert RULES.split_form("Tell me")[1] == ""
    assert RULES.split_form("Sistemas ME") == ("Sistemas", "ME")


def test_index_finds_strongest_level_and_reports_two_candidates() -> None:
    index = NameIndex(RULES)
    index.add("trade", "w", ["ООО Ромашка-Трейд"])
    index.add("logistics", "w", ["ООО Ромашка-Логистика"])
    index.add("pay", "w", ["платежи"])
    index.add("pays", "w", ["платежей"])  # stated apart: two entities whose lemmas meet
    assert index.find(["w"], "Ромашка-Трейд").ids == ("trade",)
    assert index.find(["w"], "Ромашка-Трейд").level == "exact"
    assert index.find(["w"], "Romashka Trade").ids == ("trade",)  # transliterated
    assert index.find(["w"], "Romashka Trade").level == "sound"
    assert index.find(["w"], "Ромашку-Трейд").ids == ("trade",)  # inflected
    assert index.find(["w"], "Ромашка").ids == ()  # a shared prefix names neither sibling
    assert index.find(["w"], "платежи").ids == ("pay",)  # exact beats lemma
    both = index.find(["w"], "платежам")
    assert both.ambiguous and set(both.ids) == {"pay", "pays"}
    assert index.find(["w"], "платежам", levels="e").ids == ()
    index.remove("pay")
    assert index.find(["w"], "платежам").ids == ("pays",)
    assert index.find(["other"], "Ромашка-Трейд").ids == ()


def test_a_name_left_in_one_world_is_still_found_there() -> None:
    """find skips a key that no world holds: removing a name from one world (or one of two
    entities under it) must not hide it where it is still held."""
    index = NameIndex(RULES)
    index.add("a1", "w1", ["Acme"])
    index.add("a2", "w2", ["Acme"])
    index.add("b1", "w1", ["Initech"])
    index.add("b2", "w1", ["Initech"])  # two under one key in one world
    index.remove("a1")
    assert index.find(["w1", "w2"], "Acme").ids == ("a2",)
    index.remove("b1")
    assert index.find(["w1"], "Initech").ids == ("b2",)
    index.remove("a2")
    assert index.find(["w1", "w2"], "Acme").ids == ()
    index.add("a3", "w1", ["Acme"])
    assert index.find(["w1", "w2"], "Acme").ids == ("a3",)


def test_transliteration_bridges_scripts_only() -> None:
    index = NameIndex(RULES)
    index.add("co", "w", ["checkout"])
    index.add("ms", "w", ["Москва"])
    assert index.find(["w"], "чекаут").ids == ("co",)
    assert index.find(["w"], "Moscow").ids == ("ms",)
    assert index.find(["w"], "chekout").ids == ()  # same script: a typo is not a translation
    index.add("ann", "w", ["Ann"])
    assert index.find(["w"], "Ан").ids == ()  # too short to tell


def test_an_english_or_portuguese_j_is_russian_dzh_or_zh() -> None:
    """ "Где находится Джакарта?" had nothing about Джакарта in a chat that wrote "Jakarta is
    located in Java": the skeleton read "j" as "й" ("krt" against "dZkrt"). An English "j" is
    "дж" in Russian, a Portuguese one "ж", long names and short ones (spelled)."""
    index = NameIndex(RULES)
    index.add("jk", "w", ["Jakarta"])
    index.add("jn", "w", ["Дженкинс"])
    index.add("jo", "w", ["João"])
    index.add("zh", "w", ["Женя"])
    assert index.find(["w"], "Джакарта").ids == ("jk",)
    assert index.find(["w"], "Jenkins").ids == ("jn",)
    assert index.find(["w"], "Жоао").ids == ("jo",)
    assert index.find(["w"], "Zhenya").ids == ("zh",)
    assert index.find(["w"], "Jakarta").ids == ("jk",)  # and as written
    assert index.find(["w"], "Карта").ids == ()  # the rest of the skeleton is no match


async def test_a_russian_question_finds_an_english_j_name(core: Core) -> None:
    await core.remember("c", author="Ana", text="Jakarta is located in Java")
    got = await core.ask("c", "Где находится Джакарта?")
    assert got.answer.splitlines()[0] == "Место: Java.", got.answer


def test_a_short_name_is_matched_across_scripts_by_its_spelling() -> None:
    """Too short for a consonant skeleton ("vn"), "Ivan" named nobody in a chat that wrote
    "Иван"; spelled in Latin letters, vowels kept, the two are one name, in any case form, and
    only across scripts."""
    index = NameIndex(RULES)
    index.add("iv", "w", ["Иван"])
    index.add("ol", "w", ["Olga"])
    index.add("ma", "w", ["Мария"])
    assert index.find(["w"], "Ivan").ids == ("iv",)
    assert index.find(["w"], "Ивана").ids == ("iv",)  # genitive: its lemma
    assert index.find(["w"], "Ольга").ids == ("ol",)
    assert index.find(["w"], "Maria").ids == ("ma",)
    assert index.find(["w"], "Iwan").ids == ()  # the spelling must be the same
    assert index.find(["w"], "Ivana").ids == ()  # another Latin name, not a case form


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ann still reports to Bob", ("Ann", "REPORTS_TO", "Bob")),
        ("ann also reports to bob now", ("ann", "REPORTS_TO", "bob")),
        ("Ann, our CTO, reports to Bob, our CEO", ("Ann", "REPORTS_TO", "Bob")),
        ("Анна по-прежнему подчиняется Борису", ("Анна", "REPORTS_TO", "Борис")),
        ("Ana ainda reporta ao Bruno", ("Ana", "REPORTS_TO", "Bruno")),
        ("Джакарта находится на острове Ява", ("Джакарта", "LOCATED_IN", "Ява")),
        ("Джакарта находится в Индонезии, на острове Ява", ("Джакарта", "LOCATED_IN", "Индонезия")),
        ("o escritório fica na cidade de Lisboa", ("escritório", "LOCATED_IN", "Lisboa")),
        ("checkout зависит от платежей", ("checkout", "DEPENDS_ON", "платежи")),
        ("чекаут зависит от антифрода", ("чекаут", "DEPENDS_ON", "антифрод")),
        ("checkout интегрирован с Битриксом", ("checkout", "INTEGRATED_WITH", "Битрикс")),
    ],
)
def test_offline_names_are_clean(text: str, expected: tuple[str, str, str]) -> None:
    triples = EXTRACTOR.extract(text)
    assert [(t.subject, t.predicate, t.object) for t in triples] == [expected]


def test_a_list_tail_with_its_own_verb_is_its_own_fact() -> None:
    triples = EXTRACTOR.extract("Django admin uses Python and runs on Linux servers")
    assert [(t.subject, t.object) for t in triples] == [
        ("Django admin", "Python"),
        ("Django admin", "Linux servers"),
    ]
    assert all("runs" not in t.object for t in triples)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a list part with its own subject and verb is its own fact, not an object
        (
            "Java is an island in Indonesia, Jakarta is located on Java",
            [("Java", "IS_A", "island"), ("Jakarta", "LOCATED_IN", "Java")],
        ),
        (
            "Bali is an island, Ann works at Acme",
            [("Bali", "IS_A", "island"), ("Ann", "WORKS_AT", "Acme")],
        ),
        (
            "Ann works at Acme and Bob works at Globex",
            [("Ann", "WORKS_AT", "Acme"), ("Bob", "WORKS_AT", "Globex")],
        ),
        # the subject of "X <verb> ... and <predicate> Y" is X, not the whole first clause
        (
            "Сервис платежей написан на Java и использует Kafka",
            [("Сервис платежей", "USES", "Java"), ("Сервис платежей", "USES", "Kafka")],
        ),
        (
            "The billing service is written in Java and uses Kafka",
            [("billing service", "USES", "Java"), ("billing service", "USES", "Kafka")],
        ),
        (
            "O serviço de relatórios é escrito em Java e usa Kafka",
            [("serviço de relatórios", "USES", "Java"), ("serviço de relatórios", "USES", "Kafka")],
        ),
        # "a city in Portugal" is a city; Portugal is where it is
        ("Lisbon is a city in Portugal", [("Lisbon", "IS_A", "city")]),
        # a pronoun points back at the sentence before; alone it names nothing
        (
            "Monty is a ball python. He lives in a glass terrarium",
            [("Monty", "IS_A", "ball python"), ("Monty", "LOCATED_IN", "glass terrarium")],
        ),
        ("он живет в террариуме", []),
        # a part that is a clause not understood gives no name
        (
            "Сервис написан на Java, Kafka использует Zookeeper",
            [("Сервис", "USES", "Java"), ("Kafka", "USES", "Zookeeper")],
        ),
        # ", and": an empty list part (raised IndexError: the message was lost)
        (
            "checkout depends on payments, and ledger",
            [("checkout", "DEPENDS_ON", "payments"), ("checkout", "DEPENDS_ON", "ledger")],
        ),
    ],
)
def test_a_clause_is_never_a_name(text: str, expected: list[tuple[str, str, str]]) -> None:
    """Seen in the worlds tests: "Jakarta is located on Java" and "Сервис платежей написан
    на Java и" became entity names."""
    assert [(t.subject, t.predicate, t.object) for t in EXTRACTOR.extract(text)] == expected


def test_a_relative_clause_is_no_part_of_a_name() -> None:
    [triple] = EXTRACTOR.extract("the api uses Kafka which runs on k8s")
    assert triple.object == "Kafka"


def test_lists_still_give_every_item() -> None:
    triples = EXTRACTOR.extract("checkout depends on payments, ledger and antifraud")
    assert [t.object for t in triples] == ["payments", "ledger", "antifraud"]


def test_two_ids_under_one_name_are_two_things_even_across_worlds() -> None:
    from core.pipeline.select import name_mentions

    index = NameIndex(RULES)
    index.add("a", "w1", ["ООО Ромашка"])
    index.add("b", "w2", ["ООО Ромашка"])
    idents = {"a": "tax_id:7707083893", "b": "tax_id:7701234560"}
    split = name_mentions(index, "что купила Ромашка?", {"w1", "w2"}, idents.__getitem__)
    assert split.found == []
    assert [(phrase, sorted(ids)) for phrase, ids in split.ambiguous] == [("Ромашка", ["a", "b"])]
    # without ids, one name in two topic worlds is one thing seen twice
    seen_twice = name_mentions(index, "что купила Ромашка?", {"w1", "w2"})
    assert sorted(seen_twice.found) == ["a", "b"] and seen_twice.ambiguous == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("btw pix depende de payments", ("pix", "DEPENDS_ON", "payments")),
        ("ok so the api depends on auth", ("api", "DEPENDS_ON", "auth")),
        ("I think the api depends on auth, right?", ("api", "DEPENDS_ON", "auth")),
        ("update: Ann works at Acme lol", ("Ann", "WORKS_AT", "Acme")),
        ("Ann works at Acme too", ("Ann", "WORKS_AT", "Acme")),
        ("billing runs on postgres, I guess", ("billing", "USES", "postgres")),
        ("o billing depende do ledger, blz", ("billing", "DEPENDS_ON", "ledger")),
        ("acho que o checkout depende do pix", ("checkout", "DEPENDS_ON", "pix")),
        ("aliás a Ana trabalha na Acme", ("Ana", "WORKS_AT", "Acme")),
        ("ну короче биллинг зависит от платежей", ("биллинг", "DEPENDS_ON", "платежи")),
        ("кстати чекаут зависит от антифрода", ("чекаут", "DEPENDS_ON", "антифрод")),
        # a filler word that is the whole name, or part of a longer one, stays
        ("the data team reports to Bob", ("data team", "REPORTS_TO", "Bob")),
        ("Ana trabalha no Itaú", ("Ana", "WORKS_AT", "Itaú")),
    ],
)
def test_chat_fillers_are_no_part_of_a_name(text: str, expected: tuple[str, str, str]) -> None:
    triples = EXTRACTOR.extract(text)
    assert [(t.subject, t.predicate, t.object) for t in triples] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "billing does not depend on auth",
        "billing doesn't depend on auth",
        "Ann no longer works at Acme",
        "o billing não depende do auth",
        "a Ana não trabalha na Acme",
        "a Ana não trabalha mais na Acme",
        "биллинг не зависит от платежей",
        "Анна больше не работает в Яндексе",
    ],
)
def test_a_denial_states_no_fact(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("Ann no longer works at Acme", ("Ann", "WORKS_AT", "Acme")),
        ("billing doesn't depend on auth", ("billing", "DEPENDS_ON", "auth")),
        ("o billing não depende do auth", ("billing", "DEPENDS_ON", "auth")),
        ("Анна больше не работает в Яндексе", ("Анна", "WORKS_AT", "Яндекс")),
        ("a Ana não trabalha mais na Acme", ("Ana", "WORKS_AT", "Acme")),
        ("o billing não depende mais do auth", ("billing", "DEPENDS_ON", "auth")),
        ("Ann doesn't work at Acme anymore", ("Ann", "WORKS_AT", "Acme")),
        ("billing does not depend on auth any more", ("billing", "DEPENDS_ON", "auth")),
    ],
)
def test_a_denial_names_the_fact_it_denies(text: str, denied: tuple[str, str, str]) -> None:
    assert EXTRACTOR.denials(text) == [denied]


def test_a_statement_denies_nothing() -> None:
    assert EXTRACTOR.denials("Ann works at Acme and reports to Bob") == []


def test_a_denied_list_tail_is_dropped_and_the_rest_kept() -> None:
    triples = EXTRACTOR.extract("billing uses python and doesn't run on linux")
    assert [(t.subject, t.predicate, t.object) for t in triples] == [("billing", "USES", "python")]


@pytest.mark.parametrize(
    ("phrase", "name", "written"),
    [
        ("работает в", "Сбербанк", "Сбербанке"),
        ("зависит от", "платежи", "платежей"),
        ("интегрирован с", "платёжный шлюз", "платёжным шлюзом"),
        ("зависит от", "служба доставки", "службы доставки"),  # the head group only
        ("подчиняется", "Анна", "Анне"),
        ("работает в", "Acme", "Acme"),  # Latin: as written
        ("работает как", "менеджер", "менеджер"),  # a phrase that governs no case
        ("зависит от", "платежей", "платежей"),  # not a nominative: as written
    ],
)
def test_a_russian_object_takes_the_case_its_phrase_governs(
    phrase: str, name: str, written: str
) -> None:
    assert governed(phrase, name) == written


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Carlos works at FastCargo since 2019 and reports to Marta",
            [("Carlos", "WORKS_AT", "FastCargo"), ("Carlos", "REPORTS_TO", "Marta")],
        ),
        ("O Carlos trabalha na FastCargo desde 2019", [("Carlos", "WORKS_AT", "FastCargo")]),
        ("Карлос работает в FastCargo с 2019 года", [("Карлос", "WORKS_AT", "FastCargo")]),
        ("Ann works at Acme until March", [("Ann", "WORKS_AT", "Acme")]),
        ("Ana trabalha na Petrobras às segundas", [("Ana", "WORKS_AT", "Petrobras")]),
        ("Иван работает в Сбере по понедельникам", [("Иван", "WORKS_AT", "Сбер")]),
        # a car service's chat (2026-12-04): "receção ao sábado" was the name of a company
        (
            "A Joana trabalha na receção ao sábado, das 9h às 13h",
            [("Joana", "WORKS_AT", "receção")],
        ),
        ("Pedro trabalha na Sonae à segunda", [("Pedro", "WORKS_AT", "Sonae")]),
        ("Ivan works at Globex on weekdays", [("Ivan", "WORKS_AT", "Globex")]),
        ("Ann works at Acme on weekends", [("Ann", "WORKS_AT", "Acme")]),
        ("Ана работает в Сбере по выходным", [("Ана", "WORKS_AT", "Сбер")]),
        # not a date: kept
        ("Ann works at Acme on the new API", [("Ann", "WORKS_AT", "Acme on the new API")]),
        ("checkout is located in building 7", [("checkout", "LOCATED_IN", "building 7")]),
        ("Ann works at Studio 54", [("Ann", "WORKS_AT", "Studio 54")]),
    ],
)
def test_when_is_no_part_of_a_name(text: str, expected: list[tuple[str, str, str]]) -> None:
    """Seen by a new user: "Onde trabalha o Carlos?" answered "Carlos trabalha na FastCargo
    since 2019." (the entity was named "FastCargo since 2019")."""
    assert [(t.subject, t.predicate, t.object) for t in EXTRACTOR.extract(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Northwind depends on Contoso for payments", [("Northwind", "DEPENDS_ON", "Contoso")]),
        ("O checkout depende da Stripe para pagamentos", [("checkout", "DEPENDS_ON", "Stripe")]),
        ("Чекаут зависит от Stripe для платежей", [("Чекаут", "DEPENDS_ON", "Stripe")]),
        ("Ann works at Acme for three years", [("Ann", "WORKS_AT", "Acme")]),
        # a name that holds the word: kept
        ("Ann works at Doctors for Life", [("Ann", "WORKS_AT", "Doctors for Life")]),
    ],
)
def test_why_is_no_part_of_a_name(text: str, expected: list[tuple[str, str, str]]) -> None:
    """ "Does Northwind depend on Contoso?" was answered "No": the fact's object was "Contoso
    for payments"."""
    assert [(t.subject, t.predicate, t.object) for t in EXTRACTOR.extract(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "мой питон живёт в стеклянном террариуме",
            ("питон", "LOCATED_IN", "стеклянный террариум"),
        ),
        ("My python lives in a glass terrarium", ("python", "LOCATED_IN", "glass terrarium")),
        ("Моя сестра работает в Сбере", ("сестра", "WORKS_AT", "Сбер")),
        # part of a name: kept
        ("Ann works at My Company", ("Ann", "WORKS_AT", "My Company")),
    ],
)
def test_a_possessive_before_a_common_noun_is_no_part_of_a_name(
    text: str, expected: tuple[str, str, str]
) -> None:
    """The quick start's Russian line stored the fact about "мой питон" ("my python")."""
    got = [(t.subject, t.predicate, t.object) for t in EXTRACTOR.extract(text)]
    assert got == [expected]


@pytest.mark.parametrize(
    "text",
    [
        # an accounting firm's trial (2026-12-05): "60€ REQUIRES passaporte" was stored, and
        # "quanto custa abrir uma empresa?" was answered "O que eu sei: 60€ requer passaporte"
        "NIF para não residentes: tratamos em 2 dias úteis, 60€, precisa de passaporte.",
        "Acme depends on 42",
        # a caterer's chat: "pls USES it: 1 waiter per 15 guests"
        "Staffing rule for quotes, pls use it: 1 waiter per 15 guests for seated dinners",
    ],
)
def test_an_amount_a_number_or_a_filler_alone_is_no_name(text: str) -> None:
    assert EXTRACTOR.extract(text) == []


def test_a_name_with_a_number_is_still_a_name() -> None:
    got = EXTRACTOR.extract("Plan 2 requires SSO")
    assert [(t.subject, t.predicate, t.object) for t in got] == [("Plan 2", "REQUIRES", "SSO")]
