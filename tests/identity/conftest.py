from __future__ import annotations

import pytest

from core.ports import Embedder


@pytest.fixture(scope="session")
def use_embedder() -> Embedder:
    from core.embedding.use import UseEmbedder

    return UseEmbedder(threads=1)
