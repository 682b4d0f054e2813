"""Block Kit rendering. Pure functions from core values to Slack message payload parts.

Slack limits (https://docs.slack.dev/reference/block-kit): a section or context text holds at
most 3000 characters, a message at most 50 blocks, a context block at most 10 elements; and
chat.postMessage refuses blocks whose texts add up to more than about 12,000 characters
(`msg_blocks_too_long`, undocumented; slackapi/bolt-js#2509 and #2867 saw it from 11,341).
Nothing is cut: long text is split into several blocks at the largest boundary that fits, and
blocks beyond one message's limits go into follow-up messages (`paginate`).
"""

from __future__ import annotations

import json
from typing import Any

from bot.splitting import split_text as split_pieces
from bot.texts import t
from core.models import Answer, Forgotten, PendingFact

Block = dict[str, Any]
Message = tuple[str, list[Block] | None]  # (text, blocks) of one chat message

TEXT_LIMIT = 3000
MAX_BLOCKS = 50
MESSAGE_TEXT_BUDGET = 10_000  # block text per message, below the ~12,000 Slack refuses
MAX_PATHS = 5  # more paths than this read as noise under an answer
REVIEW_PAGE = 10  # each pending fact takes two blocks; stay far below the 50-block limit

ACTION_FORGET_CONFIRM = "kb_forget_confirm"
ACTION_FORGET_CANCEL = "kb_forget_cancel"
ACTION_REVIEW_APPROVE = "kb_review_approve"
ACTION_REVIEW_REJECT = "kb_review_reject"


def escape(text: str) -> str:
    """Escape the three characters Slack treats as markup in mrkdwn and message text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def split_text(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """Escaped `text` in pieces of at most `limit` characters, cut where a reader would
    (bot/splitting.py), never inside an entity."""
    return split_pieces(text, limit, escaped=True)


def mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def section(text: str) -> Block:
    """One section; `text` must fit (see `sections` for text of any length)."""
    return {"type": "section", "text": mrkdwn(text)}


def context(*texts: str) -> Block:
    """One context block of short texts side by side (see `notes` for long text)."""
    return {"type": "context", "elements": [mrkdwn(x) for x in texts]}


def sections(text: str) -> list[Block]:
    """Already-escaped `text` as as many section blocks as it needs, in order."""
    return [section(piece) for piece in split_text(text)] or [section(" ")]


def notes(text: str) -> list[Block]:
    """Already-escaped `text` in small print (context blocks), as many as it needs."""
    return [context(piece) for piece in split_text(text)]


def _text_size(value: Any) -> int:
    """Characters of text in a block, as Slack adds them up against a message's limit."""
    if isinstance(value, dict):
        return sum(
            len(v) if k == "text" and isinstance(v, str) else _text_size(v)
            for k, v in value.items()
        )
    if isinstance(value, list):
        return sum(_text_size(v) for v in value)
    return 0


def _page_text(blocks: list[Block]) -> str:
    """A page's own fallback text: what its sections and context blocks say."""
    lines: list[str] = []
    for block in blocks:
        if block["type"] == "section":
            lines.append(block["text"]["text"])
        elif block["type"] == "context":
            lines.extend(e["text"] for e in block["elements"] if "text" in e)
    return "\n".join(lines)


def paginate(text: str, blocks: list[Block], *, max_messages: int | None = None) -> list[Message]:
    """The messages that carry `blocks` in order, each within Slack's per-message limits.

    One message keeps `text` as its fallback; when more are needed each gets its own page's
    text, so a notification shows what that message says. `max_messages` is for a response_url
    (Slack takes five messages on one): the pages that do not fit go, in order, into a last
    message of plain text, which Slack shows up to 40,000 characters.
    """
    pages: list[list[Block]] = [[]]
    size = 0
    for block in blocks:
        n = _text_size(block)
        if pages[-1] and (len(pages[-1]) >= MAX_BLOCKS or size + n > MESSAGE_TEXT_BUDGET):
            pages.append([])
            size = 0
        pages[-1].append(block)
        size += n
    if len(pages) == 1:
        return [(text, pages[0])]
    messages: list[Message] = [(_page_text(page), page) for page in pages]
    if max_messages is not None and len(messages) > max_messages:
        keep = max(max_messages - 1, 0)
        rest = "\n".join(page_text for page_text, _ in messages[keep:])
        messages = [*messages[:keep], (rest, None)]
    return messages


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
    blocks = notes(preface) if preface else []
    blocks.extend(sections(escape(answer_body(answer))))
    label = t("slack.path", answer.language)
    if paths := _paths(answer):
        blocks.extend(notes("\n".join(f"*{label}:* {escape(p)}" for p in paths)))
    if answer.trace_id:
        blocks.append(
            context(t("slack.trace_hint", answer.language, trace=answer.trace_id, cmd=command))
        )
    return blocks


def answer_fallback(answer: Answer) -> str:
    """Plain text for notifications and clients without Block Kit: answer plus path lines."""
    label = t("slack.path", answer.language)
    missing = [f"{label}: {p}" for p in _paths(answer) if p not in answer.answer]
    return escape("\n".join([answer.answer, *missing]))


def text_blocks(text: str, *, preface: str | None = None) -> list[Block]:
    """A rendered plain text (bot/render.py: facts, worlds, trace, ingest result) as blocks."""
    blocks = notes(preface) if preface else []
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


def forget_blocks(name: str | None, lang: str, would: Forgotten | None = None) -> list[Block]:
    """The confirmation; `would` is what forgetting the name takes (Core.forget_preview)."""
    gone = would or Forgotten()
    question = (
        t("slack.forget_confirm_all", lang)
        if name is None
        else t(
            "slack.forget_confirm_entity",
            lang,
            name=escape(name),
            count=gone.facts,
            messages=gone.messages,
        )
    )
    return [
        *sections(question),
        {
            "type": "actions",
            "block_id": "kb_forget",
            "elements": [
                button(
                    t("slack.forget_button", lang),
                    ACTION_FORGET_CONFIRM,
                    forget_value(name, lang),
                    "danger",
                ),
                button(t("slack.cancel_button", lang), ACTION_FORGET_CANCEL, lang),
            ],
        },
    ]


def review_blocks(
    pending: list[PendingFact], rendered: list[str], lang: str, *, note: str | None = None
) -> list[Block]:
    """One section and one approve/reject pair per pending fact (`rendered` is its text)."""
    blocks = notes(note) if note else []
    if not pending:
        return [*blocks, section(t("slack.review_empty", lang))]
    blocks.append(section(t("slack.review_header", lang)))
    for item, text in zip(pending[:REVIEW_PAGE], rendered, strict=False):
        value = review_value(item.id, lang)
        blocks.extend(sections(escape(text)))
        blocks.append(
            {
                "type": "actions",
                # block ids must be unique in a message; action ids only within a block
                "block_id": f"kb_review:{item.id}"[:255],
                "elements": [
                    button(
                        t("slack.approve_button", lang), ACTION_REVIEW_APPROVE, value, "primary"
                    ),
                    button(t("slack.reject_button", lang), ACTION_REVIEW_REJECT, value, "danger"),
                ],
            }
        )
    if len(pending) > REVIEW_PAGE:
        blocks.append(context(t("slack.review_more", lang, count=len(pending) - REVIEW_PAGE)))
    return blocks
