"""What a user's erase request for a name costs (`/forget Pedro`, core/pipeline/erase.py).

    python -m bench.forget [--messages 1000 10000] [--names 5]

A chat of N messages (bench.crash's chat lines, imported through the bulk path with the
durable log on) in which each of `names` invented people is named in ~0.5% of the messages;
each name is then forgotten in turn. Prints per request: its time (p50 / max over the names),
messages and facts taken, and, as the baseline of the same run, a question's time on the same
chat before. Then the time until the shard's compaction is done (the bytes leave the files).
The embedder is the deterministic HashEmbedder: an erase embeds nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import time

from bench.common import scratch_dir
from bench.crash import chat_lines
from core.embedding import HashEmbedder
from core.models import ImportItem
from core.service import Core
from core.store.inbound_log import SqliteInboundLog
from core.store.pool import StorePool
from ontology import load_ontology

PEOPLE = ("Zorbanek", "Quillfeather", "Marraskov", "Tellurian", "Ovidasz", "Brennholt")
SAID = (
    "{p} called about the invoice",
    "ask {p} for the new contract",
    "{p}'s phone is {n}",
    "{p} will visit the office on Monday",
)


def lines(n: int, names: int, seed: int) -> list[ImportItem]:
    rng = random.Random(seed)
    out = []
    for line in chat_lines(n, seed, prefix="f"):
        text = line["text"]
        if rng.random() < 0.005 * names:
            who = rng.choice(PEOPLE[:names])
            text = rng.choice(SAID).format(p=who, n=rng.randrange(10**8, 10**9))
        out.append(ImportItem(author=line["author"], message_id=line["id"], text=text))
    return out


async def run(n: int, names: int) -> None:
    data = scratch_dir()
    emb = HashEmbedder()
    pool = StorePool(data, dim=emb.dim, model_name=emb.model_name, idle_checkpoint_s=0.2)
    core = Core(
        pool=pool,
        embedder=emb,
        ontology=load_ontology(),
        inbound=SqliteInboundLog(data / "inbound.sqlite3"),
    )
    chat = f"bench-{n}"
    items = lines(n, names, seed=n)
    for i in range(0, len(items), 256):
        await core.remember_many(chat, items[i : i + 256])
    await pool.settled()
    asked = []
    for q in ("who called about the invoice?", "what is the phone of the office?") * 5:
        t0 = time.perf_counter()
        await core.ask(chat, q)
        asked.append(time.perf_counter() - t0)
    took, msgs, facts = [], [], []
    for who in PEOPLE[:names]:
        t0 = time.perf_counter()
        gone = await core.forget_entity(chat, who)
        took.append(time.perf_counter() - t0)
        msgs.append(gone.messages)
        facts.append(gone.facts)
    t0 = time.perf_counter()
    await pool.settled()
    compacted = time.perf_counter() - t0
    left = (await core.stats(chat))["messages"]
    await core.close()
    print(
        f"{n:>6} messages: /forget <name> p50 {statistics.median(took) * 1000:7.1f} ms, "
        f"max {max(took) * 1000:7.1f} ms; took {statistics.median(msgs):.0f} messages and "
        f"{statistics.median(facts):.0f} facts per name (median); a question on the same chat "
        f"p50 {statistics.median(asked) * 1000:.1f} ms ({statistics.median(took) / statistics.median(asked):.1f}x); "
        f"compaction after {compacted:.2f} s; {left} messages left"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--names", type=int, default=5)
    args = ap.parse_args()
    # the bulk path's fallback to one line at a time on kuzu's fact-change trap logs warnings
    logging.disable(logging.WARNING)
    for n in args.messages:
        asyncio.run(run(n, args.names))


if __name__ == "__main__":
    main()
