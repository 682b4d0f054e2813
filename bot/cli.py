"""The JSON CLI for scripting and imports: `ingest` and `ask` (field names are a contract)."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from core.errors import CoreError
from core.models import TripleIn
from core.service import Core


def _parse_ts(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


async def ingest_file(
    core: Core, chat: str, path: Path, *, err: TextIO = sys.stderr
) -> dict[str, int]:
    counts = {"messages": 0, "facts": 0, "pending": 0, "rejected": 0, "duplicates": 0, "invalid": 0}
    with path.open(encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
                if not isinstance(item, dict):
                    raise ValueError("a line must be a JSON object")
                if "predicate" in item:
                    fields = {k: item[k] for k in TripleIn.model_fields if k in item}
                    triple = TripleIn(**fields)
                    result = await core.remember_triple(
                        chat,
                        triple,
                        author=str(item.get("author", "import")),
                        message_id=item.get("id"),
                    )
                elif "text" in item:
                    result = await core.remember(
                        chat,
                        author=str(item.get("author") or "unknown"),
                        text=str(item["text"]),
                        message_id=item.get("id"),
                        ts=_parse_ts(item.get("ts")),
                    )
                else:
                    raise ValueError("a line needs 'text' (a message) or 'predicate' (a fact)")
            except (ValueError, ValidationError, CoreError) as exc:
                counts["invalid"] += 1
                detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                err.write(f"{path}:{lineno}: skipped: {detail}\n")
                continue
            if result.duplicate:
                counts["duplicates"] += 1
                continue
            if not result.message_id:  # an explicit fact refused before storage
                counts["rejected"] += len(result.rejected)
                counts["invalid"] += 1
                for r in result.rejected:
                    err.write(f"{path}:{lineno}: refused: {r.reason}\n")
                continue
            counts["messages"] += 1
            counts["facts"] += len(result.stored)
            counts["pending"] += len(result.pending)
            counts["rejected"] += len(result.rejected)
            for r in result.rejected:
                err.write(f"{path}:{lineno}: refused: {r.reason}\n")
    return counts


def summary_line(counts: dict[str, int]) -> str:
    return (
        f"ingested {counts['messages']} messages: {counts['facts']} facts stored, "
        f"{counts['pending']} pending review, {counts['rejected']} refused, "
        f"{counts['duplicates']} duplicates, {counts['invalid']} invalid lines skipped"
    )


async def ask_many(
    core: Core, chat: str, questions: list[str], *, out: TextIO, as_json: bool
) -> int:
    failures = 0
    for q in questions:
        try:
            answer = await core.ask(chat, q)
        except CoreError as exc:
            failures += 1
            payload: dict[str, Any] = {"error": str(exc), "question": q}
            out.write(json.dumps(payload, ensure_ascii=False) + "\n")
            continue
        if as_json:
            out.write(json.dumps(answer.cli_json(), ensure_ascii=False) + "\n")
        else:
            out.write(answer.answer + "\n")
    return failures
