"""In-memory float32 matrices for exact vector search (one per chat and table).

Measured here: an exact numpy scan of 100k x 384 takes ~13 ms while Kùzu's HNSW index had
recall@10 0.65 and 30 ms inserts, so Kùzu keeps the graph and this keeps the vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

# capacity grows by this factor when full. By doubling, a chat of 20,000 messages held 32,768
# rows of message vectors (64 MB at 512-d where 40 MB were used, tracemalloc) and the growth
# from 16,384 rows held both copies at once (96 MB). `python -m bot ingest` of 10,000 messages
# into a chat of 10,000 facts, alternated with doubling (two runs each, 2026-12-07): the
# importing process's peak 457-461 -> 448-457 MB (the peak is at a batch's COMMIT, where Kùzu
# checkpoints; the 600 MB bound is of the processes together, issue 14, target 4)
GROWTH = 1.25


class VectorMatrix:
    """Row i belongs to ids[i]; rows are unit vectors; capacity grows by GROWTH."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._data = np.zeros((16, dim), dtype=np.float32)
        self.ids: list[str] = []
        self._row: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._row

    @property
    def matrix(self) -> npt.NDArray[np.float32]:
        return self._data[: len(self.ids)]

    def add(self, item_id: str, vector: npt.NDArray[np.float32]) -> int:
        if item_id in self._row:
            row = self._row[item_id]
            self._data[row] = vector
            return row
        if len(self.ids) == len(self._data):
            grown = np.zeros((int(len(self._data) * GROWTH) + 16, self.dim), dtype=np.float32)
            grown[: len(self.ids)] = self._data[: len(self.ids)]
            self._data = grown
        row = len(self.ids)
        self._data[row] = vector
        self.ids.append(item_id)
        self._row[item_id] = row
        return row

    def row(self, item_id: str) -> int | None:
        return self._row.get(item_id)

    def vector(self, item_id: str) -> npt.NDArray[np.float32] | None:
        row = self._row.get(item_id)
        return None if row is None else self._data[row]

    def remove(self, item_ids: set[str]) -> None:
        """Drop these rows in place, the others in their order: only the rows after the
        first one removed move up. The regrouping job removes a few entities at each move;
        copying the whole matrix into one of its exact size each time (and again when the
        next add grew it) was 9% of the job's samples in a 10,000-message import (py-spy).
        The buffer shrinks once it holds more than GROWTH^2 times its rows (a world
        forgotten)."""
        rows = sorted(self._row[x] for x in item_ids if x in self._row)
        if not rows:
            return
        n, first = len(self.ids), rows[0]
        keep = np.ones(n - first, dtype=bool)
        keep[np.asarray(rows) - first] = False
        m = n - len(rows)
        self._data[first:m] = self._data[first:n][keep]  # the mask makes a copy first
        self._data[m:n] = 0
        for x in item_ids:
            self._row.pop(x, None)
        self.ids[first:] = [x for x, k in zip(self.ids[first:], keep, strict=True) if k]
        for i in range(first, m):
            self._row[self.ids[i]] = i
        if len(self._data) > GROWTH * GROWTH * m + 16:
            self._data = np.ascontiguousarray(self._data[: int(m * GROWTH) + 16])

    def scores(self, query: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Cosine of every row with the (unit) query."""
        if not self.ids:
            return np.zeros(0, dtype=np.float32)
        return self.matrix @ query

    def top_k(self, query: npt.NDArray[np.float32], k: int) -> list[tuple[str, float]]:
        return self.best(self.scores(query), k)

    def nearest_of(
        self,
        ids: Iterable[str],
        sims: npt.NDArray[np.float32],
        k: int,
        *,
        exact: set[str],
        keep: Callable[[str], bool] = lambda _: True,
    ) -> list[str]:
        """The first k of the ids that `keep` accepts, nearest first by precomputed scores: as
        `sorted((i for i in ids if keep(i)), key=-score)[:k]` (ties in the order given), an id
        without a row scoring 0 and one in `exact` 1. The asked kind's candidates in a
        10,000-fact chat are ~2,000 companies and places: sorted by a Python key, and each
        tested for the question's worlds, they took 0.7 ms of a 7 ms question; here numpy sorts
        them and `keep` is asked of the nearest until k pass."""
        ids = list(ids)
        if not ids:
            return []
        rows = np.fromiter((self._row.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
        found = rows >= 0
        vals = np.zeros(len(ids), dtype=np.float64)
        vals[found] = sims[rows[found]]
        exact_rows = [r for i in exact if (r := self._row.get(i)) is not None]
        vals[found & np.isin(rows, exact_rows)] = 1.0
        if len(exact_rows) < len(exact):  # an exact id without a row: found by its name
            vals[[j for j, i in enumerate(ids) if i in exact]] = 1.0
        out: list[str] = []
        for j in np.argsort(-vals, kind="stable"):
            if len(out) >= k:
                break
            if keep(ids[j]):
                out.append(ids[j])
        return out

    def best(self, sims: npt.NDArray[np.float32], k: int) -> list[tuple[str, float]]:
        """The k highest of precomputed scores (one per row), best first."""
        k = min(k, len(sims))
        if k <= 0:
            return []
        idx = np.argpartition(-sims, k - 1)[:k]
        idx = idx[np.argsort(-sims[idx])]
        return [(self.ids[i], float(sims[i])) for i in idx]


# a question's cosine with every message vector (a chat's largest scan: 20,000 x 512 took 1.6
# ms of a 12 ms question) runs in one of these threads while the graph stage reads the
# entities: numpy leaves the GIL during the product, and the machine has two cores
_SCANS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vector-scan")


class Ahead:
    """A scan started now in another thread and read later (`get`). When no thread has taken
    it by then (other chats' questions hold both), it is cancelled and run in the caller's
    thread: never waiting in the queue behind them."""

    def __init__(
        self,
        scan: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]],
        query: npt.NDArray[np.float32],
    ) -> None:
        self._scan, self._query = scan, query
        self._future = _SCANS.submit(scan, query)

    def get(self) -> npt.NDArray[np.float32]:
        if self._future.cancel():
            return self._scan(self._query)
        return self._future.result()
