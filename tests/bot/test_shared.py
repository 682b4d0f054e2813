"""The pieces both front-ends share: who the bot talks to, the follow-up line of a hand-off,
the triple syntax and the long-text splitter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.conversation import is_overheard, with_follow_up
from bot.splitting import split_text, utf16_len
from bot.texts import LANGUAGES, catalogue, t
from bot.triples import MalformedTriple, explicit_triple
from core.models import Answer, Reply


@pytest.mark.parametrize(
    ("shared", "addressed", "overheard"),
    [(False, False, False), (False, True, False), (True, True, False), (True, False, True)],
)
def test_only_unaddressed_messages_in_shared_spaces_are_overheard(
    shared: bool, addressed: bool, overheard: bool
) -> None:
    assert is_overheard(shared=shared, addressed=addressed) is overheard


def test_follow_up_line_is_added_in_the_clients_language_only_for_a_hand_off() -> None:
    plain = Reply(kind="remembered", text="Lembrei 1 fato.", language="pt")
    assert with_follow_up(plain) == plain
    answer = Answer(answer="O plano custa 10.", language="pt", trace_id="t_1")
    raised = Reply(kind="answer", text=answer.answer, answer=answer, handoff="h_1", language="pt")
    shown = with_follow_up(raised)
    line = t("lead.follow_up", "pt")
    assert shown.text == f"O plano custa 10.\n\n{line}"
    assert shown.answer is not None and shown.answer.answer.endswith(line)  # what Slack renders


def test_triple_syntax() -> None:
    assert explicit_triple("checkout depends on payments") is None
    triple = explicit_triple(" Acme | Company | belongs to | Acme Holding | company ")
    assert triple is not None
    assert (triple.subject, triple.subject_kind, triple.predicate) == (
        "Acme",
        "company",
        "BELONGS_TO",
    )
    with pytest.raises(MalformedTriple):
        explicit_triple("Acme | company | BELONGS_TO")


def test_splitter_measures_what_each_platform_counts() -> None:
    text = ("Primeira frase. " * 400).strip()  # ~6,400 characters, sentences, no newlines
    pieces = split_text(text, 3000)
    assert all(len(p) <= 3000 and p.endswith(".") for p in pieces)
    assert " ".join(pieces) == text
    emoji = "😀" * 3000
    assert [utf16_len(p) for p in split_text(emoji, 4096, measure=utf16_len)] == [4096, 1904]


def test_every_text_has_english_and_only_known_languages() -> None:
    for key, variants in catalogue().items():
        assert "en" in variants, key
        assert set(variants) <= set(LANGUAGES), key


def test_every_literal_key_the_front_ends_use_is_in_a_catalogue() -> None:
    """The words live in bot/locales/*.toml: a key a handler names and no catalogue holds
    would fail only when that reply is sent."""
    bot_dir = Path(__file__).resolve().parents[2] / "bot"
    used = {
        m.group(1)
        for path in bot_dir.rglob("*.py")
        for m in re.finditer(r"""\bt\(\s*["']([a-z_.]+)["']""", path.read_text("utf-8"))
    }
    assert len(used) > 50
    assert sorted(used - set(catalogue())) == []
