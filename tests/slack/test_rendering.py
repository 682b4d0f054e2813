"""Pure helpers: Slack markup in, Block Kit out, listener wiring."""

from __future__ import annotations

import inspect
import json
from typing import Any

from slack_bolt.util.utils import get_arg_names_of_callable

from bot.slack.blocks import (
    MAX_BLOCKS,
    TEXT_LIMIT,
    answer_blocks,
    answer_fallback,
    escape,
    forget_value,
    parse_forget_value,
    sections,
)
from bot.slack.common import keyword_only, plain_text
from core.models import Answer

PATH = ["checkout", "payments", "antifraud", "encryption at rest"]


def test_plain_text_drops_the_bot_mention_and_unescapes() -> None:
    text = "<@UBOT>  ask <@U2|bob> about <#C1|general> &amp; <https://x.io|docs> &lt;3"
    assert plain_text(text, bot_user_id="UBOT") == "ask @U2 about #general & docs <3"
    assert plain_text("see <mailto:a@b.io> or <https://x.io>") == "see a@b.io or https://x.io"


def test_escape_only_the_three_markup_characters() -> None:
    assert escape("a < b & c > d *e*") == "a &lt; b &amp; c &gt; d *e*"


def test_long_text_stays_within_block_kit_limits() -> None:
    blocks = sections("\n".join("x" * 500 for _ in range(1000)))
    assert len(blocks) <= MAX_BLOCKS
    assert all(len(b["text"]["text"]) <= TEXT_LIMIT for b in blocks)
    (one,) = sections("y" * 10_000)  # a single over-long line is cut, not rejected by Slack
    assert len(one["text"]["text"]) == TEXT_LIMIT


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


async def test_keyword_only_listeners_get_their_arguments_from_bolt() -> None:
    seen: dict[str, Any] = {}

    async def listener(*, ack: object, body: object) -> str:
        seen.update(ack=ack, body=body)
        return "done"

    # Bolt injects only the names getfullargspec(...).args reports
    assert get_arg_names_of_callable(listener) == []
    wrapped = keyword_only(listener)
    assert get_arg_names_of_callable(wrapped) == ["ack", "body"]
    assert inspect.iscoroutinefunction(wrapped)
    assert await wrapped(ack=1, body=json.loads("{}")) == "done"
    assert seen == {"ack": 1, "body": {}}
