"""core/recall.py as pure functions: periods, "when", the keyword index, fusion, neighbours."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from core.index.vectors import VectorMatrix
from core.models import Trace
from core.quote import pick_quote
from core.recall import (
    Hit,
    MessageIndex,
    RecallConfig,
    is_when_question,
    nearest,
    parse_period,
    rank,
)
from core.sentences import sentences

NOW = datetime(2024, 6, 18, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did we decide in May?", "2024-05-01", "2024-06-01"),
        ("O que decidimos em maio?", "2024-05-01", "2024-06-01"),
        ("Что мы решили в мае?", "2024-05-01", "2024-06-01"),
        ("What happened yesterday?", "2024-06-17", "2024-06-18"),
        ("O que aconteceu ontem?", "2024-06-17", "2024-06-18"),
        ("Что было вчера?", "2024-06-17", "2024-06-18"),
        ("What did we do last week?", "2024-06-10", "2024-06-17"),
        ("O que fizemos na semana passada?", "2024-06-10", "2024-06-17"),
        ("Что мы делали на прошлой неделе?", "2024-06-10", "2024-06-17"),
        ("What changed last month?", "2024-05-01", "2024-06-01"),
        ("Any news from 2024-03-04?", "2024-03-04", "2024-03-05"),
        ("What happened on March 4th?", "2024-03-04", "2024-03-05"),
        ("O que houve em 4 de março?", "2024-03-04", "2024-03-05"),
        ("Что было 4 марта?", "2024-03-04", "2024-03-05"),
        ("What happened in December?", "2023-12-01", "2024-01-01"),  # the latest December
        ("What did we plan 3 days ago?", "2024-06-15", "2024-06-16"),
    ],
)
def test_periods_in_three_languages(question: str, start: str, end: str) -> None:
    period = parse_period(question, NOW)
    assert period is not None, question
    assert (period.start.date().isoformat(), period.end.date().isoformat()) == (start, end)


@pytest.mark.parametrize(
    "question", ["What may I ask?", "Which database do we use?", "v1.2 status?"]
)
def test_no_period_where_there_is_none(question: str) -> None:
    assert parse_period(question, NOW) is None


def test_when_questions() -> None:
    assert all(
        map(
            is_when_question,
            [
                "When did Rafael start?",
                "Quando foi a demo?",
                "Когда был релиз?",
                "On what date did we sign?",
            ],
        )
    )
    assert not any(map(is_when_question, ["Who signed?", "What did we decide?"]))


def _index(texts: list[tuple[str, str, datetime]]) -> tuple[MessageIndex, VectorMatrix]:
    index, vectors = MessageIndex(), VectorMatrix(4)
    rng = np.random.default_rng(0)
    for i, (author, text, ts) in enumerate(texts):
        v = rng.standard_normal(4).astype(np.float32)
        vectors.add(f"m{i}", v / np.linalg.norm(v))
        index.add(f"m{i}", author, text, ts)
    return index, vectors


def test_row_scores_follow_each_message_to_its_vector() -> None:
    """A message's score is its own vector's: read as is while every message's vector is at
    its own row, mapped once one is not (stored out of order, or without a vector)."""
    t = NOW - timedelta(days=1)
    index, vectors = _index([("a", f"note {i}", t) for i in range(3)])
    sims = np.asarray([0.1, 0.2, 0.3], dtype=np.float32)
    assert index.row_scores(vectors, sims).tolist() == pytest.approx([0.1, 0.2, 0.3])
    vectors.add("m4", np.asarray([1, 0, 0, 0], dtype=np.float32))  # ahead of its message
    index.add("m3", "a", "no vector yet", t)
    index.add("m4", "a", "the vector came first", t)
    sims = np.asarray([0.1, 0.2, 0.3, 0.4], dtype=np.float32)  # row 3 is m4's
    assert index.row_scores(vectors, sims).tolist() == pytest.approx([0.1, 0.2, 0.3, -1.0, 0.4])
    vectors.add("m3", np.asarray([0, 1, 0, 0], dtype=np.float32))  # as many rows as messages
    sims = np.asarray([0.1, 0.2, 0.3, 0.4, 0.5], dtype=np.float32)  # rows 3 and 4 crossed
    assert index.row_scores(vectors, sims).tolist() == pytest.approx([0.1, 0.2, 0.3, 0.5, 0.4])


def test_bm25_matches_inflected_forms() -> None:
    t = NOW - timedelta(days=1)
    index, _ = _index(
        [
            ("a", "платежи зависят от антифрода", t),
            ("b", "lunch at noon", t),
            ("c", "os pagamentos atrasaram", t),
        ]
    )
    assert [index.ids[r] for r in index.bm25("Что с платежами?", 5)] == ["m0"]
    assert [index.ids[r] for r in index.bm25("e o pagamento?", 5)] == ["m2"]
    assert index.bm25("what about the weather", 5) == []


def test_bm25_finds_a_loanword_written_in_the_other_script() -> None:
    """ "do you do apostille?" shares no token with "Апостиль мы сами не ставим": the words are
    also posted by their sound, searched from the other script only, and only when long."""
    t = NOW - timedelta(days=1)
    index, _ = _index(
        [
            ("a", "Апостиль мы сами не ставим, это в Доме юстиции", t),
            ("b", "маникюр с покрытием 2200", t),
            ("c", "a pastel painting for the lobby", t),  # "pastel" sounds like "apostille"
            ("d", "the apostille takes one day", t),
        ]
    )
    assert [index.ids[r] for r in index.bm25("do you do apostille?", 5)][:2] == ["m3", "m0"]
    assert [index.ids[r] for r in index.bm25("how much is a manicure?", 5)] == ["m1"]
    found = [index.ids[r] for r in index.bm25("сколько стоит апостиль?", 5)]
    assert found[0] == "m0" and {"m2", "m3"} <= set(found)  # by its token, and by sound
    assert 3 not in index.bm25("a pastel", 5)  # in the same script, by its token only
    index.retext("m0", "справки делаем за один день")  # the sound goes with the words
    assert "m0" not in [index.ids[r] for r in index.bm25("do you do apostille?", 5)]


def test_period_ranks_first_and_neighbours_join() -> None:
    day = timedelta(days=1)
    rows = [("ana", f"decision number {i}", NOW - (40 - i) * day) for i in range(40)]
    index, vectors = _index(rows)
    sims = vectors.scores(np.asarray([1, 0, 0, 0], dtype=np.float32))
    hits = rank(
        index,
        vectors,
        sims,
        "Which decision did we take in May?",
        entity_messages=[],
        now=NOW,
        cfg=RecallConfig(evidence_k=10),
    )
    in_may = [h for h in hits if h.ts.month == 5]
    assert in_may and hits[: len(in_may)] == in_may
    assert all("time" in h.signals for h in in_may)
    assert any("neighbours" in h.signals for h in hits) or len(hits) == 10


def test_speaker_signal_finds_the_authors_messages() -> None:
    t = NOW - timedelta(days=3)
    rows = [("Ana", f"status update {i}", t) for i in range(30)] + [
        ("Rafael", "I moved to Campinas", t)
    ]
    index, vectors = _index(rows)
    sims = vectors.scores(np.asarray([0, 1, 0, 0], dtype=np.float32))
    hits = rank(
        index,
        vectors,
        sims,
        "Where does Rafael live?",
        entity_messages=[],
        now=NOW,
        cfg=RecallConfig(evidence_k=10),
    )
    found = {h.id: h for h in hits}
    assert "m30" in found and "speaker" in found["m30"].signals


def test_old_traces_without_signals_still_load() -> None:
    body = (
        '{"id": "t_1", "question": "q", "created_at": "2024-01-01T00:00:00Z", "seeds": [], '
        '"nodes": [], "edges": [], "paths": [], "evidence": ["m1"], "answer": "a", '
        '"model": "extractive"}'
    )
    trace = Trace.model_validate_json(body)
    assert trace.evidence == ["m1"] and trace.evidence_hits == []


def test_nearest_is_by_meaning_alone_with_chit_chat_demoted() -> None:
    index, vectors = MessageIndex(), VectorMatrix(2)
    rows = [("m0", "ok", [1.0, 0.0]), ("m1", "luggage storage is four euros", [0.95, 0.31])]
    rows += [("m2", "city bikes cost fifteen euros a day", [0.0, 1.0])]
    for mid, text, vec in rows:
        index.add(mid, "a", text, NOW)
        vectors.add(mid, np.asarray(vec, dtype=np.float32))
    sims = vectors.scores(np.asarray([1.0, 0.0], dtype=np.float32))
    got = [h.id for h in nearest(index, vectors, sims, 2, RecallConfig())]
    assert got == ["m1", "m0"]  # "ok" is nearer but chit-chat: it loses 0.15


class _Flat:
    """Every word as common as every other (ChatWords)."""

    def idf(self, tok: str) -> float:
        return 1.0

    def rare(self, tok: str) -> bool:
        return False


def test_a_quote_looks_at_the_nearest_messages_beyond_the_fused_ones() -> None:
    hits = [Hit(f"f{i}", 0.03, ("words",), NOW, "a", f"lunch at noon number {i}") for i in range(8)]
    near = [Hit("n0", 0.0, ("meaning",), NOW, "b", "the luggage storage costs 4 euros a bag")]
    args = {"chat_words": _Flat()}
    assert pick_quote("how much is luggage storage?", hits, **args) is None
    got = pick_quote("how much is luggage storage?", hits, nearest=near, **args)
    assert got is not None and got.message_id == "n0"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Dr. Paulo é o responsável pela ortodontia.", 1),  # was quoted without "Dr."
        ("A Dra. Marina trabalha aqui. Ela atende às terças.", 2),
        ("Офис на ул. Ленина, д. 5. Звоните заранее.", 2),
        ("Ask J. Smith about it. He knows.", 2),
        ("We close at 7 p.m. Come by before.", 2),
        ("Yes. No. Maybe.", 3),
    ],
)
def test_a_title_street_word_or_initial_ends_no_sentence(text: str, expected: int) -> None:
    parts = sentences(text)
    assert len(parts) == expected, parts
    assert " ".join(parts) == text  # nothing dropped, nothing reordered


def test_a_word_read_as_no_author_names_one_who_writes_later() -> None:
    """names_an_author remembers its answers per word: a new author forgets them, or the
    first name of someone who writes later would stay a thing ("Инеш" of Inês)."""
    index = MessageIndex()
    index.add("m0", "Ana", "bom dia", NOW)
    assert not index.names_an_author("инеш")
    index.add("m1", "Inês", "a aula passa para as 18h", NOW)
    assert index.names_an_author("инеш")
    assert index.names_an_author("ана")
