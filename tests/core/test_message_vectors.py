"""A message is stored with the vector of its text alone (Ingest.message_vector): what was
embedded at ingest is read back after a restart by the regrouping job and by the quote, not
embedded again; a chat written when the stored vector embedded "author: text" is re-embedded
once when it is opened."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from core.ports import Embedder, GraphStore
from core.store.schema import MESSAGE_VECTORS
from ontology import Ontology
from tests.doubles import ManualClock
from tests.worlds.conftest import adaptive_core

SNAKE = [
    "my ball python Monty eats one mouse a week",
    "the terrarium lamp keeps it at thirty degrees",
    "Monty sheds his skin every couple of months",
]
CODE = [
    "the billing service is written in Go with gRPC",
    "our CI pipeline runs the integration tests on every push",
    "the deploy to staging failed on a missing environment variable",
]


class Recording:
    """The real embedder, with every text it is asked to embed recorded."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts: list[str] = []

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.texts.extend(texts)
        return self.inner.embed(texts)


async def _told(
    data: Path, embedder: Embedder, ontology: Ontology, clock: ManualClock
) -> dict[str, str]:
    """The six messages told in one chat and the core closed; their ids by text."""
    core = adaptive_core(data, embedder, ontology, clock)
    ids = {}
    try:
        for text in SNAKE + CODE:
            clock.advance(seconds=30)
            ids[text] = (await core.remember("c", author="ana", text=text)).message_id
    finally:
        await core.close()
    return ids


def _cos(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


async def test_after_a_restart_the_job_and_the_quote_read_the_stored_vectors(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    clock = ManualClock()
    ids = await _told(tmp_path / "d", use_embedder, ontology, clock)
    seen = Recording(use_embedder)
    core = adaptive_core(tmp_path / "d", seen, ontology, clock)
    try:

        def stored(store: GraphStore) -> dict[str, npt.NDArray[np.float32]]:
            return {t: store.message_vectors.vector(i).copy() for t, i in ids.items()}  # type: ignore[union-attr]

        vectors = await core.pool.run("c", stored)
        for text, vec in vectors.items():  # the text alone, not "ana: text"
            alone, prefixed = use_embedder.embed([text, f"ana: {text}"])
            assert _cos(vec, alone) > 0.999 > _cos(vec, prefixed), text
        seen.texts.clear()
        await core.regroup_worlds("c")
        answer = await core.ask("c", "what does Monty eat?")
        assert "eats one mouse a week" in answer.answer, answer.answer
        # the job re-examined every message and the quote weighed whole messages by meaning,
        # all from the store: none of the messages was embedded again
        assert not set(seen.texts) & set(ids), seen.texts
    finally:
        await core.close()


async def test_a_chat_stored_with_author_prefixed_vectors_is_reembedded_once_at_open(
    tmp_path: Path, ontology: Ontology, use_embedder: Embedder
) -> None:
    clock = ManualClock()
    ids = await _told(tmp_path / "d", use_embedder, ontology, clock)
    core = adaptive_core(tmp_path / "d", use_embedder, ontology, clock)
    try:

        def as_before(store: GraphStore) -> None:
            """The chat as the build before wrote it: "author: text" vectors, no marker."""
            with store.transaction():
                for text, mid in ids.items():
                    vec = use_embedder.embed([f"ana: {text}"])[0]
                    store._exec(  # type: ignore[attr-defined]
                        "MATCH (m:Message {uid: $u}) WHERE m.chat = $chat SET m.emb = $e",
                        {"u": store._u(mid), "e": store._packed(vec)},  # type: ignore[attr-defined]
                    )
                store._exec(  # type: ignore[attr-defined]
                    "MATCH (r:Record {uid: $u}) WHERE r.chat = $chat DELETE r",
                    {"u": store._u("meta:message_vectors")},  # type: ignore[attr-defined]
                )

        await core.pool.run("c", as_before)
    finally:
        await core.close()
    seen = Recording(use_embedder)
    core = adaptive_core(tmp_path / "d", seen, ontology, clock)
    try:

        def read(store: GraphStore) -> tuple[str | None, dict[str, npt.NDArray[np.float32]]]:
            vecs = {t: store.message_vectors.vector(i).copy() for t, i in ids.items()}  # type: ignore[union-attr]
            return store.meta("message_vectors"), vecs

        marker, vectors = await core.pool.run("c", read)
        assert marker == MESSAGE_VECTORS
        assert set(ids) <= set(seen.texts)  # re-embedded, each message by its text alone
        for text, vec in vectors.items():
            assert _cos(vec, use_embedder.embed([text])[0]) > 0.999, text
        await core.close()
        seen.texts.clear()
        core = adaptive_core(tmp_path / "d", seen, ontology, clock)
        await core.pool.run("c", read)
        assert not set(seen.texts) & set(ids)  # once: the marker is kept
    finally:
        await core.close()
