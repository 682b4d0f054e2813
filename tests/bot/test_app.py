"""The composition root: settings in, a wired Core out."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.app import build_core
from bot.settings import Settings


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("GRAPHMEM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EMBEDDING_LOCAL_DIR", "bundled-minilm")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return tmp_path


async def test_without_a_key_everything_runs_offline_and_says_so_once(
    env: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="bot.app"):
        core = build_core(Settings())
    try:
        assert core.llm is None
        said = [r for r in caplog.records if "ANTHROPIC_API_KEY" in r.getMessage()]
        assert len(said) == 1
        await core.remember("c", author="a", text="checkout depends on payments")
        answer = await core.ask("c", "What does checkout depend on?")
        assert answer.model == "extractive" and answer.paths == [["checkout", "payments"]]
        assert len([r for r in caplog.records if "ANTHROPIC_API_KEY" in r.getMessage()]) == 1
    finally:
        await core.close()


async def test_a_key_wires_the_anthropic_adapter_without_logging_it(
    env: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "sk-ant-do-not-log-me-0123456789"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    with caplog.at_level(logging.DEBUG):
        settings = Settings()
        core = build_core(settings)
    try:
        assert core.llm is not None and core.llm.answer_model == settings.anthropic.answer_model
        assert secret not in caplog.text
        assert secret not in repr(settings.anthropic)
    finally:
        await core.close()


def test_model_hub_probe_answers_without_waiting() -> None:
    """No route to the hub means the offline model at once, not fastembed's ~40 s of retries."""
    import socket

    from bot.embedders import model_hub_reachable

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert model_hub_reachable("127.0.0.1", port)
    assert not model_hub_reachable("127.0.0.1", port)  # closed now: refused
    assert not model_hub_reachable("model-hub.invalid")  # no such name


def test_nothing_in_fastembeds_cache_means_use_without_importing_fastembed(
    tmp_path: Path,
) -> None:
    """The default model was never downloaded and the hub is unreachable: the bot loads USE
    and never imports fastembed and onnxruntime (~90 MB of RSS for nothing), in a fresh
    process so that other tests' imports do not count."""
    import os
    import subprocess
    import sys

    from core.embedding.fastembed import fastembed_cache_is_empty

    cache = tmp_path / "fastembed"
    cache.mkdir()
    assert fastembed_cache_is_empty(str(cache)) and fastembed_cache_is_empty(str(tmp_path / "no"))
    (cache / "models--x").mkdir()
    assert not fastembed_cache_is_empty(str(cache))
    (cache / "models--x").rmdir()
    code = (
        "import sys; import bot.app as a, bot.embedders as m; from bot.settings import Settings; "
        "m.model_hub_reachable = lambda *_, **__: False; e = a.build_embedder(Settings()); "
        "print(type(e).__name__, 'fastembed' in sys.modules, 'onnxruntime' in sys.modules)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "GRAPHMEM_"))}
    env |= {"FASTEMBED_CACHE_PATH": str(cache), "GRAPHMEM_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["UseEmbedder", "False", "False"]
