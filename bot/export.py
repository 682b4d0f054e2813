"""`python -m bot export`: a chat as JSON Lines (issue 12), which `ingest` reads back.

One line per message, oldest first: {"id", "author", "text", "ts", "world"}, and "reply_to" (the
id of the message it answers, a Telegram reply or a Slack thread) when it has one; then one line per
fact, history included, oldest first: {"subject", "subject_kind", "predicate", "object",
"object_kind", "confidence", "sources", "valid_from", "valid_to", "status"}. Field names are a
contract, like the rest of the JSON CLI. `ingest` of such a file (restore_file) restores the
chat as it was instead of extracting its messages again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from core.clock import parse_timestamp
from core.contract import CoreApi
from core.errors import CoreError
from core.models import FactView
from core.rows import message_ref, new_id

MESSAGE_FIELDS = ("id", "author", "text", "ts", "world")
# a fact's line keeps what FactView holds but its id and world: an import gives new ones
FACT_FIELDS = tuple(name for name in FactView.model_fields if name not in ("id", "world"))


def export_lines(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON Lines objects of a chat export (Core.export)."""
    lines = [
        {k: m.get(k) for k in MESSAGE_FIELDS}
        | ({"reply_to": m["reply_to"]} if m.get("reply_to") else {})
        for m in data["messages"]
    ]
    facts = sorted(data["facts"], key=lambda f: (f["valid_from"], f["id"]))
    lines.extend({k: f.get(k) for k in FACT_FIELDS} for f in facts)
    return lines


async def export_chat(core: CoreApi, chat: str, out: TextIO) -> int:
    """Write the chat to `out`; returns the number of lines."""
    lines = export_lines(await core.export(chat))
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(lines)


def is_export(path: Path) -> bool:
    """An export of `python -m bot export` (its facts name their source messages)."""
    with path.open(encoding="utf-8") as fh:
        for raw in fh:
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if isinstance(item, dict) and "predicate" in item and "sources" in item:
                return True
    return False


async def restore_file(core: CoreApi, chat: str, path: Path, *, err: TextIO) -> dict[str, int]:
    """`ingest` of an export: the chat as it was. Messages are stored without extraction (their
    facts follow), facts keep their status, validity, confidence and sources; a line already
    there (the same message id, the same fact) is counted as a duplicate."""
    counts = dict.fromkeys(("messages", "facts", "pending", "rejected", "duplicates", "invalid"), 0)
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                if not isinstance(item, dict) or not ("text" in item or "predicate" in item):
                    raise ValueError("a line needs 'text' (a message) or 'predicate' (a fact)")
                if "predicate" in item:
                    fact = FactView.model_validate({"id": "", **item})
                    stored = await core.restore_fact(chat, fact)
                    counts["facts" if stored else "duplicates"] += 1
                    continue
                result = await core.restore_message(
                    chat,
                    author=str(item.get("author") or "unknown"),
                    text=str(item["text"]),
                    message_id=message_ref(str(item.get("id") or "")) or new_id("m"),
                    ts=parse_timestamp(item.get("ts")),
                    reply_to=str(item.get("reply_to") or "") or None,
                )
            except (ValueError, ValidationError, CoreError) as exc:
                counts["invalid"] += 1
                detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                err.write(f"{path}:{lineno}: skipped: {detail}\n")
                continue
            counts["duplicates" if result.duplicate else "messages"] += 1
    return counts
