"""Routing thresholds read off the embedding model itself (issue 15): no per-model table.

The first time a model is used, the shipped calibration set (core/data/topic_calibration.txt:
short en/pt/ru chat messages on topics the labelled streams do not use) is embedded and two
numbers are measured, each over pairs of messages in the same language:

    same   mean cosine of two messages on one topic
    cross  mean cosine of two messages on different topics

A language whose topics the model does not separate (an English-only model on Russian text puts
every Russian pair close together) would drag both numbers up; only languages separated at
least half as well as the best one count, so an English model is calibrated on English and a
multilingual one on all three. The result is cached as JSON (by model name) next to the
models, and in memory per process.

core.worlds turns (same, cross) into thresholds with model-free fractions of the gap between
them; those fractions are what bench/worlds.py tunes, on the tuning part of the stream only.

Checked for the English MiniLM (tuning data only): it keeps English alone (separation 1.66
against 0.33 for pt and 0.17 for ru), so its figures (same 0.252, cross 0.076) rest on 12
same-topic pairs: a bootstrap over the set's topics gives same +-0.036 and the job line
+-0.013 (USE, three languages: +-0.022 and +-0.009). They sit where its English chat text
does (tuning part: same 0.215, cross 0.060; first stream 0.247 / 0.037; USE's calibration is
further above its own chats, 0.313 / 0.131 against 0.242 / 0.100). Placing the thresholds
on a stream's own labelled same/cross instead, the best any chat statistic could estimate,
made both models worse on the tuning part (cluster 0.881 -> 0.697 MiniLM, 0.977 -> 0.811
USE): the set is not why MiniLM's figures are lower (see bench/worlds.py, `use-en`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from core.ports import Embedder

log = logging.getLogger(__name__)

CALIBRATION_SET = Path(__file__).resolve().parent / "data" / "topic_calibration.txt"
VERSION = 1  # bump when the set or the measurement changes: cached results are then ignored


@dataclass(frozen=True)
class Calibration:
    model: str
    same: float  # mean same-topic pair cosine
    cross: float  # mean different-topic pair cosine
    languages: tuple[str, ...]  # the languages the figures come from
    version: int = VERSION

    @property
    def spread(self) -> float:
        return max(self.same - self.cross, 1e-3)


_memo: dict[str, Calibration] = {}
_lock = threading.Lock()


def read_set(path: Path = CALIBRATION_SET) -> list[tuple[str, str, str]]:
    """(topic, language, text) rows of the calibration set."""
    rows: list[tuple[str, str, str]] = []
    topic = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("## "):
            topic = line[3:].strip()
        elif line and not line.startswith("#") and "|" in line:
            lang, text = line.split("|", 1)
            rows.append((topic, lang.strip(), text.strip()))
    return rows


def measure(embedder: Embedder, rows: list[tuple[str, str, str]] | None = None) -> Calibration:
    """Embed the set and measure same/cross-topic pair similarity per language."""
    rows = rows if rows is not None else read_set()
    vecs = np.asarray(embedder.embed([t for _, _, t in rows]), dtype=np.float64)
    sims = vecs @ vecs.T
    topics = np.array([r[0] for r in rows])
    langs = np.array([r[1] for r in rows])
    per_lang: dict[str, tuple[float, float, float]] = {}
    for lang in sorted(set(langs)):
        pair = (langs[:, None] == lang) & (langs[None, :] == lang)
        same = pair & (topics[:, None] == topics[None, :])
        np.fill_diagonal(same, False)
        cross = pair & (topics[:, None] != topics[None, :])
        if not same.any() or not cross.any():
            continue
        s, d = float(sims[same].mean()), float(sims[cross].mean())
        sd = float(np.sqrt((sims[same].var() + sims[cross].var()) / 2)) or 1e-6
        per_lang[lang] = (s, d, (s - d) / sd)  # separation in pooled standard deviations
    best = max(sep for _, _, sep in per_lang.values())
    kept = sorted(lang for lang, (_, _, sep) in per_lang.items() if sep >= 0.5 * best)
    same_m = float(np.mean([per_lang[lang][0] for lang in kept]))
    cross_m = float(np.mean([per_lang[lang][1] for lang in kept]))
    return Calibration(embedder.model_name, round(same_m, 4), round(cross_m, 4), tuple(kept))


def _cache_file(cache_dir: Path, model: str) -> Path:
    slug = hashlib.sha1(model.encode()).hexdigest()[:12]
    return cache_dir / f"topic-calibration-{slug}.json"


def calibrate(embedder: Embedder, cache_dir: Path | None = None) -> Calibration:
    """The model's calibration: from memory, the cache file, or measured now (and cached)."""
    model = embedder.model_name
    with _lock:
        if model in _memo:
            return _memo[model]
        cal: Calibration | None = None
        path = _cache_file(cache_dir, model) if cache_dir is not None else None
        if path is not None and path.exists():
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
                raw["languages"] = tuple(raw["languages"])
                loaded = Calibration(**raw)
                cal = loaded if loaded.version == VERSION and loaded.model == model else None
            except (ValueError, TypeError, KeyError):
                cal = None  # unreadable: measure again
        if cal is None:
            cal = measure(embedder)
            log.info(
                "calibrated topic routing for %s: same %.3f, cross %.3f (%s)",
                model,
                cal.same,
                cal.cross,
                ",".join(cal.languages),
            )
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(asdict(cal)), encoding="utf-8")
                tmp.replace(path)
        _memo[model] = cal
        return cal
