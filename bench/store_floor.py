"""How much of an import is the store path: `python -m bench.store_floor [--facts N]
[--messages N]`.

Each file of bench.bulk (10,000 facts, 10,000 messages) is imported twice by `python -m bot
ingest` in a child process, into a fresh data directory each time: first as bench.bulk does,
the offline USE model embedding every text (the vectors are kept in a table as they are
made); then with the embedder answering from that table, so that the same lines go through
the same validation, routing, resolution, world merges, regrouping and writes with
embedding costing nothing. The second wall time, less a one-line import's start-up, is what
the import spends outside embedding: a floor that batching or parallel embedding cannot go
below.
"""

from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.bulk import BROKEN, bot_env, fact_lines, message_lines, write_jsonl
from bench.common import scratch_dir


def _child(table_path: Path, args: list[str]) -> None:
    """Run `python -m bot ARGS` in this process with the USE embedder answering from (and
    adding to) the pickled table of text -> vector."""
    import numpy as np

    from core.embedding.use import UseEmbedder

    table: dict[str, Any] = pickle.loads(table_path.read_bytes()) if table_path.exists() else {}
    encode = UseEmbedder._encode
    missed = 0

    def from_table(self: UseEmbedder, texts: list[str]) -> Any:
        nonlocal missed
        new = [t for t in dict.fromkeys(texts) if t not in table]
        if new:
            missed += len(new)
            table.update(zip(new, encode(self, new), strict=True))
        return np.stack([table[t] for t in texts])

    UseEmbedder._encode = from_table  # type: ignore[method-assign]
    sys.argv = ["bot", *args]
    import bot.__main__ as entry

    try:
        entry.main()
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    if missed:  # the second run changes nothing: no write to time
        table_path.write_bytes(pickle.dumps(table))
    print(f"embedded {missed} texts", file=sys.stderr)
    sys.exit(code)


def _run(data: Path, table: Path, args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "bench.store_floor", "--child", str(table), *args],
        env={**bot_env(data), "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        cwd=data,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ingest failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc.stderr.strip().splitlines()[-1]


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        _child(Path(sys.argv[2]), sys.argv[3:])
        return
    ap = argparse.ArgumentParser(prog="python -m bench.store_floor")
    ap.add_argument("--facts", type=int, default=10000)
    ap.add_argument("--messages", type=int, default=10000)
    args = ap.parse_args()
    root = scratch_dir()
    one = write_jsonl(root / "one.jsonl", fact_lines(1, seed=99), broken=False)
    start = root / "start"
    start.mkdir()
    startup, _ = _run(start, root / "start.pkl", ["ingest", "--chat", "startup", str(one)])
    print(f"start-up (one-line import): {startup:.1f} s")
    for label, lines in (
        ("facts", fact_lines(args.facts)),
        ("messages", message_lines(args.messages)),
    ):
        path = write_jsonl(root / f"{label}.jsonl", lines, broken=True)
        table = root / f"{label}.pkl"
        walls = []
        for run in ("embedding", "vectors given"):
            data = root / f"{label}-{run.split()[0]}"
            data.mkdir()
            wall, note = _run(data, table, ["ingest", "--chat", "big", str(path)])
            walls.append(wall)
            n = len(lines) - len(BROKEN)
            print(f"ingest {n} {label}, {run}: {wall - startup:.1f} s beyond start-up ({note})")
        print(f"  store path alone: {walls[1] / walls[0]:.2f} of the import's wall time")


if __name__ == "__main__":
    main()
