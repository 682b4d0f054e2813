"""Import, disk and ask at 10k: `python -m bench.bulk` (`--facts N --messages N` to scale down).

Everything goes through the CLI a user would run, in child processes (their peak RSS is the
kernel's ru_maxrss): `python -m bot ingest` of a JSON Lines file of facts and one of messages,
with a few broken lines that must be reported, then `python -m bot ask --json --questions`.
Start-up (model load, opening the chat) is timed with a one-line import and one question and
subtracted. The ask floor is measured in this process: the query embedding plus a bare exact
scan of the chat's entity vectors. Disk: one chat of --disk-messages messages written through
the core, its directory size at quarters of the way (after a pause long enough for the idle
checkpoint and compaction), and again after checkpoints with no writes. `--embedder minilm|use`
chooses the model of every part (default USE, what a bot without a fastembed cache runs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.chatter import ORGS, PEOPLE, SERVICES, stream
from bench.common import in_process_embedder, scratch_dir
from bench.disk import bench_disk

SURNAMES = ["Silva", "Souza", "Ivanov", "Petrova", "Smith", "Costa", "Smirnov", "Lee", "Oliveira"]
PLACES = ["Lisbon", "Porto", "Moscow", "Kazan", "London", "Recife", "Berlin", "Sao Paulo"]
PRODUCTS = ["Pro plan", "Basic plan", "Analytics", "Connector", "Support 24x7", "Storage"]
BROKEN = [
    "{not json",
    '["a list"]',
    '{"subject": "x", "predicate": "WORKS_AT"}',
    '{"subject": "Ana", "subject_kind": "person", "predicate": "OWNS", "object": "Acme", '
    '"object_kind": "company"}',
    '{"note": "neither text nor predicate"}',
]


def fact_lines(n: int, seed: int = 11) -> list[str]:
    """An export of a CRM-like graph: people at companies, services and their dependencies."""
    rng = random.Random(seed)
    people = [f"{p} {s} {i}" for i in range(max(1, n // 40)) for p in PEOPLE for s in SURNAMES[:2]]
    companies = [f"{o} {i}" for i in range(max(1, n // 60)) for o in ORGS]
    services = [f"{s}-{i}" for i in range(max(1, n // 25)) for s in SERVICES]
    shapes = [
        ("person", people, "WORKS_AT", "company", companies),
        ("person", people, "REPORTS_TO", "person", people),
        ("service", services, "DEPENDS_ON", "service", services),
        ("service", services, "LOCATED_IN", "place", PLACES),
        ("company", companies, "PURCHASED", "product", PRODUCTS),
        ("service", services, "USES", "service", services),
    ]
    out = []
    for i in range(n):
        sk, subjects, pred, ok, objects = rng.choice(shapes)
        s, o = rng.choice(subjects), rng.choice(objects)
        item = {"subject": s, "subject_kind": sk, "predicate": pred, "object": o, "object_kind": ok}
        item["id"] = f"f{i}"
        out.append(json.dumps(item, ensure_ascii=False))
    return out


def message_lines(n: int, seed: int = 12) -> list[str]:
    t0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    out = []
    for i, (text, _) in enumerate(stream(seed, n, question_every=0)):
        ts = t0 + timedelta(minutes=7 * i)
        item = {
            "id": f"m{i}",
            "author": PEOPLE[i % len(PEOPLE)],
            "text": text,
            "ts": ts.isoformat(),
        }
        out.append(json.dumps(item, ensure_ascii=False))
    return out


def write_jsonl(path: Path, lines: list[str], broken: bool) -> Path:
    if broken:  # spread the broken lines through the file, as a real export would have them
        step = max(1, len(lines) // (len(BROKEN) + 1))
        for k, bad in enumerate(BROKEN):
            lines.insert((k + 1) * step, bad)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


MODELS = {  # --embedder: the bot's environment for each model
    "use": {"EMBEDDING_BACKEND": "use"},
    "minilm": {"EMBEDDING_BACKEND": "fastembed", "EMBEDDING_LOCAL_DIR": "bundled-minilm"},
}
EMBEDDER = "use"  # set by main from --embedder


def bot_env(data_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GRAPHMEM_", "ANTHROPIC_", "EMBEDDING_"))
    }
    env.update(GRAPHMEM_DATA_DIR=str(data_dir), GRAPHMEM_LOG_LEVEL="WARNING", **MODELS[EMBEDDER])
    return env


def tree_rss_mb(pid: int) -> float:
    """The resident memory of a process and all its descendants, summed (an import embeds in
    a child process of its own, core/embedding/process.py; the kernel's ru_maxrss is of one)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue  # exited meanwhile
    return total


def run_cli(
    args: list[str], data_dir: Path, stdout: Path | None = None
) -> tuple[float, float, str]:
    """(wall s, peak RSS MB of the bot's processes together, stderr) of `python -m bot ARGS`
    in a child process; the RSS sampled every 20 ms, or the kernel's peak of the largest
    process if that is higher."""
    out = stdout.open("wb") if stdout else subprocess.DEVNULL
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", *args],
        env=bot_env(data_dir),
        cwd=data_dir,  # no developer's .env
        stdout=out,
        stderr=subprocess.PIPE,
    )
    peak = [0.0]
    running = threading.Event()
    running.set()

    def sample() -> None:
        while running.is_set():
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    err = proc.stderr.read().decode(errors="replace")
    running.clear()
    sampler.join()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if stdout:
        out.close()  # type: ignore[union-attr]
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"bot {args[0]} failed ({proc.returncode}): {err[-2000:]}")
    return wall, max(peak[0], usage.ru_maxrss / 1024), err


def embedded_texts(label: str, lines: list[str]) -> list[str]:
    """The distinct texts an import of these lines must embed at least (core/pipeline/bulk.py):
    a fact's "subject PREDICATE object" and its names; a message's text (its stored and
    routing vector). The names the offline extractor finds in messages are left out."""
    from core.language import clean_name

    out: dict[str, None] = {}
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a broken line: reported, not embedded
        if not isinstance(item, dict) or not ({"subject", "object", "text"} & set(item)):
            continue
        if label == "facts":
            if "object" not in item:
                continue
            out[f"{item['subject']} {item['predicate']} {item['object']}"] = None
            out.update(dict.fromkeys(clean_name(item[k]) for k in ("subject", "object")))
        elif "text" in item:
            out[item["text"]] = None
    return list(out)


def embedding_floor(embedder: Any, texts: list[str]) -> float:
    """Seconds to embed texts in this process, in the import's calls of EMBED_CHUNK, one call
    at a time: what the import's embedding alone costs (the import overlaps two calls)."""
    from core.pipeline.bulk import EMBED_CHUNK

    embedder.embed(texts[:8])  # weights loaded
    order = sorted(texts, key=len)  # as the import orders them
    t0 = time.perf_counter()
    for k in range(0, len(order), EMBED_CHUNK):
        embedder.embed(order[k : k + EMBED_CHUNK])
    return time.perf_counter() - t0


def bench_import(data: Path, n_facts: int, n_messages: int) -> None:
    one = write_jsonl(data / "one.jsonl", fact_lines(1, seed=99), broken=False)
    startup, startup_rss, _ = run_cli(["ingest", "--chat", "startup", str(one)], data)
    print(f"start-up (one-line import): {startup:.1f} s, RSS {startup_rss:.0f} MB")
    embedder = None  # the floors' model, loaded once
    for label, lines in (
        ("facts", fact_lines(n_facts)),
        ("messages", message_lines(n_messages)),
    ):
        path = write_jsonl(data / f"{label}.jsonl", lines, broken=True)
        wall, rss, err = run_cli(["ingest", "--chat", "big", str(path)], data)
        reports = [ln for ln in err.splitlines() if ": skipped: " in ln or ": refused: " in ln]
        n = len(lines) - len(BROKEN)
        print(
            f"ingest {n} {label}: {wall:.1f} s wall, {wall - startup:.1f} s beyond start-up "
            f"({n / max(wall - startup, 1e-9):.0f}/s; target <= 10 s), peak RSS {rss:.0f} MB "
            f"(target <= 600), {len(reports)} per-line reports for {len(BROKEN)} broken lines"
        )
        texts = embedded_texts(label, lines)
        embedder = embedder or in_process_embedder(EMBEDDER)
        print(
            f"  embedding floor: {len(texts)} distinct texts embedded in this process, "
            f"{embedding_floor(embedder, texts):.1f} s"
        )


def questions(n: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    forms = [
        "where does {p} work?",
        "what does {s} depend on?",
        "who reports to {p}?",
        "onde {p} trabalha?",
        "от чего зависит {s}?",
        "what did {o} buy?",
    ]
    out = []
    for _ in range(n):
        p = f"{rng.choice(PEOPLE)} {rng.choice(SURNAMES[:2])} {rng.randrange(5)}"
        s = f"{rng.choice(SERVICES)}-{rng.randrange(10)}"
        out.append(rng.choice(forms).format(p=p, s=s, o=f"{rng.choice(ORGS)} {rng.randrange(5)}"))
    return out


async def bench_ask(data: Path, n_questions: int) -> None:
    qs = questions(n_questions)
    qfile = data / "questions.txt"
    qfile.write_text("\n".join(qs) + "\n", encoding="utf-8")
    one = data / "one-question.txt"
    one.write_text(qs[0] + "\n", encoding="utf-8")
    base, _, _ = run_cli(["ask", "--chat", "big", "--json", "--questions", str(one)], data)
    wall, rss, _ = run_cli(
        ["ask", "--chat", "big", "--json", "--questions", str(qfile)], data, stdout=data / "a.json"
    )
    answers = [json.loads(ln) for ln in (data / "a.json").read_text().splitlines()]
    per_q = (wall - base) / max(1, n_questions - 1) * 1000
    with_evidence = sum(bool(a.get("evidence")) for a in answers)
    print(
        f"ask --json --questions, {n_questions} questions: {per_q:.1f} ms per question beyond "
        f"start-up (child process; start-up noise included); {with_evidence} answers with "
        f"evidence; peak RSS {rss:.0f} MB"
    )
    await ask_floor(data, qs)


STORE_READS = ("edges_from", "edges_to", "fact_sources", "mentions_of", "messages")


async def ask_floor(data: Path, qs: list[str]) -> None:
    """In one process, each question timed on its own (p50 of each part): `ask_many` (JSON,
    evidence included), the floor (the query embedding plus a bare exact scan of the chat's
    entity vectors, and of its message vectors: an answer with evidence needs both), and the
    time ask spent in the store's reads (Kùzu statements and the Edge objects the store builds)
    and waiting for the previous question's trace write."""
    import io

    from bot.app import build_core
    from bot.cli import ask_many
    from bot.settings import Settings

    os.environ.update(bot_env(data))
    core = build_core(Settings(), with_llm=False)
    await ask_many(core, "big", qs[:1], out=io.StringIO(), as_json=True)  # opens the chat
    store = await core.pool.run("big", lambda s: s)
    entities, messages = store.entity_vectors.matrix, store.message_vectors.matrix
    spent: dict[str, float] = {}

    def timed(name: str, fn: Any) -> Any:  # instrumentation of this process's store only
        def run(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t0

        return run

    for name in STORE_READS:
        setattr(store, name, timed(name, getattr(store, name)))
    emb, scan_e, scan_m, asked, reads = [], [], [], [], []
    for q in qs:
        spent.clear()
        t0 = time.perf_counter()
        await ask_many(core, "big", [q], out=io.StringIO(), as_json=True)
        asked.append(time.perf_counter() - t0)
        reads.append(sum(spent.values()))
        t0 = time.perf_counter()
        qv = core.embedder.embed([q])[0]
        emb.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        np.argpartition(-(entities @ qv), 5)[:5]
        scan_e.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        np.argpartition(-(messages @ qv), 50)[:50]
        scan_m.append(time.perf_counter() - t0)
    again = []  # the same questions once more: the words and sentences they met are cached,
    for q in qs:  # as in a bot that has been answering in this chat for a while
        t0 = time.perf_counter()
        await ask_many(core, "big", [q], out=io.StringIO(), as_json=True)
        again.append(time.perf_counter() - t0)
    await core.close()

    def p50(xs: list[float]) -> float:
        return statistics.median(xs) * 1000

    floor = p50(emb) + p50(scan_e)
    full = floor + p50(scan_m)
    ask = p50(asked)
    print(
        f"  chat 'big': {len(entities)} entity vectors, {len(messages)} message vectors; in one "
        f"process, p50 per question of {len(qs)}:"
    )
    p95 = sorted(asked)[int(0.95 * (len(asked) - 1))] * 1000
    print(
        f"  ask_many (JSON, evidence included) {ask:.1f} ms (p95 {p95:.1f}, mean "
        f"{statistics.mean(asked) * 1000:.1f}); floor: embedding {p50(emb):.1f} + "
        f"entity scan {p50(scan_e):.2f} = {floor:.1f} ms -> {ask / floor:.2f}x (target <= 2x); "
        f"with the message scan {full:.1f} ms -> {ask / full:.2f}x"
    )
    print(
        f"  asked again in the same process (the model's words and sentences cached): "
        f"{p50(again):.1f} ms -> {p50(again) / floor:.2f}x; {p50(again) / full:.2f}x with the "
        f"message scan"
    )
    print(
        f"  of ask: store reads ({', '.join(STORE_READS)}) p50 {p50(reads):.1f} ms, mean "
        f"{statistics.mean(reads) * 1000:.1f} ms; ask minus them p50 "
        f"{p50([a - r for a, r in zip(asked, reads, strict=True)]):.1f} ms"
    )


async def bench_paths(n: int) -> None:
    """The same n facts and n messages, one line at a time (remember_triple / remember) and
    through the bulk path (remember_many), in this process, in the same run."""
    from bench.run import make_core
    from bot.cli import ImportLine, parse_line, remember_lines

    lines = [parse_line(raw, i) for i, raw in enumerate(fact_lines(n) + message_lines(n))]
    core = make_core(scratch_dir(), in_process_embedder(EMBEDDER))

    async def one_by_one(chat: str, batch: list[ImportLine]) -> None:
        for x in batch:
            if x.triple is not None:
                await core.remember_triple(chat, x.triple, author=x.author, message_id=x.message_id)
            else:
                await core.remember(
                    chat, author=x.author, text=x.text or "", message_id=x.message_id, ts=x.ts
                )

    for label, part in (("facts", lines[:n]), ("messages", lines[n:])):
        t0 = time.perf_counter()
        await one_by_one(f"one-{label}", part)
        slow = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(0, len(part), 256):
            await remember_lines(core, f"bulk-{label}", part[i : i + 256])
        fast = time.perf_counter() - t0
        print(
            f"{n} {label} in-process: one line at a time {slow:.1f} s, bulk path {fast:.1f} s "
            f"({slow / fast:.1f}x faster)"
        )
    await core.close()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=10000)
    ap.add_argument("--messages", type=int, default=10000)
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--disk-messages", type=int, default=1000)
    ap.add_argument("--disk-chats", type=int, default=1, help="chats the disk messages go to")
    ap.add_argument(
        "--disk-no-pause",
        action="store_true",
        help="checkpoint at each quarter at once instead of pausing until the shards are quiet",
    )
    ap.add_argument(
        "--embedder",
        choices=sorted(MODELS),
        default="use",
        help="the model of every part: USE (512-d), the offline default of a bot without a "
        "fastembed cache, or the bundled MiniLM (384-d, the dimension of the downloaded default)",
    )
    ap.add_argument("--compare", type=int, default=500, help="lines per kind for bench_paths")
    ap.add_argument(
        "--data", type=Path, help="data directory kept for the next run (its import is reused)"
    )
    ap.add_argument(
        "--skip", action="append", default=[], choices=["import", "ask", "disk", "compare"]
    )
    args = ap.parse_args()
    global EMBEDDER
    EMBEDDER = args.embedder
    data = args.data or scratch_dir()
    data.mkdir(parents=True, exist_ok=True)
    imported = args.data is not None and (data / "shards").exists()  # an earlier --data run
    if "import" not in args.skip and not imported:
        bench_import(data, args.facts, args.messages)
        imported = True
    if "ask" not in args.skip and imported:
        await bench_ask(data, args.questions)
    if "disk" not in args.skip:
        await bench_disk(
            args.disk_messages,
            args.disk_chats,
            pause=not args.disk_no_pause,
            embedder=args.embedder,
        )
    if "compare" not in args.skip:
        await bench_paths(args.compare)


if __name__ == "__main__":
    asyncio.run(main())
