"""kill -9 at random moments, then restart: nothing lost, nothing doubled, every database opens
(issue 12). The fast version of bench/crash.py (which kills many more times): real processes,
the real offline model, real Kùzu and SQLite, the fake Bot API for the bot. The seed is in the
failure message: `python -m bench.crash --seed N` replays it with more kills."""

from __future__ import annotations

import random
from pathlib import Path

from bench.crash import bot_crash, cli_crash, resumed_import


def test_cli_ingest_killed_and_run_again_stores_everything_once(tmp_path: Path) -> None:
    seed = random.randrange(1000)
    got = cli_crash(tmp_path, messages=40, kills=2, seed=seed)
    assert got.kills == 2
    assert got.problems == [], f"seed {seed}"


def test_an_import_resumed_after_some_lines_ends_as_one_import(tmp_path: Path) -> None:
    """The seed CI failed on (250), cut where it went wrong without the kill's randomness."""
    got = resumed_import(tmp_path, messages=40, seed=250, cuts=[25, 35])
    assert got.problems == []


async def test_bot_killed_while_polling_loses_and_doubles_nothing(tmp_path: Path) -> None:
    seed = random.randrange(1000)
    got = await bot_crash(tmp_path, messages=24, kills=1, seed=seed)
    assert got.kills == 1
    assert got.problems == [], f"seed {seed}"
