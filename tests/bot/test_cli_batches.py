"""The JSONL import in batches: whatever the batch size, the same counts, the same stored
graph, and per-line reports in file order (a broken line between good ones keeps its place)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from core.service import Core

LINES: list[object] = [
    {"id": "a1", "author": "ana", "text": "checkout depends on payments"},
    "{broken json",
    {
        "subject": "payments",
        "subject_kind": "service",
        "predicate": "DEPENDS_ON",
        "object": "antifraud",
        "object_kind": "service",
    },
    {"subject": "x", "subject_kind": "service", "predicate": "TELEPORTS", "object": "y"},
    {
        "subject": "Olga",
        "subject_kind": "person",
        "predicate": "WORKS_AT",
        "object": "billing",
        "object_kind": "service",
    },
    {"id": "a1", "author": "ana", "text": "checkout depends on payments"},
    {"id": "a2", "author": "Пётр", "text": "   "},
    {"id": "a3", "author": "joao", "text": "o billing depende do ledger, blz?", "ts": "nope"},
    {"id": "a4", "author": "joao", "text": "o billing depende do ledger"},
    ["not", "an", "object"],
]


def write(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    body = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in LINES)
    path.write_text(body + "\n\n", encoding="utf-8")
    return path


def line_numbers(report: str) -> list[int]:
    return [int(line.split(":")[1]) for line in report.splitlines()]


async def test_batch_size_changes_nothing_but_speed(core: Core, tmp_path: Path) -> None:
    from bot.cli import ingest_file

    path = write(tmp_path)
    seen = []
    for size, chat in ((1, "one"), (3, "three"), (256, "all")):
        err = io.StringIO()
        counts = await ingest_file(core, chat, path, err=err, batch_size=size)
        facts = sorted(
            (f.subject, f.predicate, f.object) for f in await core.facts(chat, entity=None)
        )
        seen.append((counts, facts, err.getvalue()))
    assert seen[0] == seen[1] == seen[2]
    counts, facts, report = seen[0]
    assert counts == {
        "messages": 3,
        "facts": 3,
        "pending": 0,
        "rejected": 1,
        "duplicates": 1,
        "invalid": 6,
    }
    assert ("checkout", "DEPENDS_ON", "payments") in facts
    assert ("billing", "DEPENDS_ON", "ledger") in facts
    # every bad line is reported once, in file order, with its own line number
    assert line_numbers(report) == [2, 4, 5, 7, 8, 10]
    assert "refused" in report.splitlines()[2]
