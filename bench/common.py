"""Helpers shared by the benchmarks: percentiles, RSS, disk, the offline models."""

from __future__ import annotations

import atexit
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from core.embedding.fastembed import BUNDLED_MODEL, FastEmbedEmbedder, bundled_minilm_dir
from core.ports import Embedder


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(name: str, ms: list[float]) -> str:
    return f"{name:<34} p50 {statistics.median(ms):8.2f} ms   p95 {pct(ms, 0.95):8.2f} ms   n={len(ms)}"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def offline_embedder() -> Embedder:
    models = Path(tempfile.gettempdir()) / "graphmem-bench-models"
    return FastEmbedEmbedder(BUNDLED_MODEL, local_dir=bundled_minilm_dir(models), threads=1)


def scratch_dir() -> Path:
    """A temporary data directory removed when the benchmark exits (a 50-chat concurrency run
    leaves ~2 GB of Kùzu files behind otherwise)."""
    path = Path(tempfile.mkdtemp(prefix="graphmem-bench-"))
    atexit.register(shutil.rmtree, path, True)
    return path


def du_kb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1024


def in_process_embedder(name: str) -> Any:
    """The model of the parts run in this process: USE (512-d, the offline default of a bot
    without a fastembed cache) or the bundled MiniLM (384-d)."""
    if name == "use":
        from core.embedding.use import UseEmbedder

        return UseEmbedder(threads=1)
    return offline_embedder()
