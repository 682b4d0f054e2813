"""The embedder `python -m bot ingest` runs in a child process (core/embedding/process.py):
the vectors the model gives in this process, a child that fails is an error, not a hang, and
one that cannot start or dies leaves the embedding here."""

from __future__ import annotations

import logging
import os
import signal
from functools import partial

import numpy as np
import pytest

from core.embedding import HashEmbedder
from core.embedding.process import ChildEmbedder, EmbeddingProcessError, ProcessEmbedder

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


def _only_in(pid: int, dim: int) -> HashEmbedder:
    """A model that loads in process `pid` and nowhere else (picklable for the child)."""
    if os.getpid() != pid:
        raise OSError("weights unreadable in this process")
    return HashEmbedder(dim=dim)


def test_an_import_embeds_in_a_child_started_at_once_with_the_same_vectors() -> None:
    here = HashEmbedder(dim=64)
    emb = ChildEmbedder(partial(HashEmbedder, dim=64))
    try:
        assert (emb.dim, emb.model_name) == (here.dim, here.model_name)
        assert emb.in_child and emb._local is None  # no model in this process
        assert np.array_equal(emb.embed(TEXTS * 10), here.embed(TEXTS * 10))
    finally:
        emb.close()
    assert emb._child is not None and emb._child._proc.poll() is not None  # stopped


def test_a_child_that_cannot_start_leaves_the_embedding_here(
    caplog: pytest.LogCaptureFixture,
) -> None:
    here = HashEmbedder(dim=64)
    with caplog.at_level(logging.WARNING, logger="core.embedding.process"):
        emb = ChildEmbedder(partial(_only_in, os.getpid(), 64))
        try:
            assert not emb.in_child
            assert "weights unreadable in this process" in caplog.text
            assert np.array_equal(emb.embed(TEXTS), here.embed(TEXTS))
            assert (emb.dim, emb.model_name) == (here.dim, here.model_name)
        finally:
            emb.close()


def test_a_model_that_loads_nowhere_fails_the_first_use_with_its_cause() -> None:
    emb = ChildEmbedder(_broken)
    with pytest.raises(OSError, match="weights unreadable"):
        emb.embed(TEXTS)
    with pytest.raises(OSError, match="weights unreadable"):
        _ = emb.dim
    emb.close()


def test_a_child_that_dies_hands_the_embedding_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Killed (out of memory, say) in the middle of an import: the model is loaded here and
    the import's next lines are embedded, not failed."""
    here = HashEmbedder(dim=64)
    emb = ChildEmbedder(partial(HashEmbedder, dim=64))
    try:
        emb.embed(TEXTS)
        assert emb._child is not None
        os.kill(emb._child._proc.pid, signal.SIGKILL)
        emb._child._proc.wait(10)
        with caplog.at_level(logging.WARNING, logger="core.embedding.process"):
            assert np.array_equal(emb.embed(TEXTS), here.embed(TEXTS))
        assert not emb.in_child and "embedding in this process again" in caplog.text
        assert np.array_equal(emb.embed(TEXTS[:2]), here.embed(TEXTS[:2]))
    finally:
        emb.close()
