"""Regression guard on the recall fixture (real offline model, no LLM): the bench's figures
(bench/recall.py) must not fall below these bounds."""

from __future__ import annotations

import statistics
from datetime import datetime

from bench.recall import FixedClock, evaluate, ingest, load_fixture
from core.service import Core

RECALL_AT_10_FLOOR = 0.82  # measured 0.847 (vector top-k: 0.722)
MARGIN_OVER_VECTOR = 0.10  # the target


async def test_fixture_recall_lower_bound(real_core: Core) -> None:
    turns, questions = load_fixture()
    assert len(turns) >= 300 and len({t["ts"][:10] for t in turns}) >= 10
    assert len({t["author"] for t in turns}) >= 2 and len(questions) >= 60
    real_core.clock = FixedClock(datetime.fromisoformat(questions[0]["ask_at"]))
    await ingest(real_core, turns)
    results = await evaluate(real_core, questions)
    project = statistics.mean(results["project"]["all@10"])
    vector = statistics.mean(results["vector"]["all@10"])
    assert project >= RECALL_AT_10_FLOOR, (project, vector)
    assert project - vector >= MARGIN_OVER_VECTOR, (project, vector)
