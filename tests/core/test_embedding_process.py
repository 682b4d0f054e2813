"""The embedder `python -m bot ingest` runs in a child process (core/embedding/process.py):
the vectors the model gives in this process, and a child that fails is an error, not a hang."""

from __future__ import annotations

import os
import signal
from functools import partial

import numpy as np
import pytest

from core.embedding import HashEmbedder
from core.embedding.process import EmbeddingProcessError, ProcessEmbedder

TEXTS = ["checkout depends on payments", "o billing depende do ledger", "сервис billing", "ok"]


def _broken() -> HashEmbedder:
    raise OSError("weights unreadable: /nowhere/model.onnx")


def test_the_child_gives_the_vectors_the_model_gives_here() -> None:
    here = HashEmbedder(dim=64)
    child = ProcessEmbedder(partial(HashEmbedder, dim=64))
    try:
        assert (child.dim, child.model_name) == (here.dim, here.model_name)
        got = child.embed(TEXTS)
        assert got.dtype == np.float32 and got.shape == (len(TEXTS), 64)
        assert np.array_equal(got, here.embed(TEXTS))
        assert child.embed([]).shape == (0, 64)
        assert np.array_equal(child.embed(TEXTS[:1]), here.embed(TEXTS[:1]))  # and again
    finally:
        child.close()


def test_a_model_that_cannot_load_is_reported_with_its_cause() -> None:
    with pytest.raises(EmbeddingProcessError, match="weights unreadable"):
        ProcessEmbedder(_broken)


def test_a_child_that_dies_fails_the_call_instead_of_hanging_it() -> None:
    child = ProcessEmbedder(partial(HashEmbedder, dim=8))
    try:
        os.kill(child._proc.pid, signal.SIGKILL)
        child._proc.wait(10)
        with pytest.raises(EmbeddingProcessError, match=r"gone|exited"):
            child.embed(TEXTS)
    finally:
        child.close()
