"""A deterministic, dependency-free embedder for unit tests (not for production).

Lemmatised words and character trigrams are hashed into signed buckets, so texts that share
words are similar and unrelated texts are nearly orthogonal. Stable across processes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from core.language import key_tokens


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return value % dim, 1.0 if (value >> 63) & 1 else -1.0


class HashEmbedder:
    def __init__(self, dim: int = 256) -> None:
        self._dim = dim

    @property
    def model_name(self) -> str:
        return f"hash-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in key_tokens(text):
                idx, sign = _bucket("w:" + word, self._dim)
                out[row, idx] += 2.0 * sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    idx, sign = _bucket("c:" + padded[i : i + 3], self._dim)
                    out[row, idx] += 0.5 * sign
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out
