"""The JSONL import in batches: whatever the batch size, the same counts, the same stored
graph, and per-line reports in file order (a broken line between good ones keeps its place)."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

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


BROKEN = [
    ("{not json", "skipped"),
    ('["a list"]', "skipped"),
    ('{"note": "neither text nor predicate"}', "skipped"),
    ('{"subject": "x", "predicate": "WORKS_AT"}', "skipped"),
    ('{"author": "ana", "text": "   "}', "skipped"),
    (
        '{"subject": "Ana", "subject_kind": "person", "predicate": "DEPENDS_ON", '
        '"object": "svc-1", "object_kind": "service"}',
        "refused",
    ),
]


async def test_an_import_of_2000_lines(
    core: Core, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """2,000 lines (facts and messages interleaved, each broken kind twice) in the CLI's
    batches: every good line stored, every fact in the graph, each broken line reported once
    with its own number, and no batch fell back to one line at a time."""
    from bot.cli import ingest_file

    lines: list[str] = []
    bad: dict[int, str] = {}
    for i in range(2000 - 2 * len(BROKEN)):
        if i % 2:
            item = {"id": f"m{i}", "author": f"user{i % 7}", "text": f"hello number {i}"}
        else:
            item = {
                "subject": f"svc-{i}",
                "subject_kind": "service",
                "predicate": "DEPENDS_ON",
                "object": f"svc-{i + 1}",
                "object_kind": "service",
            }
        lines.append(json.dumps(item))
        if i % 166 == 165:  # spread through the file, in batches of their own and shared ones
            raw, why = BROKEN[len(bad) % len(BROKEN)]
            lines.append(raw)
            bad[len(lines)] = why
    while len(bad) < 2 * len(BROKEN):
        raw, why = BROKEN[len(bad) % len(BROKEN)]
        lines.append(raw)
        bad[len(lines)] = why
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(lines) == 2000
    err = io.StringIO()
    with caplog.at_level(logging.WARNING, logger="core.pipeline.bulk"):
        counts = await ingest_file(core, "big", path, err=err)
    assert not caplog.records  # every batch was written whole
    good = 2000 - len(bad)
    assert counts == {
        "messages": good,
        "facts": good // 2,
        "pending": 0,
        "rejected": 2,
        "duplicates": 0,
        "invalid": len(bad),
    }
    report = err.getvalue().splitlines()
    assert line_numbers(err.getvalue()) == sorted(bad)
    assert [line.split(": ")[1] for line in report] == [bad[n] for n in sorted(bad)]
    assert (await core.stats("big"))["messages"] == good
    facts = await core.facts("big", limit=10**6)
    assert sorted((f.subject, f.object) for f in facts) == sorted(
        (f"svc-{i}", f"svc-{i + 1}") for i in range(0, 2000 - 2 * len(BROKEN), 2)
    )


async def test_timestamps_without_a_zone_are_utc(core: Core, tmp_path: Path) -> None:
    """A `ts` without a time zone ("2026-11-01T09:00:00", what most exports write) is read as
    UTC, next to ones with a zone: before, the second such line crashed the import (naive and
    aware datetimes compared in routing) and every line after it was lost."""
    from datetime import UTC, datetime

    from bot.cli import ingest_file

    stamps = ["2026-11-01T09:00:00", "2026-11-01T09:01:00Z", "2026-11-01T10:02:00+01:00"]
    stamps += ["2026-11-01T09:03:00", "2026-11-01 09:04"]
    path = tmp_path / "naive.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"t{i}", "author": "rita", "text": f"desk number {i} is free"})[:-1]
            + f', "ts": "{ts}"}}'
            for i, ts in enumerate(stamps)
        )
        + "\n",
        encoding="utf-8",
    )
    err = io.StringIO()
    counts = await ingest_file(core, "naive", path, err=err)
    assert err.getvalue() == ""
    assert counts["messages"] == len(stamps) and counts["invalid"] == 0
    # the live path too: a front-end or script handing the core a naive datetime
    await core.remember(
        "naive",
        author="rita",
        text="desk 9 is taken",
        message_id="t9",
        ts=datetime(2026, 11, 1, 9, 5),
    )
    exported = await core.export("naive")
    when = {m["id"]: m["ts"] for m in exported["messages"]}
    assert len(when) == len(stamps) + 1
    minutes = [
        datetime.fromisoformat(str(when[f"t{i}"])).astimezone(UTC).minute for i in (*range(5), 9)
    ]
    assert minutes == [0, 1, 2, 3, 4, 5]


async def test_a_line_that_fails_inside_the_core_loses_only_itself(
    core: Core, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A fault of the core's own on one line (here injected into the message write) is
    reported on that line and logged; the lines before and after it are stored (before, the
    exception ended the import and the rest of the file was not read)."""
    from bot.cli import ingest_file
    from core.pipeline.ingest import Ingest

    real = Ingest.store_message

    def store_message(self: Ingest, store: object, message: object, *args: object) -> object:
        if getattr(message, "text", "") == "poison line":
            raise RuntimeError("injected fault")
        return real(self, store, message, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Ingest, "store_message", store_message)
    texts = ["checkout depends on payments", "poison line", "payments depends on antifraud"]
    path = tmp_path / "fault.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"id": f"f{i}", "author": "ana", "text": t}) for i, t in enumerate(texts)
        )
        + "\n",
        encoding="utf-8",
    )
    err = io.StringIO()
    with caplog.at_level(logging.ERROR, logger="core.pipeline.bulk"):
        counts = await ingest_file(core, "fault", path, err=err)
    assert line_numbers(err.getvalue()) == [2]
    assert "internal error" in err.getvalue()
    assert counts["messages"] == 2 and counts["invalid"] == 1
    assert any("injected fault" in (r.exc_text or "") for r in caplog.records)
    stored = {m["id"] for m in (await core.export("fault"))["messages"]}
    assert stored == {"f0", "f2"}
    facts = {(f.subject, f.object) for f in await core.facts("fault", entity=None)}
    assert facts == {("checkout", "payments"), ("payments", "antifraud")}


async def test_an_import_keeps_which_message_replies_to_which(core: Core, tmp_path: Path) -> None:
    """A chat history with replies (Telegram's export has "reply_to_message_id"): a line's
    "reply_to" is kept, in one batch or line by line, and read back when the chat is opened
    again; a reply to a message the chat does not hold links nothing."""
    from bot.cli import ingest_file

    lines = [
        {"id": "q", "author": "ana", "text": "who approves the backup invoices?"},
        {"id": "x", "author": "bob", "text": "the van is back"},
        {"id": "r", "author": "rui", "text": "Joana approves them", "reply_to": "q"},
        {"id": "s", "author": "eve", "text": "ok", "reply_to": "never-seen"},
    ]
    path = tmp_path / "replies.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    for size, chat in ((256, "batch"), (1, "lines")):
        assert (await ingest_file(core, chat, path, batch_size=size))["messages"] == 4
        for _ in range(2):
            links = await core.pool.run(chat, lambda s: dict(s.recall.replied_to))
            assert links == {"r": "q"}, (chat, links)
            await core.pool.discard(chat)
