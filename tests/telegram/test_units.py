"""Pure pieces of the front-end: splitting, escaping, rate limit, triple parsing, languages."""

from __future__ import annotations

import pytest

from bot.telegram.formatting import MESSAGE_LIMIT, escape, split_message, utf16_len
from bot.telegram.keyboards import Confirmations, review_keyboard
from bot.telegram.ratelimit import QuestionLimiter
from bot.telegram.texts import command_list, help_text
from bot.texts import LANGUAGES, language_of
from bot.triples import parse_triple
from core.errors import InvalidInput


def test_short_text_is_one_piece() -> None:
    assert split_message("hello") == ["hello"]


def test_split_prefers_paragraphs() -> None:
    paragraphs = [f"{i} " + "x" * 1500 for i in range(7)]  # ~10.5k characters
    pieces = split_message("\n\n".join(paragraphs))
    assert all(utf16_len(p) <= MESSAGE_LIMIT for p in pieces)
    assert pieces == [
        "\n\n".join(paragraphs[0:2]),
        "\n\n".join(paragraphs[2:4]),
        "\n\n".join(paragraphs[4:6]),
        paragraphs[6],
    ]


def test_split_falls_back_to_lines_then_words_then_hard() -> None:
    lines = "\n".join("y" * 1000 for _ in range(6))
    assert [len(p) for p in split_message(lines)] == [4003, 2001]
    words = " ".join("z" * 9 for _ in range(1000))  # 9999 characters, no newlines
    pieces = split_message(words)
    assert all(len(p) <= MESSAGE_LIMIT for p in pieces)
    assert " ".join(pieces) == words
    assert split_message("a" * 10_000) == ["a" * 4096, "a" * 4096, "a" * 1808]


def test_hard_split_counts_utf16_and_keeps_emoji_whole() -> None:
    text = "😀" * 3000  # 6000 UTF-16 units
    pieces = split_message(text)
    assert [utf16_len(p) for p in pieces] == [4096, 1904]
    assert "".join(pieces) == text


def test_blank_pieces_are_dropped() -> None:
    assert split_message("a" * 4096 + "\n\n\n\n" + "b") == ["a" * 4096, "b"]


def test_escape_html() -> None:
    assert escape('<b>&"x"</b>') == '&lt;b&gt;&amp;"x"&lt;/b&gt;'


def test_limiter_window() -> None:
    now = [0.0]
    limiter = QuestionLimiter(2, clock=lambda: now[0])
    assert limiter.check(1) == 0
    assert limiter.check(1) == 0
    assert limiter.check(1) == 60
    assert limiter.check(2) == 0  # per user
    now[0] = 45.0
    assert limiter.check(1) == 15
    now[0] = 60.0
    assert limiter.check(1) == 0


def test_limiter_zero_disables() -> None:
    limiter = QuestionLimiter(0)
    assert all(limiter.check(1) == 0 for _ in range(100))


def test_parse_triple() -> None:
    triple = parse_triple([" checkout ", " Service ", " depends on ", " payments ", " service "])
    assert (triple.subject, triple.subject_kind, triple.predicate) == (
        "checkout",
        "service",
        "DEPENDS_ON",
    )
    assert (triple.object, triple.object_kind) == ("payments", "service")
    with pytest.raises(InvalidInput):
        parse_triple([" ", " service ", " DEPENDS_ON ", " payments ", " service"])


def test_confirmations_expire_and_are_per_chat() -> None:
    now = [0.0]
    store = Confirmations(clock=lambda: now[0])
    token = store.add(chat_id=1, user_id=7, entity="payments")
    assert store.get(token, chat_id=2) is None
    assert store.get(token, chat_id=1) is not None
    now[0] = Confirmations.TTL_S + 1
    assert store.get(token, chat_id=1) is None


def test_review_keyboard_refuses_ids_that_do_not_fit() -> None:
    assert review_keyboard("p" * 40, "en") is not None
    assert review_keyboard("p" * 80, "en") is None
    assert review_keyboard("a|b", "en") is None


@pytest.mark.parametrize(
    ("code", "lang"), [("pt-br", "pt"), ("ru", "ru"), ("en-US", "en"), ("de", "en"), (None, "en")]
)
def test_language_of(code: str | None, lang: str) -> None:
    assert language_of(code) == lang


def test_help_lists_every_command_in_every_language() -> None:
    for lang in LANGUAGES:
        listed = command_list(lang)
        text = help_text(lang)
        assert all(f"/{name} " in text for name, _ in listed)
        assert all(3 <= len(description) <= 256 for _, description in listed)
    english = dict(command_list("en"))
    for lang in ("pt", "ru"):  # translated, not the English fallback
        assert all(description != english[name] for name, description in command_list(lang))
