"""A client's typo read as the chat's word (core/index/spelling.py), and only then."""

from __future__ import annotations

import pytest

from core.index.spelling import respelled

CHAT = {"service", "full", "basic", "launch", "maria", "доставка", "стоимость", "card", "preço"}


def known(token: str) -> bool:
    return token in CHAT


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("whats included in full servce?", "whats included in full service?"),
        ("qual é o preco?", "qual é o preço?"),  # no cedilla on a phone
        ("сколько стоит доставкк?", "сколько стоит доставка?"),
        ("какая стоимось?", "какая стоимость?"),
    ],
)
def test_a_typo_one_edit_from_a_chat_word_is_read_as_it(question: str, read: str) -> None:
    assert respelled(question, known) == read


@pytest.mark.parametrize(
    "question",
    [
        "do you serve lunch?",  # a word of the language: what the client meant ("launch")
        "where does Marta work?",  # capitalised: may name someone else than Maria
        "is the cart free?",  # short: too many neighbours ("card")
        "whats the prise?",  # no chat word one edit away
        "full service?",  # already the chat's words
    ],
)
def test_other_words_are_left_as_written(question: str) -> None:
    assert respelled(question, known) == question


def test_two_chat_words_one_edit_away_leave_it_as_written() -> None:
    """ "servico" is one edit from "service" and from "serviço": which one was meant is not
    known."""
    assert respelled("o servico?", lambda t: t in {"service", "serviço"}) == "o servico?"
    assert respelled("o servico?", lambda t: t == "serviço") == "o serviço?"
