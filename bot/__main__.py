"""Entry point: python -m bot {run,console,ingest,ask,export,jobs,reshard}."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# One BLAS thread, set before numpy loads: the bot's matrix products are small (a question
# against a chat's vectors), and OpenBLAS's thread pool costs more to wake than they take on a
# busy 2-core machine (10,000 x 512 scan p50 3.3 -> 1.8 ms, p95 28 -> 6 ms; the regrouping
# job's 2,000 x 2,000 similarities 189 -> 45 ms, measured under load). An operator's own
# setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from core.store.memory import tune_allocator
from ontology import OntologyError

if TYPE_CHECKING:
    from core.contract import CoreApi


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bot", description="Graph-memory chat bot")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="start the configured front-ends (console when no token is set)")
    c = sub.add_parser("console", help="chat with the core in this terminal")
    c.add_argument("--data-dir", type=Path)
    c.add_argument("--chat", default="console:local")
    i = sub.add_parser("ingest", help="import JSON Lines of messages and facts")
    i.add_argument("--data-dir", type=Path)
    i.add_argument("--chat", required=True)
    i.add_argument("file", type=Path)
    a = sub.add_parser("ask", help="answer questions; --json prints the JSON contract")
    a.add_argument("--data-dir", type=Path)
    a.add_argument("--chat", required=True)
    a.add_argument("--json", action="store_true")
    a.add_argument("--questions", type=Path, help="one question per line")
    a.add_argument("question", nargs="?")
    e = sub.add_parser("export", help="print a chat as JSON Lines (ingest reads it back)")
    e.add_argument("--data-dir", type=Path)
    e.add_argument("--chat", required=True)
    j = sub.add_parser("jobs", help="run the background jobs")
    j.add_argument("--data-dir", type=Path)
    j.add_argument("--once", action="store_true")
    r = sub.add_parser("reshard", help="move every chat into N shard databases (bot stopped)")
    r.add_argument("--data-dir", type=Path)
    r.add_argument("--shards", type=int, required=True)
    return p


async def _main(args: argparse.Namespace) -> int:
    from bot.settings import Settings

    settings = Settings(data_dir=getattr(args, "data_dir", None))
    logging.basicConfig(
        level=settings.storage.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    # libraries that narrate routine work at INFO (dictionary loads, every job added)
    for chatty in ("pymorphy3", "apscheduler"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    if args.command == "ingest" and not args.file.exists():  # before any model loads
        print(f"{args.file}: no such file", file=sys.stderr)
        return 2
    embedder = None
    if args.command == "ingest":
        # an import embeds in a child process (core/embedding/process.py), started now so
        # that its model loads while this process imports the bot and opens the chat
        from functools import partial

        from bot.embedders import EmbeddingChoice, embedder_for
        from core.embedding.process import ChildEmbedder

        choice = EmbeddingChoice.of(settings.embedding)
        embedder = ChildEmbedder(partial(embedder_for, choice, settings.storage.data_dir))
    from bot.app import build_core

    if args.command == "run":
        from bot.runner import run_all

        return await run_all(settings)
    if args.command == "reshard":
        from core.store.transfer import reshard

        moved = reshard(settings.storage.data_dir, args.shards)
        print(f"{moved} chats moved into {args.shards} shards: set GRAPHMEM_SHARDS={args.shards}")
        return 0
    core = build_core(settings, embedder=embedder)
    try:
        if args.command in ("console", "ingest"):
            from core.durable import recover

            await recover(core)  # what a crash left unfinished, before anything new
        if args.command == "console":
            from bot.console import run_console

            await run_console(core, chat=args.chat)
            return 0
        if args.command == "ingest":
            from bot.cli import ingest_file, summary_line

            counts = await ingest_file(core, args.chat, args.file)
            print(summary_line(counts))
            return 0
        if args.command == "ask":
            from bot.cli import ask_many

            if args.questions:
                questions = [
                    q.strip()
                    for q in args.questions.read_text(encoding="utf-8").splitlines()
                    if q.strip()
                ]
            elif args.question:
                questions = [args.question]
            else:
                print("give a question or --questions FILE", file=sys.stderr)
                return 2
            failures = await ask_many(core, args.chat, questions, out=sys.stdout, as_json=args.json)
            return 1 if failures else 0
        if args.command == "export":
            return await _export(core, args.chat)
        if args.command == "jobs":
            from bot.jobs import run_jobs_once

            report = await run_jobs_once(core, settings)
            print(report)
            return 0
    finally:
        await core.close()
        if embedder is not None:
            embedder.close()
    return 2


async def _export(core: CoreApi, chat: str) -> int:
    from bot.export import export_chat
    from core.errors import CoreError

    if not core.has_chat(chat):
        print(f"no chat {chat!r} in this data directory", file=sys.stderr)
        return 2
    try:
        await export_chat(core, chat, sys.stdout)
    except (CoreError, RuntimeError) as exc:  # Kùzu raises RuntimeError on a broken file
        print(f"chat {chat!r} cannot be read: {exc}", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    tune_allocator()  # before any thread starts (see its docstring)
    args = _parser().parse_args()
    try:
        sys.exit(asyncio.run(_main(args)))
    except OntologyError as exc:
        print(f"ontology error: {exc}", file=sys.stderr)
        sys.exit(3)
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
