"""The JSON CLI for scripting and imports: `ingest` and `ask` (field names are a contract)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from bot.export import is_export, restore_file
from core.clock import parse_timestamp
from core.contract import CoreApi
from core.errors import CoreError
from core.models import ImportItem, IngestResult, TripleIn

# Lines go to the core in batches of this many, so a bulk path can embed them together and
# write them in one transaction; reports still name each line, in file order. A batch's facts
# and mentions are COPYed, and kuzu 0.11.3 checkpoints at the COMMIT of any transaction that
# ran a COPY (core/store/staging.py): with 256 lines a 10,000-fact import paid 40 such commits
# of 0.2-1.3 s, growing with the shard; with 1,024 lines 10 of 0.5-1.0 s (measured in one
# process on a loaded machine), for ~20 MB more peak RSS at 4,000 facts. The first batch is
# small: nothing is written until it is embedded (the next one is embedded while it is
# written). 10,000 facts through the CLI, beyond start-up, three alternated runs each
# (2026-12-07): batches of 1,024 9.96 s median, a first of 256 then 2,048 9.49 s; peak RSS
# 540-546 and 543-549 MB; 10,000 messages after them 44.2 s, 575 MB (44.1-46.5 s, 580-587 MB).
IMPORT_BATCH = 2048
FIRST_BATCH = 256


@dataclass(frozen=True)
class ImportLine:
    """One valid line of an import: a message (text) or an explicit fact (triple)."""

    lineno: int
    author: str
    message_id: str | None
    text: str | None = None
    triple: TripleIn | None = None
    ts: datetime | None = None
    reply_to: str | None = None  # a message's: the id of the message it answers


def parse_line(raw: str, lineno: int) -> ImportLine:
    """A JSON Lines record -> ImportLine; ValueError or ValidationError when it is not one."""
    item = json.loads(raw)
    if not isinstance(item, dict):
        raise ValueError("a line must be a JSON object")
    message_id = None if item.get("id") is None else str(item["id"])
    if "predicate" in item:
        fields = {k: item[k] for k in TripleIn.model_fields if k in item}
        author = str(item.get("author", "import"))
        return ImportLine(lineno, author, message_id, triple=TripleIn(**fields))
    if "text" in item:
        author = str(item.get("author") or "unknown")
        ts = parse_timestamp(item.get("ts"))
        parent = None if item.get("reply_to") is None else str(item["reply_to"])
        text = str(item["text"])
        return ImportLine(lineno, author, message_id, text=text, ts=ts, reply_to=parent)
    raise ValueError("a line needs 'text' (a message) or 'predicate' (a fact)")


async def remember_lines(
    core: CoreApi, chat: str, lines: list[ImportLine]
) -> list[IngestResult | CoreError]:
    """Each line's result, or the core's error for that line, in order (the core's bulk path:
    one transaction and batched embeddings per call)."""
    items = [
        ImportItem(
            author=x.author,
            message_id=x.message_id,
            text=x.text,
            triple=x.triple,
            ts=x.ts,
            reply_to=x.reply_to,
        )
        for x in lines
    ]
    return await core.remember_many(chat, items) if items else []


# a batch's lines (or why a line was skipped) and the core's results for its valid ones
Stored = tuple[list[ImportLine | tuple[int, str]], asyncio.Future[list[IngestResult | CoreError]]]


class _Import:
    """Counts and per-line reports of one import."""

    def __init__(self, core: CoreApi, chat: str, path: Path, err: TextIO) -> None:
        self.core, self.chat, self.path, self.err = core, chat, path, err
        self.counts = dict.fromkeys(
            ("messages", "facts", "pending", "rejected", "duplicates", "invalid"), 0
        )

    def skipped(self, lineno: int, detail: str) -> None:
        self.counts["invalid"] += 1
        self.err.write(f"{self.path}:{lineno}: skipped: {detail}\n")

    def store(self, batch: list[ImportLine | tuple[int, str]]) -> Stored:
        """Start storing the batch's valid lines (reported by `report`, in file order)."""
        lines = [x for x in batch if isinstance(x, ImportLine)]
        return list(batch), asyncio.ensure_future(remember_lines(self.core, self.chat, lines))

    async def report_batch(self, stored: Stored) -> None:
        batch, task = stored
        results = iter(await task)
        for x in batch:
            if isinstance(x, tuple):
                self.skipped(*x)
                continue
            result = next(results)
            if isinstance(result, CoreError):
                self.skipped(x.lineno, str(result))
            else:
                self.report(x.lineno, result)

    def report(self, lineno: int, result: IngestResult) -> None:
        counts = self.counts
        if result.duplicate:
            counts["duplicates"] += 1
            return
        for r in result.rejected:
            self.err.write(f"{self.path}:{lineno}: refused: {r.reason}\n")
        if not result.message_id:  # an explicit fact refused before storage
            counts["rejected"] += len(result.rejected)
            counts["invalid"] += 1
            return
        counts["messages"] += 1
        counts["facts"] += len(result.stored)
        counts["pending"] += len(result.pending)
        counts["rejected"] += len(result.rejected)


async def ingest_file(
    core: CoreApi,
    chat: str,
    path: Path,
    *,
    err: TextIO = sys.stderr,
    batch_size: int = IMPORT_BATCH,
) -> dict[str, int]:
    if is_export(path):  # the output of `python -m bot export`: restored as it was
        return await restore_file(core, chat, path, err=err)
    job = _Import(core, chat, path, err)
    batch: list[ImportLine | tuple[int, str]] = []  # valid lines, or (line number, why not)
    # one batch ahead: the core embeds the next batch while it writes this one, and writes
    # a chat's batches in the order they were started (core/pipeline/bulk.py)
    flight: list[Stored] = []
    limit = min(FIRST_BATCH, batch_size)  # the first batch's, then batch_size
    try:
        with path.open(encoding="utf-8") as fh:
            for lineno, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    batch.append(parse_line(raw, lineno))
                except ValidationError as exc:
                    batch.append((lineno, str(exc.errors()[0]["msg"])))
                except ValueError as exc:
                    batch.append((lineno, str(exc)))
                if len(batch) >= limit:
                    limit = batch_size
                    flight.append(job.store(batch))
                    batch = []
                    if len(flight) > 1:
                        await job.report_batch(flight.pop(0))
        flight.append(job.store(batch))
        while flight:
            await job.report_batch(flight[0])
            flight.pop(0)
    finally:
        for _, task in flight:  # a batch failed: the ones started after it finish unreported
            with contextlib.suppress(Exception):  # (not cancelled halfway through a write)
                await task
    return job.counts


def summary_line(counts: dict[str, int]) -> str:
    return (
        f"ingested {counts['messages']} messages: {counts['facts']} facts stored, "
        f"{counts['pending']} pending review, {counts['rejected']} refused, "
        f"{counts['duplicates']} duplicates, {counts['invalid']} invalid lines skipped"
    )


async def ask_many(
    core: CoreApi, chat: str, questions: list[str], *, out: TextIO, as_json: bool
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
