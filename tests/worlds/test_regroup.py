"""Issue 15: the regrouping job splits a world holding two topics (facts and entities follow
their messages, the bigger part keeps the id), merges fragments, renames; Python the language
and the pet python end in separate worlds in en/pt/ru and questions never cross over."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from bot.jobs import run_jobs_once
from bot.settings import Settings
from core import durable
from core.config import CoreConfig
from core.models import ImportItem, IngestResult, TripleIn
from core.ports import Embedder, GraphStore
from core.regroup import MIN_PART, plan
from core.regroup_cut import _margin, _moved_margins, _sums
from core.rows import WorldRow
from core.service import Core
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from core.world_names import distinctive_names, newest_texts
from core.worlds import REFERENCE, WorldParams, joined_score, params_for
from ontology import Ontology
from tests.conftest import graph_tables
from tests.worlds.conftest import ManualClock, adaptive_core

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
W3_TUNE = FIXTURES / "worlds3" / "tune.jsonl"

CODE = [
    "The billing service is built with Python and Django",
    "O serviço de pagamentos usa Python e Kafka",
    "Сервис отчётов использует Python и Postgres",
    "We deploy the Python code to Kubernetes every Friday",
    "Our CI pipeline runs the Python unit tests on every commit",
    "The Python linter fails on the new payments module",
    "O deploy do código Python quebrou o build de novo",
]
SNAKE = [
    "Monty is a ball python, he eats one mouse a week",
    "My python uses a heat lamp in his terrarium",
    "Meu píton come ratos congelados uma vez por semana",
    "Моя змея питон живёт в террариуме и ест мышей",
    "The python shed its skin yesterday, the terrarium needs cleaning",
    "The reptile vet says my python snake is healthy",
]


async def _tell(core: Core, chat: str, clock: ManualClock, texts: list[str]) -> list[str]:
    worlds = []
    for text in texts:
        clock.advance(hours=1)  # past the continuity window: content alone decides
        worlds.append((await core.remember(chat, author="ana", text=text)).world)
    return worlds


async def test_job_splits_a_world_holding_two_topics_and_moves_facts_with_messages(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    clock = ManualClock()
    calibrated = params_for(use_embedder)
    glued = replace(calibrated, base=-1.0, merge_inline=False, growth_share=0.0)  # one world
    core = adaptive_core(tmp_path / "d", use_embedder, ontology, clock, world_params=glued)
    chat = "tg:split"
    try:
        interleaved = [t for pair in zip(CODE, SNAKE, strict=False) for t in pair] + CODE[6:]
        first = await _tell(core, chat, clock, interleaved)
        assert len(set(first)) == 1
        before = await core.stats(chat)

        report = await core.regroup_worlds(chat)
        assert report["split"] >= 1
        data = await core.export(chat)
        world_of = {m["text"]: m["world"] for m in data["messages"]}
        code_worlds = {world_of[t] for t in CODE}
        snake_worlds = {world_of[t] for t in SNAKE}
        assert len(code_worlds) == 1 and len(snake_worlds) == 1, (code_worlds, snake_worlds)
        assert code_worlds != snake_worlds
        assert first[0] in code_worlds  # the bigger part keeps the id
        code_w, snake_w = next(iter(code_worlds)), next(iter(snake_worlds))
        # facts and entities went with their messages; nothing was lost
        after = await core.stats(chat)
        assert after["messages"] == before["messages"]
        assert after["facts"] == before["facts"]
        by_source = {m["id"]: m["world"] for m in data["messages"]}
        for fact in await core.facts(chat, history=True):
            assert {by_source[s] for s in fact.sources} == {fact.world}, fact.sentence()
        names = {(e["name"].lower(), e["world"]) for e in data["entities"]}
        assert any(n == "python" and w == code_w for n, w in names)
        # questions stay in their world
        snake_q = await core.ask(chat, "What does my python eat?")
        assert snake_w in snake_q.worlds and code_w not in snake_q.worlds
        assert all(f.world == snake_w for f in snake_q.facts)
        assert not {"django", "kafka", "billing"} & set(snake_q.answer.lower().split())
        code_q = await core.ask(chat, "Which service is built with Python?")
        assert code_q.worlds == [code_w]
        assert all(f.world == code_w for f in code_q.facts)
        assert "terrarium" not in code_q.answer.lower()
        # a second run finds nothing to do
        again = await core.regroup_worlds(chat)
        assert again == {"moved": 0, "split": 0, "merged": 0}
        # offline names follow the worlds: the snake world's name speaks of the snake
        topics = {w.id: w.topic for w in await core.worlds(chat)}
        assert "python" not in topics[snake_w].split() or len(topics[snake_w].split()) > 1
        assert topics[snake_w] != topics[code_w]
    finally:
        await core.close()


async def test_python_language_and_pet_python_live_apart_with_default_settings(
    world_core: Core, clock: ManualClock
) -> None:
    chat = "tg:python"
    await _tell(world_core, chat, clock, CODE)
    clock.advance(hours=5)
    await _tell(world_core, chat, clock, SNAKE)
    report = await run_jobs_once(world_core, Settings())
    assert report["removed_worlds"] == 0
    data = await world_core.export(chat)
    world_of = {m["text"]: m["world"] for m in data["messages"]}
    assert len({world_of[t] for t in CODE}) == 1
    assert len({world_of[t] for t in SNAKE}) == 1
    assert world_of[CODE[0]] != world_of[SNAKE[0]]
    msg_world = {m["id"]: m["world"] for m in data["messages"]}
    snake_w, code_w = world_of[SNAKE[0]], world_of[CODE[0]]
    for question in ("Что ест мой питон?", "What does my python eat?", "O que come o meu píton?"):
        ans = await world_core.ask(chat, question)
        assert snake_w in ans.worlds, question
        assert all(f.world == snake_w for f in ans.facts), question
        if not question.startswith("O que"):  # "píton" is no name the snake world knows
            assert {msg_world[i] for i in ans.evidence} == {snake_w}, question
    code = await world_core.ask(chat, "Which service is built with Python?")
    assert code.worlds == [code_w]
    assert all(f.world == code_w for f in code.facts)
    assert {msg_world[i] for i in code.evidence} == {code_w}


async def test_explicit_facts_go_to_the_world_of_their_topic_in_a_homonym_chat(
    world_core: Core, clock: ManualClock
) -> None:
    """A fact given as a triple (/remember, an import's line) is routed as a message is, so
    "Django USES Python" goes to the programming world and "Monty IS_A ball python" to the
    pet's (after the job, as the scheduler runs it). Its vector is the embedding of "A
    PREDICATE B". The normalised sum of its two names' vectors, tried on 2026-12-07 to save
    most of an import's embedding, failed here: "billing api DEPENDS_ON Postgres" started a
    world of its own, and after the job the three facts shared a world apart from both
    topics (the names' sum is nearer no world than the text is)."""
    chat = "tg:python-facts"
    code_w = (await _tell(world_core, chat, clock, CODE))[0]
    clock.advance(hours=5)
    snake_w = (await _tell(world_core, chat, clock, SNAKE))[0]
    assert code_w != snake_w
    triples = [
        ("Django", "service", "USES", "Python", "concept"),
        ("billing api", "service", "DEPENDS_ON", "Postgres", "service"),
        ("Monty", "concept", "IS_A", "ball python", "concept"),
    ]
    live = []
    for s, sk, p, o, ok in triples:
        clock.advance(hours=1)
        fact = TripleIn(subject=s, subject_kind=sk, predicate=p, object=o, object_kind=ok)
        result = await world_core.remember_triple(chat, fact)
        assert result.stored, (s, p, o)
        live.append(result.world)
    assert live[:2] == [code_w, code_w]  # the pet's fact starts a world the job merges
    await run_jobs_once(world_core, Settings())
    world_of = {m["text"]: m["world"] for m in (await world_core.export(chat))["messages"]}
    code, snake = world_of[CODE[0]], world_of[SNAKE[0]]
    assert [world_of[f"{s} {p} {o}"] for s, _, p, o, _ in triples] == [code, code, snake]
    assert code != snake


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
    await _tell(
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
    await _tell(
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
    await _tell(world_core, "tg:born1", clock, ["A Ana trabalha na Petrobras"])
    await _tell(world_core, "tg:born2", clock, ["ele troquei a bateria do carro dele ontem"])
    [work] = await world_core.worlds("tg:born1")
    [car] = await world_core.worlds("tg:born2")
    assert work.topic == "ana petrobras", work.topic
    assert not {"ele", "troquei", "dele", "ontem"} & set(car.topic.split()), car.topic
    assert {"bateria", "carro"} <= set(car.topic.split()), car.topic


JAVA_CODE = [
    "The billing service is written in Java with Spring Boot",
    "O serviço de relatórios usa Java 21 e Gradle",
    "Сервис платежей написан на Java и использует Kafka",
    "The Java build fails because of a missing Maven dependency",
    "Precisamos atualizar o Java do servidor de CI",
    "На Java этот модуль занял бы втрое больше строк",
]
JAVA_ISLAND = [
    "Java is an island in Indonesia, Jakarta is located on Java",
    "We climbed the Bromo volcano on Java at sunrise",
    "A ilha de Java tem vulcões e plantações de arroz",
    "Ява — остров в Индонезии, там много вулканов",
    "The ferry from Java to Bali takes about an hour",
    "Em Java comemos nasi goreng todos os dias da viagem",
]


@pytest.mark.xfail(
    strict=True,
    reason="not met (issue 15): the job now cuts where the review queue shows Java in two "
    "meanings (the test below), but the Russian code message 'На Java этот модуль занял бы "
    "втрое больше строк' states no fact and is nearer the island messages (0.49 to 'Java is "
    "an island...') than the code ones (<= 0.40) with USE, so it goes with the island",
)
async def test_java_language_and_java_island_live_apart_with_default_settings(
    world_core: Core, clock: ManualClock
) -> None:
    chat = "tg:java"
    await _tell(world_core, chat, clock, JAVA_CODE)
    clock.advance(hours=5)
    await _tell(world_core, chat, clock, JAVA_ISLAND)
    await run_jobs_once(world_core, Settings())
    data = await world_core.export(chat)
    world_of = {m["text"]: m["world"] for m in data["messages"]}
    assert len({world_of[t] for t in JAVA_CODE}) == 1
    assert len({world_of[t] for t in JAVA_ISLAND}) == 1
    code_w, island_w = world_of[JAVA_CODE[0]], world_of[JAVA_ISLAND[0]]
    assert code_w != island_w
    javas = [e for e in data["entities"] if e["name"].lower() == "java"]
    assert {e["world"] for e in javas} <= {code_w, island_w}
    assert len({e["id"] for e in javas}) == len({e["world"] for e in javas})  # one per world
    msg_world = {m["id"]: m["world"] for m in data["messages"]}
    for question in ("Which volcano did we climb on Java?", "Que vulcões tem a ilha de Java?"):
        ans = await world_core.ask(chat, question)
        assert island_w in ans.worlds and code_w not in ans.worlds, question
        assert all(f.world == island_w for f in ans.facts), question
        assert code_w not in {msg_world[i] for i in ans.evidence}, question
    ans = await world_core.ask(chat, "Which service is written in Java?")
    assert code_w in ans.worlds and island_w not in ans.worlds
    assert all(f.world == code_w for f in ans.facts)


async def test_the_job_parts_two_meanings_of_a_name_the_review_queue_shows(
    world_core: Core, clock: ManualClock
) -> None:
    """Java code, then Java the island, in one world after live routing (the two are 0.71 of
    the calibrated gap apart, below the job's 0.8). "Jakarta is located on Java" waits in
    review because Java is a service there: the job takes that as the graph's word that the
    world holds two meanings, cuts between the waiting message and the messages whose facts
    made Java a service (at half the line), and keeps the parts apart in later runs. The
    messages that state no fact follow the embedding: one or two of the code ones (0.40-0.49
    from the island messages with USE, see the xfail above) may go with the island."""
    chat = "tg:java2"
    await _tell(world_core, chat, clock, JAVA_CODE)
    clock.advance(hours=5)
    await _tell(world_core, chat, clock, JAVA_ISLAND)
    pending = await world_core.pending(chat)
    assert any("Java is a" in p.reason for p in pending), pending
    stated = [JAVA_CODE[0], JAVA_CODE[2]]  # "written in Java", "написан на Java": USES Java
    for _ in range(2):  # and it stays so: the next run does not merge them back
        await world_core.regroup_worlds(chat)
        data = await world_core.export(chat)
        world_of = {m["text"]: m["world"] for m in data["messages"]}
        island = {world_of[t] for t in JAVA_ISLAND}
        code = {world_of[t] for t in stated}
        assert len(island) == 1 and len(code) == 1 and island != code, world_of
        assert sum(world_of[t] in code for t in JAVA_CODE) >= 4, world_of
    [island_w], [code_w] = island, code
    ans = await world_core.ask(chat, "Which volcano did we climb on Java?")
    assert ans.worlds == [island_w] and "Bromo" in ans.answer, ans
    assert all(f.world == island_w for f in ans.facts)
    ans = await world_core.ask(chat, "Which service is written in Java?")
    assert ans.worlds == [code_w] and all(f.world == code_w for f in ans.facts), ans


def test_a_plan_keeps_apart_what_the_graph_says_are_two_meanings() -> None:
    """Two groups of messages 0.6 of the spread apart: one group by the embedding alone, two
    when one message of each side is named `apart`; the rest follows its side."""
    rng = np.random.default_rng(3)
    base = rng.normal(size=64)
    tilt = rng.normal(size=64)
    rows = []
    for side in (-1.0, 1.0):
        for _ in range(6):
            v = base + 0.9 * side * tilt + 1.6 * rng.normal(size=64)
            rows.append(v / np.linalg.norm(v))
    x = np.array(rows)
    same = float(np.mean([x[i] @ x[j] for i in range(12) for j in range(12) if i != j]))
    p = replace(params_for_gap(), pair_prior=same, job_similarity=-1.0, window_s=0.0)
    truth = np.array([0] * 6 + [1] * 6)
    margin = _margin(x, truth, same)
    p = replace(p, job_spread=margin / 0.6)  # the halves miss the line, pass half of it
    ts = np.arange(12, dtype=np.float64) * 3600
    together = plan(["w"] * 12, ts, x, p)
    assert len(set(together)) == 1, together
    apart = [(np.array([0]), np.array([11]))]
    parted = plan(["w"] * 12, ts, x, p, apart)
    assert len(set(parted)) == 2 and parted[0] != parted[11], parted
    assert len(set(parted[:6])) == 1 and len(set(parted[6:])) == 1, parted


def test_the_job_makes_no_cut_the_live_merge_would_join_again() -> None:
    """Two tight groups of ten messages whose means are close: apart enough for the split's
    margin, close enough that the live merge (joined_score over the merge similarity) joins
    them at the next message either takes, after which the job cut them again, run after run
    (a 10,000-line import: 96 cuts, 96 merges undoing them). With the merge similarity just
    above their joined score the job cuts them; just below it, it leaves them whole."""
    rng = np.random.default_rng(5)
    u, v = rng.normal(size=64), rng.normal(size=64)
    v = v - (v @ u) / (u @ u) * u
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    rows = []
    for centre in (u, 0.7 * u + 0.71 * v):  # the groups' centres ~0.7 apart in cosine
        for _ in range(10):
            w = centre + 0.25 * rng.normal(size=64) / 8
            rows.append(w / np.linalg.norm(w))
    x = np.array(rows)
    truth = np.array([0] * 10 + [1] * 10)
    same = 0.3
    sums, n = _sums(x, truth, 2)
    unit = sums / np.linalg.norm(sums, axis=1)[:, None]
    joined = float(joined_score(float(unit[0] @ unit[1]), n[0], n[1], same))
    p = replace(params_for_gap(), pair_prior=same, job_similarity=0.99, window_s=0.0)
    p = replace(p, job_spread=_margin(x, truth, same) / 2)  # the split's margin is met
    ts = np.arange(20, dtype=np.float64) * 3600
    cut = plan(["w"] * 20, ts, x, replace(p, merge_similarity=joined + 0.01))
    assert len(set(cut[:10])) == 1 and len(set(cut[10:])) == 1 and cut[0] != cut[10], cut
    whole = plan(["w"] * 20, ts, x, replace(p, merge_similarity=joined - 0.01))
    assert len(set(whole)) == 1, whole


def params_for_gap() -> WorldParams:
    return WorldParams(merge_inline=True, young_worlds=3, growth_share=0.5)


async def test_python_code_then_pet_python_back_to_back_split_without_the_scheduler(
    world_core: Core, clock: ManualClock
) -> None:
    """Within the continuity window live routing glues the two topics (their USE cosine is
    above any joining line); the job run from the message path as the chat grows splits them
    before the scheduler's turn, and a question about the snake stays in the snake's world."""
    chat = "tg:b2b"
    for text in CODE[:6] + SNAKE:
        clock.advance(seconds=20)
        await world_core.remember(chat, author="ana", text=text)
    data = await world_core.export(chat)
    world_of = {m["text"]: m["world"] for m in data["messages"]}
    code_w, snake_w = {world_of[t] for t in CODE[:6]}, {world_of[t] for t in SNAKE}
    assert len(code_w) == 1 and len(snake_w) == 1 and code_w != snake_w, (code_w, snake_w)
    ans = await world_core.ask(chat, "What does my python eat?")
    assert snake_w == set(ans.worlds)
    assert all(f.world in snake_w for f in ans.facts)
    # the message index keeps each message's world through the moves and merges (evidence
    # scoped to one world reads it there), and reads it back when the chat is opened again
    for _ in range(2):
        indexed = await world_core.pool.run(
            chat,
            lambda s: {s.recall.texts[row]: w for row, w in enumerate(s.recall.worlds)},
        )
        assert indexed == world_of
        await world_core.pool.discard(chat)


SNAKE_FOUR = [
    "my python Monty eats a frozen mouse every week",
    "Monty the snake sheds his skin in spring",
    "his terrarium needs a heat lamp at 30 degrees",
    "ball pythons are calm and rarely bite",
]
CODE_FOUR = [
    "our Python service uses asyncio and FastAPI",
    "the Python code has a bug in the parser",
    "we deploy the API with docker on Fridays",
    "unit tests run in CI with pytest",
]


async def test_the_job_cuts_four_and_four_messages_of_two_topics_where_they_part(
    world_core: Core, clock: ManualClock
) -> None:
    """Four messages on a pet python and four on Python code, typed back to back, share a
    world live; the scheduler's job cuts it where the two topics part. 2-means chosen by its
    own inertia cut it 5 / 3 (a code message with the snakes), a cut the job's test refuses, so
    the world stayed whole."""
    chat = "tg:four"
    for text in SNAKE_FOUR + CODE_FOUR:
        clock.advance(seconds=20)
        await world_core.remember(chat, author="ana", text=text)
    await world_core.regroup_worlds(chat)
    data = await world_core.export(chat)
    assert _partition(data) == {frozenset(SNAKE_FOUR), frozenset(CODE_FOUR)}


CODE_RUNS = [
    "my python script crashes with a KeyError on line 40",
    "I fixed it by using dict.get instead of indexing",
    "мой скрипт на python падает при импорте pandas",
    "pandas was upgraded to 2.2 and broke the import",
    "we need to pin pandas to 2.1 in requirements.txt",
]
SNAKE_RUNS = [
    "our ball python Nagini shed her skin yesterday",
    "Nagini eats a frozen rat every ten days",
    "o terrário da Nagini precisa de 28 graus",
    "a cobra Nagini está trocando de pele de novo",
]


async def test_the_job_parts_two_topics_typed_in_short_runs_in_three_languages(
    world_core: Core, clock: ManualClock
) -> None:
    """Code (en/ru) and a pet python (en/pt) in runs of two and three, typed back to back,
    end in one world live; the scheduler's job parts them. 2-means alone put the Portuguese
    terrarium message with the code (a cut whose margin is below the job's line) and the
    world stayed whole; the cut improved one message at a time on the job's own test is the
    topics' cut. The snake question then gets only the snake's facts."""
    chat = "tg:runs"
    order = CODE_RUNS[:2] + SNAKE_RUNS[:3] + CODE_RUNS[2:] + SNAKE_RUNS[3:]
    for text in order:
        clock.advance(seconds=20)
        await world_core.remember(chat, author="ana", text=text)
    await world_core.regroup_worlds(chat)
    data = await world_core.export(chat)
    assert _partition(data) == {frozenset(CODE_RUNS), frozenset(SNAKE_RUNS)}
    snake_w = {m["world"] for m in data["messages"] if m["text"] in SNAKE_RUNS}
    ans = await world_core.ask(chat, "what does Nagini eat?")
    assert ans.facts and all(f.world in snake_w for f in ans.facts)


def test_the_margins_of_moving_each_message_are_those_of_the_moved_cuts() -> None:
    """_climb reads every single-message move's margin from the halves' sums at once; each
    must be the margin of that cut computed afresh, and a move that would leave a half below
    MIN_PART is never taken."""
    rng = np.random.default_rng(7)
    y = rng.standard_normal((11, 16)) + np.r_[np.ones(8), np.zeros(8)]
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    lab = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0], dtype=np.int64)
    s, n = _sums(y, lab, 2)
    moved = _moved_margins(y, lab, s, n, 0.3)
    for i in range(len(y)):
        cut = lab.copy()
        cut[i] = 1 - cut[i]
        if np.bincount(cut, minlength=2).min() < MIN_PART:
            assert moved[i] == -np.inf
        else:
            assert moved[i] == pytest.approx(_margin(y, cut, 0.3), abs=1e-9)


def _partition(data: dict[str, Any]) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for m in data["messages"]:
        groups.setdefault(m["world"], set()).add(m["text"])
    return {frozenset(g) for g in groups.values()}


async def test_a_restart_regroups_at_the_same_messages_as_a_run_through(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """The job run from the message path counts the chat's growth from what it saw last,
    kept with the chat: a bot restarted half-way (a deploy, a crash) groups the chat's
    messages as one that ran through, after every message (the crash test relies on it)."""
    texts = CODE[:6] + SNAKE
    steps: list[list[set[frozenset[str]]]] = []
    for restart_at in (None, 4):
        clock = ManualClock()
        core = adaptive_core(tmp_path / f"data-{restart_at}", use_embedder, ontology, clock)
        seen = []
        for i, text in enumerate(texts):
            if i == restart_at:
                await core.close()
                core = adaptive_core(tmp_path / f"data-{restart_at}", use_embedder, ontology, clock)
            clock.advance(seconds=20)
            await core.remember("tg:restart", author="ana", text=text)
            seen.append(_partition(await core.export("tg:restart")))
        await core.close()
        steps.append(seen)
    through, restarted = steps
    assert len(through[-1]) == 2  # the two topics, split as the chat grew
    for i, (a, b) in enumerate(zip(through, restarted, strict=True)):
        assert a == b, f"after message {i + 1}"


async def test_a_chat_rebuilt_from_its_record_has_the_worlds_it_had(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """A chat whose database cannot be opened is rebuilt from its durable record; the rebuild
    runs the regrouping job where the message path ran it, so the chat comes back with its
    worlds (without it, two topics the job had split came back glued, and bench/crash.py saw
    facts superseded or sent to review that had not been)."""
    data = tmp_path / "data"

    def open_core() -> Core:
        pool = StorePool(data, dim=use_embedder.dim, model_name=use_embedder.model_name)
        inbound = SqliteInboundLog(data / "inbound.sqlite3")
        cfg = CoreConfig(world_mode="adaptive")
        return Core(
            pool=pool,
            embedder=use_embedder,
            ontology=ontology,
            config=cfg,
            clock=clock,
            inbound=inbound,
        )

    clock = ManualClock()
    core = open_core()
    await _one_by_one(core, "tg:rebuilt", clock, CODE[:6] + SNAKE)
    before = _partition(await core.export("tg:rebuilt"))
    shard = core.pool.path("tg:rebuilt")
    await core.close()
    assert len(before) == 2  # the job split the two topics as the chat grew
    (shard / "graph.kz").write_bytes(b"not a database" * 1000)  # what a bad crash leaves
    core = open_core()
    try:
        assert _partition(await core.export("tg:rebuilt")) == before
    finally:
        await core.close()


async def _one_by_one(core: Core, chat: str, clock: ManualClock, texts: list[str]) -> None:
    for i, text in enumerate(texts):
        clock.advance(seconds=20)
        await core.remember(chat, author="ana", text=text, message_id=f"m{i}")


async def test_an_import_groups_a_chat_as_its_messages_sent_one_by_one(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """`python -m bot ingest` of a chat's history: the batch stops where a message makes the
    regrouping job due, the job runs, the rest follows (core/pipeline/due.py), so the chat's
    worlds are those it gets when the messages come live (220 messages of the tuning part; with
    the job only once at the end of the import they were not: 2.33 worlds per topic against
    1.58 on the whole part)."""
    rows = [
        json.loads(x)
        for x in (FIXTURES / "worlds2" / "tune.jsonl").read_text("utf-8").splitlines()[:220]
    ]
    clock = ManualClock()
    live = adaptive_core(tmp_path / "live", use_embedder, ontology, clock)
    for r in rows:
        clock.t = datetime.fromisoformat(r["ts"])
        await live.remember("c", author=r["author"], text=r["text"], message_id=r["id"], ts=clock.t)
    want = _partition(await live.export("c"))
    assert await live.pool.run("c", _newest_both_ways) is True
    await live.close()
    imported = adaptive_core(tmp_path / "import", use_embedder, ontology, clock)
    items = [
        ImportItem(
            author=r["author"],
            text=r["text"],
            message_id=r["id"],
            ts=datetime.fromisoformat(r["ts"]),
        )
        for r in rows
    ]
    got = await imported.remember_many("c", items)
    assert all(isinstance(r, IngestResult) for r in got)
    assert _partition(await imported.export("c")) == want
    assert await imported.pool.run("c", _newest_both_ways) is True
    await imported.close()


def _newest_both_ways(store: GraphStore) -> bool:
    """The texts offline names are made from, read from the chat's message index in memory
    (newest_texts), are those the database holds for each live world after the job's moves
    and merges."""
    from_db: dict[str, list[str]] = {}
    for _, world, _, text in reversed(store.world_messages()):
        w = store.worlds.get(world)
        if w is not None and not w.merged_into and len(from_db.setdefault(world, [])) < 200:
            from_db[world].append(text)
    assert len(from_db) >= 2
    assert newest_texts(store, 200) == from_db
    live, fresh = graph_tables(store)  # and the graph, kept in step through the moves
    assert live == fresh and live["mentions"]
    return True


async def test_a_regrouping_a_kill_cut_short_runs_when_its_message_is_taken_up(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """Killed after a message that made the job due was stored, before the job ran: the
    message's durable record is not finished, so the next start takes it up, finds it stored,
    and runs the job before any later message is routed."""
    texts = CODE[:6] + SNAKE
    clock = ManualClock()
    through = adaptive_core(tmp_path / "through", use_embedder, ontology, clock)
    await _one_by_one(through, "tg:k", clock, texts)
    want = _partition(await through.export("tg:k"))
    await through.close()

    data = tmp_path / "killed"
    clock = ManualClock()
    killed = _durable_core(data, use_embedder, ontology, clock)

    async def kill_at_first_due(chat: str) -> bool:
        if await killed.pool.run(chat, killed._ingest.ctx.regroup_due.pending):
            raise SystemExit("killed")  # what kill -9 leaves: stored, not regrouped, not done
        return False

    killed._ingest.regroup = kill_at_first_due
    sent = 0
    for i, text in enumerate(texts):
        clock.advance(seconds=20)
        sent = i + 1
        try:
            await killed.remember("tg:k", author="ana", text=text, message_id=f"m{i}")
        except SystemExit:
            break
    assert 0 < sent < len(texts)
    await killed.close()

    restarted = _durable_core(data, use_embedder, ontology, clock)
    assert await durable.recover(restarted) == 1
    for i, text in enumerate(texts[sent:], start=sent):
        clock.advance(seconds=20)
        await restarted.remember("tg:k", author="ana", text=text, message_id=f"m{i}")
    assert _partition(await restarted.export("tg:k")) == want
    await restarted.close()


def _durable_core(data: Path, embedder: Embedder, ontology: Ontology, clock: ManualClock) -> Core:
    pool = StorePool(data, dim=embedder.dim, model_name=embedder.model_name, max_open=8)
    cfg = CoreConfig(world_mode="adaptive")
    inbound = SqliteInboundLog(data / "inbound.sqlite3")
    return Core(
        pool=pool, embedder=embedder, ontology=ontology, config=cfg, clock=clock, inbound=inbound
    )


async def test_a_chat_forgotten_and_used_again_regroups_as_a_new_chat(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    """`/forget all` removes the chat's counts with its data: written to again, it regroups at
    the messages a new chat would."""
    texts = CODE[:6] + SNAKE
    steps = []
    for chat, before in (("tg:fresh", []), ("tg:again", SNAKE[:4])):
        clock = ManualClock()
        core = adaptive_core(tmp_path / chat.replace(":", "-"), use_embedder, ontology, clock)
        for text in before:
            clock.advance(seconds=20)
            await core.remember(chat, author="ana", text=text)
        if before:
            await core.forget_chat(chat)
        seen = []
        for text in texts:
            clock.advance(seconds=20)
            await core.remember(chat, author="ana", text=text)
            seen.append(_partition(await core.export(chat)))
        await core.close()
        steps.append(seen)
    for i, (a, b) in enumerate(zip(*steps, strict=True)):
        assert a == b, f"after message {i + 1}"


@pytest.mark.parametrize("cut", ["recorded", "moved"])
async def test_a_regrouping_plan_a_kill_cut_short_is_finished_as_planned(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder, cut: str
) -> None:
    """The job's moves and merges commit one by one (core.regroup_apply.carry_out says why), after
    the plan is recorded with the chat. Killed after the record, or after the moves but before
    the job's mark, the chat is finished as planned at the next run: the same worlds and facts
    as a run through."""
    from core.pipeline.maintenance import PLAN, _live_messages
    from core.regroup import plan

    chat = "tg:plan"
    glued = replace(
        params_for(use_embedder), base=-1.0, merge_inline=False, growth_share=0.0
    )  # one world live: the job splits it
    interleaved = [t for pair in zip(CODE, SNAKE, strict=False) for t in pair]
    results = []
    for run in ("through", "killed"):
        clock = ManualClock()
        data = tmp_path / run
        core = adaptive_core(data, use_embedder, ontology, clock, world_params=glued)
        await _tell(core, chat, clock, interleaved)
        if run == "killed":
            rows = await core.pool.run(chat, _live_messages)
            x = (await core._ingest.route_vectors([r[3] for r in rows])).astype(np.float64)
            ts = np.array([r[2].timestamp() for r in rows], dtype=np.float64)
            groups = plan([r[1] for r in rows], ts, x, glued)

            now = clock.now()

            args = (rows, groups, x, now, cut)
            await core.pool.run(chat, lambda store, a=args: _record_plan_then_kill(store, *a))
            await core.close()  # the kill: the plan recorded, the job not marked
            core = adaptive_core(data, use_embedder, ontology, clock, world_params=glued)
            assert await core.pool.run(chat, lambda s: bool(s.meta(PLAN)))
        report = await core.regroup_worlds(chat)
        assert report["split"] >= 1
        assert not await core.pool.run(chat, lambda s: s.meta(PLAN))
        exported = await core.export(chat)
        facts = sorted(
            (f["subject"], f["predicate"], f["object"], f["status"], tuple(f["sources"]))
            for f in exported["facts"]
        )
        texts = {m["id"]: m["text"] for m in exported["messages"]}
        facts = sorted((s, p, o, st, tuple(texts[m] for m in src)) for s, p, o, st, src in facts)
        results.append((_partition(exported), facts))
        assert await core.regroup_worlds(chat) == {"moved": 0, "split": 0, "merged": 0}
        await core.close()
    assert results[0] == results[1]


def _record_plan_then_kill(
    store: Any, rows: list[Any], groups: list[int], x: Any, now: datetime, cut: str
) -> None:
    """What apply_and_mark does before the kill: the plan recorded, then (cut "moved") its
    moves and merges carried out, the job not marked."""
    from core.pipeline.maintenance import PLAN
    from core.regroup_apply import carry_out, settle

    settled = settle(store, [r[0] for r in rows], [r[1] for r in rows], groups, x)
    assert settled.moves, "the plan moves messages"
    with store.transaction():
        for wid in settled.new_worlds:
            store.upsert_world(WorldRow(wid, "", np.zeros(x.shape[1], np.float32), 0, now, now, ""))
        store.set_meta(PLAN, settled.to_json())
    if cut == "moved":
        carry_out(store, settled, now)


def test_running_the_job_again_on_its_own_result_changes_nothing(use_embedder: Embedder) -> None:
    """Run after run, the job moved messages between partitions that lead to each other (2 on
    worlds2's tuning part, 7 on worlds3's, forever, each time moving their facts and renaming
    the worlds), or drifted for several runs before it settled. A plan is now one its own
    rounds leave as they are (a fixed point, or the best partition of a cycle), so from any
    start the second run of the job changes nothing."""
    rows = [json.loads(line) for line in W3_TUNE.read_text(encoding="utf-8").splitlines()]
    p = params_for(use_embedder)
    x = use_embedder.embed([r["text"] for r in rows]).astype(np.float64)
    ts = np.array([datetime.fromisoformat(r["ts"]).timestamp() for r in rows])

    def canonical(groups: list[int]) -> tuple[int, ...]:
        first: dict[int, int] = {}
        return tuple(first.setdefault(g, len(first)) for g in groups)

    for size in (5, 10, 20, 40):  # the old job cycled or drifted from each of these
        once = plan([str(i // size) for i in range(len(rows))], ts, x, p)
        again = plan([str(g) for g in once], ts, x, p)
        assert canonical(again) == canonical(once), size


def test_the_reassignment_finds_the_best_labels_of_the_whole_chat() -> None:
    """_segments (the job's Viterbi pass) against every labelling of small chats: the sum of
    each message's score for its group, minus the switch cost for each change of group
    within the window, is the best there is."""
    from itertools import product

    from core.regroup import _segments

    p = replace(REFERENCE, job_switch=0.15, window_s=300.0)
    rng = np.random.default_rng(7)
    for _ in range(60):
        n, k = int(rng.integers(1, 7)), int(rng.integers(1, 4))
        scores = rng.normal(0.2, 0.15, (n, k))
        ts = np.cumsum(rng.choice([10.0, 60.0, 900.0], n))
        got = [int(g) for g in _segments(scores, ts, p)[:, 0]]
        best = max(_chat_value(scores, ts, lab, p) for lab in product(range(k), repeat=n))
        assert abs(_chat_value(scores, ts, got, p) - best) < 1e-9, (n, k)


def _chat_value(
    scores: npt.NDArray[np.float64],
    ts: npt.NDArray[np.float64],
    labels: Sequence[int],
    p: WorldParams,
) -> float:
    """What the re-assignment maximises, for one labelling of the chat."""
    near = np.diff(ts) <= p.window_s
    switches = sum(bool(near[i - 1]) and labels[i] != labels[i - 1] for i in range(1, len(labels)))
    return float(sum(scores[i, g] for i, g in enumerate(labels))) - p.job_switch * switches


async def test_a_thanks_founds_no_world_and_leaves_two_topics_apart(
    world_core: Core, clock: ManualClock
) -> None:
    """A surf lesson's price, a pet python, then "obrigado!": the thanks founded a third young
    world, the regrouping job fell due and merged the two topics into one world (found in the
    console). A message that only thanks or greets has no topic: it is stored in the world of
    the message before it."""
    from core.models import IncomingMessage

    for text in (
        "a aula de surf custa 30 euros, pranchas incluídas",
        "my python Monty eats one mouse a week",
        "obrigado!",
    ):
        clock.advance(seconds=30)
        await world_core.handle_message("c", IncomingMessage(author="ana", text=text))
    data = await world_core.export("c")
    groups = _partition(data)
    assert len(groups) == 2, groups
    assert {"my python Monty eats one mouse a week", "obrigado!"} in groups, groups
