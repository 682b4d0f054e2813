"""Block Kit rendering. Pure functions from core values to Slack message payload parts.

Slack limits (https://docs.slack.dev/reference/block-kit): a section or context text holds at
most 3000 characters, a message at most 50 blocks, a context block at most 10 elements; longer
content is cut rather than rejected by Slack with `invalid_blocks`.
"""

from __future__ import annotations

import json
from typing import Any

from bot.slack.texts import t
from core.models import Answer, PendingFact

Block = dict[str, Any]

TEXT_LIMIT = 3000
MAX_BLOCKS = 50
MAX_PATHS = 5  # more paths than this read as noise under an answer
REVIEW_PAGE = 10  # each pending fact takes two blocks; stay far below the 50-block limit

ACTION_FORGET_CONFIRM = "kb_forget_confirm"
ACTION_FORGET_CANCEL = "kb_forget_cancel"
ACTION_REVIEW_APPROVE = "kb_review_approve"
ACTION_REVIEW_REJECT = "kb_review_reject"


def escape(text: str) -> str:
    """Escape the three characters Slack treats as markup in mrkdwn and message text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int = TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": _cut(text)}


def section(text: str) -> Block:
    return {"type": "section", "text": mrkdwn(text)}


def context(*texts: str) -> Block:
    return {"type": "context", "elements": [mrkdwn(x) for x in texts[:10]]}


def sections(text: str) -> list[Block]:
    """Already-escaped `text` as section blocks split on line breaks, within Slack's limits."""
    chunks: list[str] = []
    current = ""
    for line in text.splitlines() or [""]:
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) <= TEXT_LIMIT:
            current = candidate
            continue
        if current:
            chunks.append(current)
        current = _cut(line)
    chunks.append(current or " ")  # Slack rejects an empty section text
    return [section(c) for c in chunks[: MAX_BLOCKS - 4]]  # room for preface, paths, trace


def path_line(path: list[str]) -> str:
    return " → ".join(path)


def _paths(answer: Answer) -> list[str]:
    return [path_line(p) for p in answer.paths[:MAX_PATHS]]


def answer_body(answer: Answer) -> str:
    """The answer text without its own path lines: the paths get a context block of their own.

    The extractive answer already ends with "Path: a → b → c" lines, an LLM answer does not;
    a line is moved only when it contains one of the answer's paths verbatim.
    """
    paths = _paths(answer)
    kept = [line for line in answer.answer.splitlines() if not any(p in line for p in paths)]
    return "\n".join(kept).strip() or answer.answer


def answer_blocks(answer: Answer, *, command: str, preface: str | None = None) -> list[Block]:
    """The answer, then the paths of facts it used (context), then how to ask why."""
    blocks: list[Block] = []
    if preface:
        blocks.append(context(preface))
    blocks.extend(sections(escape(answer_body(answer))))
    label = t("path", answer.language)
    if paths := _paths(answer):
        blocks.append(context("\n".join(f"*{label}:* {escape(p)}" for p in paths)))
    if answer.trace_id:
        blocks.append(context(t("trace_hint", answer.language, trace=answer.trace_id, cmd=command)))
    return blocks[:MAX_BLOCKS]


def answer_fallback(answer: Answer) -> str:
    """Plain text for notifications and clients without Block Kit: answer plus path lines."""
    label = t("path", answer.language)
    missing = [f"{label}: {p}" for p in _paths(answer) if p not in answer.answer]
    return escape("\n".join([answer.answer, *missing]))


def text_blocks(text: str, *, preface: str | None = None) -> list[Block]:
    """A core-rendered plain text (facts, worlds, trace, ingest result) as blocks."""
    blocks = [context(preface)] if preface else []
    return blocks + sections(escape(text))


def button(text: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "button",
        "text": {"type": "plain_text", "text": text[:75]},
        "action_id": action_id,
        "value": value,
    }
    if style:
        element["style"] = style
    return element


# Button values carry the language of the command that showed them: a button press comes
# with no locale and no text to guess one from.


def forget_value(name: str | None, lang: str) -> str:
    """What to forget; None means the whole conversation.

    JSON keeps an entity literally called "all" apart from the whole-conversation request.
    """
    target: dict[str, object] = {"all": True} if name is None else {"entity": name}
    return json.dumps({**target, "lang": lang}, ensure_ascii=False)


def parse_forget_value(value: str) -> tuple[str | None, str]:
    """(entity name or None for everything, language) from a forget button value."""
    data = json.loads(value)
    return (None if data.get("all") else str(data["entity"])), str(data.get("lang", "en"))


def review_value(pending_id: str, lang: str) -> str:
    return json.dumps({"id": pending_id, "lang": lang})


def parse_review_value(value: str) -> tuple[str, str]:
    """(pending fact id, language) from a review button value."""
    data = json.loads(value)
    return str(data["id"]), str(data.get("lang", "en"))


def forget_blocks(name: str | None, lang: str) -> list[Block]:
    question = (
        t("forget_confirm_all", lang)
        if name is None
        else t("forget_confirm_entity", lang, name=escape(name))
    )
    return [
        section(question),
        {
            "type": "actions",
            "block_id": "kb_forget",
            "elements": [
                button(
                    t("forget_button", lang),
                    ACTION_FORGET_CONFIRM,
                    forget_value(name, lang),
                    "danger",
                ),
                button(t("cancel_button", lang), ACTION_FORGET_CANCEL, lang),
            ],
        },
    ]


def review_blocks(
    pending: list[PendingFact], rendered: list[str], lang: str, *, note: str | None = None
) -> list[Block]:
    """One section and one approve/reject pair per pending fact (`rendered` is its text)."""
    blocks: list[Block] = [context(note)] if note else []
    if not pending:
        return [*blocks, section(t("review_empty", lang))]
    blocks.append(section(t("review_header", lang)))
    for item, text in zip(pending[:REVIEW_PAGE], rendered, strict=False):
        value = review_value(item.id, lang)
        blocks.append(section(escape(text)))
        blocks.append(
            {
                "type": "actions",
                # block ids must be unique in a message; action ids only within a block
                "block_id": f"kb_review:{item.id}"[:255],
                "elements": [
                    button(t("approve_button", lang), ACTION_REVIEW_APPROVE, value, "primary"),
                    button(t("reject_button", lang), ACTION_REVIEW_REJECT, value, "danger"),
                ],
            }
        )
    if len(pending) > REVIEW_PAGE:
        blocks.append(context(t("review_more", lang, count=len(pending) - REVIEW_PAGE)))
    return blocks
