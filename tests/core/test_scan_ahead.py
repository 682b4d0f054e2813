"""A scan started ahead in another thread (core/index/vectors.py `Ahead`): the same cosines as
the scan run in place, and never a wait behind other chats' scans."""

from __future__ import annotations

import threading
import time

import numpy as np

from core.index import vectors
from core.index.vectors import Ahead, VectorMatrix


def matrix(n: int = 300, dim: int = 16) -> VectorMatrix:
    rng = np.random.default_rng(3)
    m = VectorMatrix(dim)
    for i in range(n):
        v = rng.normal(size=dim).astype(np.float32)
        m.add(f"m{i}", v / np.linalg.norm(v))
    return m


def test_a_scan_ahead_gives_the_scan_in_place() -> None:
    m = matrix()
    q = m.matrix[7]
    got = Ahead(m.scores, q).get()
    assert np.array_equal(got, m.scores(q))
    assert int(np.argmax(got)) == 7


def test_a_scan_no_thread_took_runs_in_the_callers_thread_at_once() -> None:
    m = matrix()
    release = threading.Event()
    busy = [vectors._SCANS.submit(release.wait, 10) for _ in range(2)]  # both threads held
    try:
        ran_in: list[str] = []

        def scan(q: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
            ran_in.append(threading.current_thread().name)
            return m.scores(q)

        started = time.perf_counter()
        got = Ahead(scan, m.matrix[3]).get()
        assert time.perf_counter() - started < 5  # not behind the held threads
        assert ran_in == [threading.current_thread().name]
        assert int(np.argmax(got)) == 3
    finally:
        release.set()
        for f in busy:
            f.result()
