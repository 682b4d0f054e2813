"""Message and entity vectors as stored: int8, base64 text (schema 4).

Why (issue 14, disk): a FLOAT[] vector costs 4 bytes a dimension, 1.5 KB a message with MiniLM
(384-d) and 2 KB with USE (512-d): 1.5 of the 11.1 MB of one chat of 1,000 messages. Stored
as int8 (each vector scaled so its largest component is +-127) it is a quarter of that; the
vector is made unit again when it is read, so no scale is stored. Kùzu 0.11.3's Python API
takes no `bytes` parameter ("Unknown parameter type <class 'bytes'>"), so the int8 codes
travel as base64 text in a STRING column (4/3 of the bytes: 512 characters for 384-d).
Measured on kuzu 0.11.3, 1,000 unit vectors of 384-d: 1.5 MB as FLOAT[] against 0.5 MB here;
a row written in 1.6 ms instead of 2.6 ms (no list of floats to convert), all rows read and
decoded in 12 ms instead of 72 ms.

What it changes: the cosine of a decoded vector with its original is >= 0.9999 (int8 steps of
max|v| / 127), so scores move by ~1e-4; near-ties may swap (bench figures in the commit that
made this). Only unit vectors are packed (embeddings); world centroids, updated in place and
read back into the running mean, stay FLOAT[].
"""

from __future__ import annotations

import base64

import numpy as np
import numpy.typing as npt


def pack_vector(vec: npt.NDArray[np.float32] | None) -> str:
    """A vector as base64 int8 codes; "" for no vector (and for a zero one: nothing to scale)."""
    if vec is None or len(vec) == 0:
        return ""
    v = np.asarray(vec, dtype=np.float32)
    top = float(np.abs(v).max())
    if not np.isfinite(top) or top == 0.0:
        return ""
    codes = np.rint(v * (127.0 / top)).astype(np.int8)
    return base64.b64encode(codes.tobytes()).decode("ascii")


def pack_many(vecs: npt.NDArray[np.float32]) -> list[str]:
    """Rows of a matrix packed (the same codes as pack_vector, row by row)."""
    m = np.asarray(vecs, dtype=np.float32)
    if m.size == 0:
        return [""] * len(m)
    top = np.abs(m).max(axis=1, keepdims=True)
    ok = np.isfinite(top[:, 0]) & (top[:, 0] > 0)
    codes = np.rint(m * (127.0 / np.where(ok[:, None], top, 1.0))).astype(np.int8)
    return [
        base64.b64encode(row.tobytes()).decode("ascii") if good else ""
        for row, good in zip(codes, ok, strict=True)
    ]


def unpack_vector(text: str | None, dim: int) -> npt.NDArray[np.float32] | None:
    """The unit vector of packed codes; None for none, or for codes of another dimension."""
    if not text:
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    if len(raw) != dim:
        return None
    v = np.frombuffer(raw, dtype=np.int8).astype(np.float32)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v
