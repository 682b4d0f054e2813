"""Offline world names (issue 15, target 7): a world is named by the words that set it apart
from the chat's other worlds, one per concept, without filler, verbs, numbers or colleagues."""

from __future__ import annotations

from typing import Any

from core.ports import Embedder
from core.service import Core
from core.world_names import distinctive_names
from tests.worlds.conftest import ManualClock, tell_hourly


def test_offline_names_are_the_words_that_set_a_world_apart() -> None:
    names = distinctive_names(
        {
            "a": ["python code deploy failed", "python tests in the code review"],
            "b": ["my python snake ate a mouse", "the snake terrarium is warm"],
        }
    )
    assert "code" in names["a"].split()
    assert "snake" in names["b"].split()
    assert "python" not in names["a"].split()[:1]  # shared by both worlds: not first

    # a verb is left out only of the worlds whose facts it states
    runs = {
        "facts": ["the api runs on kubernetes", "the worker runs on the old cluster"],
        "sport": ["long run on sunday", "my run was slow, 5 min per km"],
    }
    named = distinctive_names(runs, skip={"facts": {"run"}})
    assert "run" not in named["facts"].split() and "runs" not in named["facts"].split()
    assert "run" in named["sport"].split()


def test_offline_names_leave_out_pasted_blobs() -> None:
    """A 5,000-letter "word" (a paste, a key) became a world's name and filled /worlds."""
    blob = "x" * 5000
    names = distinctive_names(
        {"a": [blob, f"{blob} again", "deploy failed"], "b": ["snake terrarium warm"]}
    )
    assert blob not in names["a"] and len(names["a"]) < 100, names["a"][:120]
    assert "deploy" in names["a"].split()


def test_offline_names_leave_out_filler_pronouns_and_verb_forms() -> None:
    """Seen on the labelled streams: "cat кот ele", "run semana tive", "pitch troquei
    screen", "passarinho прилетели rio"."""
    names = distinctive_names(
        {
            "cats": [
                "ele dorme o dia todo, o gato, ele troquei",
                "troquei a areia do gato ontem, ele",
                "кот прилетели? нет, кот спит, прилетели",
                "my cat sleeps on his blanket, his",
                "ele troquei прилетели his",
            ],
            "bank": ["o banco aprovou o financiamento", "the bank loan is approved"],
        }
    )
    words = set(names["cats"].split())
    assert not {"ele", "troquei", "прилетели", "his", "dia"} & words, names
    assert {"gato", "кот", "cat"} & words, names


def test_offline_names_leave_out_english_verbs_in_s() -> None:
    """A pet python's world was named "monty weighs" in the console (2026-12-07): an English
    word in -s that is never a noun ("weighs", "eats") names no topic; a noun's plural does."""
    names = distinctive_names(
        {
            "snake": ["Monty weighs 2 kg now", "Monty eats mice, Monty weighs more"],
            "code": ["the billing service deploys on Fridays", "billing tests deploy"],
        }
    )
    assert not {"weighs", "eats"} & set(names["snake"].split()), names
    assert "mice" in names["snake"].split() or "monty" in names["snake"].split(), names


def test_offline_names_leave_out_colleagues_weekdays_and_words_of_no_topic() -> None:
    """A bakery's team chat was named "até encomendas beatriz", a coffee roaster's "domingo
    turno ...", a lifeguard school's "começa março até": a colleague, a weekday, a month, a
    preposition, an English verb ("asked") and an adverb ("normalmente") name no topic."""
    orders = [
        "Beatriz: as encomendas de bolos até sexta, normalmente 2 dias",
        "encomendas grandes pedem sinal, Beatriz confirma até domingo",
        "the client asked about encomendas for março, yessss",
        "bolo de aniversário: encomendas com 48h",
    ]
    names = distinctive_names(
        {"orders": orders, "van": ["a carrinha está na oficina", "van tyres again"]},
        person=lambda w: w == "beatriz",
    )
    words = set(names["orders"].split())
    assert not {"beatriz", "até", "sexta", "domingo", "março", "asked", "normalmente"} & words
    assert not any("yes" in w for w in words), names
    assert "encomendas" in words, names
    # a Russian adjective or ordinal reads as half a phrase ("португальскому тринадцатая")
    tins = ["тринадцатая банка в подарок", "банки сардин по-португальски", "тринадцатая банка"]
    names = distinctive_names({"tins": tins, "van": ["a carrinha está na oficina"]})
    assert "тринадцатая" not in names["tins"] and "банка" in names["tins"], names
    # a Russian weekday in a case its lemma reads as another word ("воскресеньям": "воскресение")
    bikes = ["по воскресеньям открываемся в 10:00, прокат велосипедов", "велосипедов мало"]
    names = distinctive_names({"bikes": bikes, "van": ["a carrinha está na oficina"]})
    assert "воскресеньям" not in names["bikes"] and "велосипедов" in names["bikes"], names


def test_offline_names_give_one_concept_one_slot(use_embedder: Embedder) -> None:
    """One concept in three languages took all three slots of a name ("машину carro car"):
    a transliteration sounds the same (python / питон / píton), a translation is close in
    the multilingual model (car / carro)."""
    from core.world_names import _one_per_concept

    def vectors(words: list[str]) -> Any:
        return use_embedder.embed(words)

    texts = {
        "snake": [
            "my python ate a mouse",
            "мой питон съел мышь, питон доволен",
            "o píton trocou de pele",
            "the python terrarium needs a lamp",
        ],
        "cars": [
            "the car dealer offered a discount on the car",
            "o carro novo tem garantia, carro bom",
            "car insurance for the new car",
            "the dealer wants a deposit",
        ],
        "other": ["the weather is nice", "o tempo está bom"],
    }
    named = distinctive_names(texts, vectors=vectors)
    assert _one_per_concept(["python", "питон", "píton", "mouse"], None, 3) == ["python", "mouse"]
    assert len({"python", "питон", "píton"} & set(named["snake"].split())) == 1, named
    assert len({"car", "carro"} & set(named["cars"].split())) == 1, named
    assert len(named["cars"].split()) == 3, named
    # words of one topic that are not one concept stay apart
    assert _one_per_concept(["cat", "dog", "bank"], vectors, 3) == ["cat", "dog", "bank"]
    # a cognate is one concept whatever the vectors say (terrarium / terrário: 0.57 in USE)
    assert _one_per_concept(["terrarium", "terrário", "lamp"], None, 3) == ["terrarium", "lamp"]


async def test_offline_names_leave_out_the_ontologys_verbs_and_numbers(
    world_core: Core, clock: ManualClock
) -> None:
    """The README's quick start showed "antifraud depends payments": a world of dependency
    statements was named by its verb. Through the job a chat runs, names are its topic's
    words, and "10k" or "6am" say nothing of a topic."""
    chat = "tg:names"
    await tell_hourly(
        world_core,
        chat,
        clock,
        [
            "checkout depends on payments",
            "payments depends on antifraud",
            "antifraud requires encryption at rest",
            "antifraud depends on 10k rules checked at 6am",
        ],
    )
    await world_core.regroup_worlds(chat)
    words = " ".join(w.topic for w in await world_core.worlds(chat)).split()
    assert words and not {"depends", "depend", "requires", "10k", "6am"} & set(words), words
    assert {"antifraud", "payments", "checkout", "encryption"} & set(words), words


async def test_the_job_names_a_world_of_three_languages_with_one_word_per_concept(
    world_core: Core, clock: ManualClock
) -> None:
    """Through the job a chat runs: a world about buying a car, written in en/pt/ru, is named
    once by "car" whatever language says it (the embedder the chat routes with tells)."""
    chat = "tg:cars"
    await tell_hourly(
        world_core,
        chat,
        clock,
        [
            "the car dealer wants a deposit for the car",
            "o carro usado tem garantia? carro de 2019",
            "дилер предлагает машину в кредит, машина почти новая",
            "car insurance quote for the new car is high",
            "o vendedor do carro baixou o preço do carro",
            "машину забираем в субботу, машина уже помыта",
        ],
    )
    await world_core.regroup_worlds(chat)
    names = [w.topic.split() for w in await world_core.worlds(chat)]
    assert len(names) == 1, names
    concept = {"car", "carro", "машину", "машина"} & set(names[0])
    assert len(concept) == 1 and len(names[0]) == 3, names


async def test_a_newborn_world_is_named_by_its_first_messages_topic_words(
    world_core: Core, clock: ManualClock
) -> None:
    """Before the job renames it, a new world's name came from its first message's three most
    frequent words: "ana trabalha petrobras" (the verb of WORKS_AT), "ele troquei bateria"."""
    await tell_hourly(world_core, "tg:born1", clock, ["A Ana trabalha na Petrobras"])
    await tell_hourly(world_core, "tg:born2", clock, ["ele troquei a bateria do carro dele ontem"])
    [work] = await world_core.worlds("tg:born1")
    [car] = await world_core.worlds("tg:born2")
    assert work.topic == "ana petrobras", work.topic
    assert not {"ele", "troquei", "dele", "ontem"} & set(car.topic.split()), car.topic
    assert {"bateria", "carro"} <= set(car.topic.split()), car.topic
