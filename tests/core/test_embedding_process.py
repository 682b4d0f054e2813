"""The embedder `python -m bot ingest` moves to a child process once it has much to embed
(core/embedding/process.py): the vectors the model gives in this process, a child that fails
is an error, not a hang, and one that cannot start leaves the embedding where it was."""

from __future__ import annotations

import logging
import os
import signal
from functools import partial

import numpy as np
import pytest

from core.embedding import HashEmbedder
from core.embedding.process import EmbeddingProcessError, OffloadingEmbedder, ProcessEmbedder

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


def _wait_offloaded(emb: OffloadingEmbedder) -> None:
    assert emb._starting is not None
    emb._starting.join(60)


def test_an_import_with_little_to_embed_keeps_its_model_here() -> None:
    emb = OffloadingEmbedder(HashEmbedder(dim=64), partial(HashEmbedder, dim=64), after=100)
    try:
        got = emb.embed(TEXTS * 10)  # 40 texts
        assert emb._starting is None and not emb.offloaded
        assert np.array_equal(got, HashEmbedder(dim=64).embed(TEXTS * 10))
    finally:
        emb.close()


def test_past_the_threshold_the_embedding_moves_to_a_child_with_the_same_vectors() -> None:
    here = HashEmbedder(dim=64)
    emb = OffloadingEmbedder(HashEmbedder(dim=64), partial(HashEmbedder, dim=64), after=8)
    try:
        before = emb.embed(TEXTS * 2)  # 8 texts: the child starts
        _wait_offloaded(emb)
        assert emb.offloaded and emb._local is None  # this process's model let go
        assert np.array_equal(before, here.embed(TEXTS * 2))
        assert np.array_equal(emb.embed(TEXTS), here.embed(TEXTS))
        assert (emb.dim, emb.model_name) == (here.dim, here.model_name)
    finally:
        emb.close()
    assert emb._child is not None and emb._child._proc.poll() is not None  # stopped


def test_a_child_that_cannot_start_leaves_the_embedding_here(
    caplog: pytest.LogCaptureFixture,
) -> None:
    here = HashEmbedder(dim=64)
    emb = OffloadingEmbedder(HashEmbedder(dim=64), _broken, after=1)
    try:
        with caplog.at_level(logging.WARNING, logger="core.embedding.process"):
            emb.embed(TEXTS)
            _wait_offloaded(emb)
        assert not emb.offloaded
        assert "weights unreadable" in caplog.text
        assert np.array_equal(emb.embed(TEXTS), here.embed(TEXTS))
    finally:
        emb.close()


def test_a_child_that_dies_after_taking_over_hands_the_embedding_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Killed (out of memory, say) in the middle of an import: the model is loaded here again
    and the import's next lines are embedded, not failed."""
    here = HashEmbedder(dim=64)
    emb = OffloadingEmbedder(HashEmbedder(dim=64), partial(HashEmbedder, dim=64), after=1)
    try:
        emb.embed(TEXTS)
        _wait_offloaded(emb)
        assert emb._child is not None
        os.kill(emb._child._proc.pid, signal.SIGKILL)
        emb._child._proc.wait(10)
        with caplog.at_level(logging.WARNING, logger="core.embedding.process"):
            assert np.array_equal(emb.embed(TEXTS), here.embed(TEXTS))
        assert not emb.offloaded and "embedding in this process again" in caplog.text
        assert np.array_equal(emb.embed(TEXTS[:2]), here.embed(TEXTS[:2]))
    finally:
        emb.close()
