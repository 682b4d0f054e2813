"""Many chats at once, through the real Telegram front-end: `python -m bench.load_telegram`.

The bot runs as `python -m bot run` in a child process (so the RSS figures are the bot's, model
loaded) and long-polls the fake Bot API from tests/ served here on 127.0.0.1. Users are
simulated as Telegram would deliver them: private chats, each chat its own user, a mix of
statements and questions (1 in 5) in en/pt/ru with typos (bench/chatter.py).

Phases, in one bot process, each on chats of its own:
  1. one busy chat: each message sent when the previous one is answered (closed loop);
  2. 50 busy chats, closed loop: throughput against phase 1, question reply latency;
  3. an offered load of --rate messages/s spread over 50 chats (open loop): reply latency;
  4. 500 chats taking turns (50 in flight at a time, each chat again and again).
Errors are replies that apologise, replies that never came (timeout) and ERROR lines in the
bot's log. RSS is sampled every 0.2 s; VmHWM is the kernel's peak for the whole process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from aiohttp import web

from bench.chatter import stream
from bench.common import pct, scratch_dir
from tests.telegram.fake_bot_api import TOKEN, FakeBotAPI

APOLOGIES = ("Sorry, something went wrong", "Desculpe, algo deu errado", "Извините, у меня")
REPLY_TIMEOUT_S = 180.0


class LoadBotAPI(FakeBotAPI):
    """The fake Bot API, plus a queue of (time, text) replies per chat."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: dict[int, asyncio.Queue[tuple[float, str]]] = defaultdict(asyncio.Queue)

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        result = await super()._m_sendMessage(params)
        if not isinstance(result, web.Response):
            self.replies[int(params["chat_id"])].put_nowait((time.monotonic(), result["text"]))
        self.calls.clear()  # thousands of calls: keep the fake's own bookkeeping small
        return result


class BotProcess:
    """`python -m bot run` against the fake API, with a fresh data directory."""

    def __init__(self, api_base: str, data_dir: Path, env_extra: dict[str, str]) -> None:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TELEGRAM_", "SLACK_", "ANTHROPIC_", "HANDOFF_", "GRAPHMEM_"))
        }
        env.update(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE=api_base,
            TELEGRAM_QUESTIONS_PER_MINUTE="1000000",  # the benchmark is not about rate limits
            GRAPHMEM_DATA_DIR=str(data_dir),
            GRAPHMEM_LOG_LEVEL="WARNING",
            EMBEDDING_BACKEND="fastembed",
            EMBEDDING_LOCAL_DIR="bundled-minilm",
        )
        if env_extra.get("EMBEDDING_BACKEND", "fastembed") != "fastembed":
            env.pop("EMBEDDING_LOCAL_DIR")
        env.update(env_extra)  # may override the model
        self.log = data_dir / "bot.log"
        self._log_fh = self.log.open("wb")
        # cwd: the data directory, so no developer's .env is read
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run"],
            env=env,
            cwd=data_dir,
            stdout=self._log_fh,
            stderr=subprocess.STDOUT,
        )
        self.peak_sampled = 0.0
        self._sampler: asyncio.Task[None] | None = None

    def status_mb(self, field: str) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def start_sampling(self) -> None:
        async def sample() -> None:
            while True:
                self.peak_sampled = max(self.peak_sampled, self.status_mb("VmRSS"))
                await asyncio.sleep(0.2)

        self._sampler = asyncio.get_running_loop().create_task(sample())

    def error_lines(self) -> list[str]:
        text = self.log.read_text(errors="replace")
        return [ln for ln in text.splitlines() if " ERROR " in ln or ln.startswith("Traceback")]

    async def stop(self) -> int:
        if self._sampler is not None:
            self._sampler.cancel()
        self.proc.terminate()
        rc = await asyncio.to_thread(self.proc.wait, 60)
        self._log_fh.close()
        return rc


class Phase:
    def __init__(self, name: str) -> None:
        self.name = name
        self.messages = 0
        self.question_ms: list[float] = []
        self.statement_ms: list[float] = []
        self.apologies = 0
        self.timeouts = 0
        self.wall = 0.0

    def record(self, sent: float, got: float, text: str, question: bool) -> None:
        self.messages += 1
        (self.question_ms if question else self.statement_ms).append((got - sent) * 1000)
        self.apologies += text.startswith(APOLOGIES)

    @property
    def rate(self) -> float:
        return self.messages / self.wall if self.wall else 0.0

    def line(self) -> str:
        q = self.question_ms or [float("nan")]
        s = self.statement_ms or [float("nan")]
        return (
            f"{self.name:<34} {self.messages:5d} msgs in {self.wall:6.1f} s = {self.rate:5.1f} msg/s"
            f" | question p50 {statistics.median(q) / 1000:6.2f} s p95 {pct(q, 0.95) / 1000:6.2f} s"
            f" | statement p50 {statistics.median(s) / 1000:6.2f} s"
            f" | apologies {self.apologies} timeouts {self.timeouts}"
        )


async def converse(
    api: LoadBotAPI, phase: Phase, chat_id: int, script: list[tuple[str, bool]]
) -> None:
    """One user: each message sent once the previous one was answered."""
    replies = api.replies[chat_id]
    for text, question in script:
        sent = time.monotonic()
        api.send_text(chat_id, text, user_id=chat_id, first_name=f"u{chat_id}")
        try:
            got, reply = await asyncio.wait_for(replies.get(), REPLY_TIMEOUT_S)
        except TimeoutError:
            phase.timeouts += 1
            return
        phase.record(sent, got, reply, question)


async def closed_loop(api: LoadBotAPI, name: str, chat_ids: list[int], per_chat: int) -> Phase:
    phase = Phase(name)
    t0 = time.monotonic()
    await asyncio.gather(*(converse(api, phase, c, stream(seed=c, n=per_chat)) for c in chat_ids))
    phase.wall = time.monotonic() - t0
    return phase


async def open_loop(
    api: LoadBotAPI, name: str, chat_ids: list[int], rate: float, seconds: float
) -> Phase:
    """Messages arrive at `rate` per second whatever the bot does, round-robin over the chats;
    each reply is matched to its chat's oldest unanswered message (the bot answers a chat's
    messages in order)."""
    phase = Phase(name)
    total = int(rate * seconds)
    scripts = {c: iter(stream(seed=c, n=total)) for c in chat_ids}
    pending: dict[int, list[tuple[float, bool]]] = {c: [] for c in chat_ids}
    counts = dict.fromkeys(chat_ids, 0)
    for k in range(total):
        counts[chat_ids[k % len(chat_ids)]] += 1

    async def collect(chat_id: int) -> None:
        for _ in range(counts[chat_id]):
            try:
                got, reply = await asyncio.wait_for(api.replies[chat_id].get(), REPLY_TIMEOUT_S)
            except TimeoutError:
                phase.timeouts += 1
                return
            sent, question = pending[chat_id].pop(0)
            phase.record(sent, got, reply, question)

    collectors = [asyncio.create_task(collect(c)) for c in chat_ids]
    t0 = time.monotonic()
    for k in range(total):
        await asyncio.sleep(max(0.0, t0 + k / rate - time.monotonic()))
        chat_id = chat_ids[k % len(chat_ids)]
        text, question = next(scripts[chat_id])
        pending[chat_id].append((time.monotonic(), question))
        api.send_text(chat_id, text, user_id=chat_id, first_name=f"u{chat_id}")
    await asyncio.gather(*collectors)
    phase.wall = time.monotonic() - t0
    return phase


async def taking_turns(
    api: LoadBotAPI, name: str, chat_ids: list[int], rounds: int, in_flight: int
) -> Phase:
    """Many chats, few busy at a time: `in_flight` users, each taking the next chat in turn."""
    phase = Phase(name)
    order = [c for _ in range(rounds) for c in chat_ids]
    script = iter(stream(seed=len(order), n=len(order)))  # 1 in 5 a question, in turn order
    busy: set[int] = set()
    cursor = 0

    async def user() -> None:
        nonlocal cursor
        while cursor < len(order):
            chat_id = order[cursor]
            if chat_id in busy:  # its previous turn is still waiting for the answer
                await asyncio.sleep(0.01)
                continue
            cursor += 1
            busy.add(chat_id)
            await converse(api, phase, chat_id, [next(script)])
            busy.discard(chat_id)

    t0 = time.monotonic()
    await asyncio.gather(*(user() for _ in range(in_flight)))
    phase.wall = time.monotonic() - t0
    return phase


def du_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer messages per phase")
    ap.add_argument("--chats", type=int, default=50)
    ap.add_argument("--rate", type=float, default=30.0, help="offered load of phase 3, msg/s")
    ap.add_argument("--turn-chats", type=int, default=500)
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for the bot")
    args = ap.parse_args()
    one_n, per_chat, seconds, rounds = (60, 8, 10, 1) if args.quick else (150, 20, 20, 2)
    api = LoadBotAPI()
    await api.start()
    data = scratch_dir()
    env_extra = dict(kv.split("=", 1) for kv in args.env)
    t0 = time.monotonic()
    bot = BotProcess(api.base_url, data, env_extra)
    await api.wait_for("getUpdates", timeout=300)
    print(f"bot started in {time.monotonic() - t0:.1f} s, RSS {bot.status_mb('VmRSS'):.0f} MB")
    bot.start_sampling()
    await closed_loop(api, "warm-up", [1], 10)
    idle = bot.status_mb("VmRSS")
    phases = [await closed_loop(api, "1 busy chat", [2], one_n)]
    n = args.chats
    base = 1000
    phases.append(await closed_loop(api, f"{n} busy chats", list(range(base, base + n)), per_chat))
    base += n
    phases.append(
        await open_loop(
            api,
            f"{args.rate:g} msg/s over {n} chats",
            list(range(base, base + n)),
            args.rate,
            seconds,
        )
    )
    base += n
    during = bot.peak_sampled
    turns = list(range(10000, 10000 + args.turn_chats))
    phases.append(
        await taking_turns(api, f"{args.turn_chats} chats taking turns", turns, rounds, n)
    )
    await asyncio.sleep(5)  # idle: the pool's quiet-chat checkpoints and detaches run
    after = bot.status_mb("VmRSS")
    hwm = bot.status_mb("VmHWM")
    errors = bot.error_lines()
    await bot.stop()
    await api.stop()
    print(
        f"RSS: idle {idle:.0f} MB, peak sampled {bot.peak_sampled:.0f} MB (through phase 3 "
        f"{during:.0f} MB), VmHWM {hwm:.0f} MB, after the load {after:.0f} MB (target <= 600)"
    )
    for p in phases:
        print(p.line())
    one, busy, offered = phases[0], phases[1], phases[2]
    ratio = busy.rate / one.rate if one.rate else float("nan")
    bound = 3 * n / one.rate if one.rate else float("nan")
    busy_p95 = pct(busy.question_ms or [float("nan")], 0.95) / 1000
    offered_p95 = pct(offered.question_ms or [float("nan")], 0.95) / 1000
    print(f"throughput {n} chats / 1 chat: {ratio:.2f}x (target >= 0.8)")
    print(
        f"question p95 with {n} busy chats: {busy_p95:.2f} s (target <= 3 x {n} / one-chat "
        f"rate = {bound:.2f} s)"
    )
    print(f"question p95 at {args.rate:g} msg/s offered: {offered_p95:.2f} s (target <= 1 s)")
    print(f"disk: {du_mb(data):.0f} MB for {sum(p.messages for p in phases) + 10} messages")
    print(f"bot ERROR lines: {len(errors)}" + "".join(f"\n  {e}" for e in errors[:5]))


if __name__ == "__main__":
    asyncio.run(main())
