"""Pure helpers: Slack markup in, Block Kit out, listener wiring."""

from __future__ import annotations

from bot.slack.blocks import (
    MAX_BLOCKS,
    MESSAGE_TEXT_BUDGET,
    TEXT_LIMIT,
    Block,
    answer_blocks,
    answer_fallback,
    escape,
    forget_value,
    paginate,
    parse_forget_value,
    sections,
    split_text,
)
from bot.slack.common import plain_text
from core.models import Answer

PATH = ["checkout", "payments", "antifraud", "encryption at rest"]


def test_plain_text_drops_the_bot_mention_and_unescapes() -> None:
    text = "<@UBOT>  ask <@U2|bob> about <#C1|general> &amp; <https://x.io|docs> &lt;3"
    assert plain_text(text, bot_user_id="UBOT") == "ask @U2 about #general & docs <3"
    assert plain_text("see <mailto:a@b.io> or <https://x.io>") == "see a@b.io or https://x.io"


def test_escape_only_the_three_markup_characters() -> None:
    assert escape("a < b & c > d *e*") == "a &lt; b &amp; c &gt; d *e*"


def long_line(n: int = 10_000) -> str:
    """One line of sentences, `n` characters long, with markup to escape on the way."""
    sentences = (f"Sentence {i} says R&D <owns> checkout." for i in range(n))
    return " ".join(sentences)[:n].rstrip()


def section_texts(blocks: list[Block]) -> list[str]:
    return [b["text"]["text"] for b in blocks if b["type"] == "section"]


def test_a_long_line_is_split_at_sentences_losing_nothing() -> None:
    text = escape(long_line())
    blocks = sections(text)
    pieces = section_texts(blocks)
    assert len(pieces) >= 4
    assert all(len(p) <= TEXT_LIMIT for p in pieces)
    assert all(p.endswith(".") for p in pieces[:-1])  # cut after a sentence, not inside one
    assert " ".join(pieces) == text


def test_many_lines_are_split_between_lines() -> None:
    lines = [f"• line {i:04d}: " + "x" * 480 for i in range(1000)]
    pieces = split_text("\n".join(lines))
    assert all(len(p) <= TEXT_LIMIT for p in pieces)
    assert "\n".join(pieces).split("\n") == lines


def test_an_unbroken_run_is_cut_hard_but_never_inside_an_entity() -> None:
    run = "y" * 10_000
    assert "".join(split_text(run)) == run
    assert [len(p) for p in split_text(run)] == [3000, 3000, 3000, 1000]
    escaped = escape("y" * 2998 + "&" + "z" * 5000)  # "&amp;" would straddle the cut at 3000
    pieces = split_text(escaped)
    assert pieces[0] == "y" * 2998
    assert pieces[1].startswith("&amp;")
    assert "".join(pieces) == escaped


def test_pages_keep_every_block_in_order_within_the_message_limits() -> None:
    blocks = sections("\n".join(f"line {i} " + "x" * 490 for i in range(1000)))
    pages = paginate("fallback", blocks)
    assert len(pages) > 1
    for text, page in pages:
        assert page is not None
        assert len(page) <= MAX_BLOCKS
        assert sum(len(t) for t in section_texts(page)) <= MESSAGE_TEXT_BUDGET
        assert text == "\n".join(section_texts(page))  # each message's own fallback
    assert [b for _, page in pages for b in page or []] == blocks
    small = sections("short")
    assert paginate("fallback", small) == [("fallback", small)]


def test_pages_beyond_a_response_urls_five_messages_end_as_plain_text() -> None:
    blocks = sections("\n".join(f"line {i} " + "x" * 490 for i in range(200)))
    everything = "\n".join(section_texts(blocks))
    pages = paginate("fallback", blocks, max_messages=4)
    assert len(pages) == 4
    *with_blocks, (rest, no_blocks) = pages
    assert all(page for _, page in with_blocks)
    assert no_blocks is None
    assert "\n".join([*(t for t, _ in with_blocks), rest]) == everything


def test_answer_blocks_keep_a_long_preface_and_answer() -> None:
    question = long_line(5000)
    answer = Answer(answer=long_line(), paths=[PATH], trace_id="t_1")
    blocks = answer_blocks(answer, command="/kb", preface=escape(question))
    notes = [e["text"] for b in blocks if b["type"] == "context" for e in b["elements"]]
    assert all(len(x) <= TEXT_LIMIT for x in [*notes, *section_texts(blocks)])
    assert " ".join(notes).startswith(escape(question))
    assert " ".join(section_texts(blocks)) == escape(long_line())


def test_answer_path_moves_to_a_context_block() -> None:
    extractive = Answer(
        answer="Here is what I know:\n• policy: encryption at rest\nPath: " + " → ".join(PATH),
        paths=[PATH],
        trace_id="t_1",
    )
    blocks = answer_blocks(extractive, command="/kb")
    section_text = "\n".join(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert " → ".join(PATH) not in section_text  # not twice
    assert blocks[1]["type"] == "context"
    assert " → ".join(PATH) in blocks[1]["elements"][0]["text"]
    assert "/kb why t_1" in blocks[2]["elements"][0]["text"]
    assert answer_fallback(extractive).count(" → ".join(PATH)) == 1


def test_llm_answer_gets_its_path_in_the_fallback_text() -> None:
    llm = Answer(answer="Encryption at rest applies.", paths=[PATH], language="pt")
    assert answer_fallback(llm) == "Encryption at rest applies.\nCaminho: " + " → ".join(PATH)


def test_forget_value_keeps_an_entity_called_all_apart() -> None:
    assert parse_forget_value(forget_value("all", "en")) == ("all", "en")
    assert parse_forget_value(forget_value(None, "ru")) == (None, "ru")
    assert len(forget_value("x" * 200, "en")) < 2000  # Slack's button value limit
