"""Issue 15: the regrouping job splits a world holding two topics (facts and entities follow
their messages, the bigger part keeps the id), merges fragments, renames; Python the language
and the pet python end in separate worlds in en/pt/ru and questions never cross over."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from bot.jobs import run_jobs_once
from bot.settings import Settings
from core.models import TripleIn
from core.ports import Embedder
from core.regroup import MIN_PART, plan
from core.regroup_cut import _margin, _moved_margins, _sums
from core.service import Core
from core.worlds import REFERENCE, WorldParams, joined_score, params_for
from ontology import Ontology
from tests.worlds.conftest import CODE, SNAKE, ManualClock, adaptive_core, partition, tell_hourly

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
W3_TUNE = FIXTURES / "worlds3" / "tune.jsonl"


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
        first = await tell_hourly(core, chat, clock, interleaved)
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
    await tell_hourly(world_core, chat, clock, CODE)
    clock.advance(hours=5)
    await tell_hourly(world_core, chat, clock, SNAKE)
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
    code_w = (await tell_hourly(world_core, chat, clock, CODE))[0]
    clock.advance(hours=5)
    snake_w = (await tell_hourly(world_core, chat, clock, SNAKE))[0]
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
    await tell_hourly(world_core, chat, clock, JAVA_CODE)
    clock.advance(hours=5)
    await tell_hourly(world_core, chat, clock, JAVA_ISLAND)
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
    await tell_hourly(world_core, chat, clock, JAVA_CODE)
    clock.advance(hours=5)
    await tell_hourly(world_core, chat, clock, JAVA_ISLAND)
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
    assert partition(data) == {frozenset(SNAKE_FOUR), frozenset(CODE_FOUR)}


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
    assert partition(data) == {frozenset(CODE_RUNS), frozenset(SNAKE_RUNS)}
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
    groups = partition(data)
    assert len(groups) == 2, groups
    assert {"my python Monty eats one mouse a week", "obrigado!"} in groups, groups
