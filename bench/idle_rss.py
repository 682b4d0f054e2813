"""What the bot holds before any chat opens: `python -m bench.idle_rss`.

The bot runs as `python -m bot run` in a child process against the fake Bot API (as in
bench/load_telegram.py), model loaded. Its RSS is read from /proc (VmRSS, anonymous and
file-backed parts, VmHWM) once it long-polls, then after one chat's 10 messages. `--tree DIR`
adds another source tree (e.g. an export of the previous commit) run the same way in the same
run, so a before/after pair shares the machine's state. Then, in a fresh child process per
model, RSS after each step of the start-up (imports, model, core, Telegram front-end).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench.common import scratch_dir
from bench.load_telegram import BotProcess, LoadBotAPI, closed_loop

BACKENDS = {
    "minilm": {"EMBEDDING_BACKEND": "fastembed", "EMBEDDING_LOCAL_DIR": "bundled-minilm"},
    "use": {"EMBEDDING_BACKEND": "use"},
}
FIELDS = ("VmRSS", "RssAnon", "RssFile", "VmHWM")

# run in a child process: RSS after each step of what `python -m bot run` does
STEPS = r"""
import asyncio, sys, time
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
steps = []
def mark(label):
    steps.append((label, rss()))
from core.store.memory import tune_allocator
tune_allocator()  # as bot/__main__.py does first
mark("python")
import numpy
mark("numpy")
import bot.settings, core.store.pool, ontology
mark("settings, store, ontology")
import core.service
mark("core")
from bot.app import build_core, build_embedder
from bot.settings import Settings
settings = Settings()
embedder = build_embedder(settings)
mark("embedder (" + embedder.model_name.split("/")[-1] + ")")
core = build_core(settings, embedder=embedder)
mark("build_core")
from bot.jobs import build_scheduler
build_scheduler(core, settings)
mark("scheduler")
import bot.telegram.runner
mark("Telegram front-end")
for label, mb in steps:
    print(f"{label}\t{mb:.1f}")
"""


def bot_status(bot: BotProcess) -> dict[str, float]:
    return {f: bot.status_mb(f) for f in FIELDS}


async def idle_bot(
    api: LoadBotAPI, tree: Path, backend: str, chat_id: int
) -> list[dict[str, float]]:
    env = {**BACKENDS[backend], "PYTHONPATH": str(tree)}
    bot = BotProcess(api.base_url, scratch_dir(), env)
    try:
        await api.wait_for("getUpdates", timeout=300)
        await asyncio.sleep(3)
        idle = bot_status(bot)
        await closed_loop(api, "one chat", [chat_id], 10)
        await asyncio.sleep(3)
        one_chat = bot_status(bot)
    finally:
        await bot.stop()
    return [idle, one_chat]


def steps(tree: Path, backend: str) -> list[tuple[str, float]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRAPHMEM_", "TELEGRAM_"))}
    env.update(BACKENDS[backend], PYTHONPATH=str(tree), GRAPHMEM_DATA_DIR=str(scratch_dir()))
    env["GRAPHMEM_LOG_LEVEL"] = "WARNING"
    out = subprocess.run(
        [sys.executable, "-c", STEPS],
        env=env,
        cwd=env["GRAPHMEM_DATA_DIR"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [(ln.split("\t")[0], float(ln.split("\t")[1])) for ln in out.splitlines() if "\t" in ln]


def fmt(s: dict[str, float]) -> str:
    return (
        f"RSS {s['VmRSS']:.0f} MB (anon {s['RssAnon']:.0f}, file {s['RssFile']:.0f}), "
        f"peak {s['VmHWM']:.0f}"
    )


async def idle_bots(trees: list[Path], backends: list[str], repeat: int) -> None:
    api = LoadBotAPI()
    await api.start()
    chat_id = 1
    try:
        for backend in backends:
            for tree in trees:
                runs = []
                for _ in range(repeat):
                    runs.append(await idle_bot(api, tree, backend, chat_id))
                    chat_id += 1
                med = [
                    {f: statistics.median(r[k][f] for r in runs) for f in FIELDS} for k in (0, 1)
                ]
                print(f"{backend:<6} {tree}: idle bot {fmt(med[0])}; one chat open {fmt(med[1])}")
    finally:
        await api.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", action="append", default=[], type=Path, help="another source tree")
    ap.add_argument("--backend", action="append", choices=sorted(BACKENDS))
    ap.add_argument("--repeat", type=int, default=2, help="bot starts per tree and model")
    args = ap.parse_args()
    trees = [Path(__file__).resolve().parents[1], *(t.resolve() for t in args.tree)]
    backends = args.backend or ["minilm", "use"]
    asyncio.run(idle_bots(trees, backends, args.repeat))
    for backend in backends:
        for tree in trees:
            got = steps(tree, backend)
            line = ", ".join(
                f"{label} +{mb - prev:.0f}"
                for (label, mb), (_, prev) in zip(got[1:], got, strict=False)
            )
            print(f"{backend:<6} {tree} start-up steps (MB): python {got[0][1]:.0f}, {line}")


if __name__ == "__main__":
    main()
