"""The JSON CLI as other tools use it: real processes, the real offline model, a real DB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.console import console_command
from core.service import Core
from core.worlds import merge_pair

ROOT = Path(__file__).parents[2]


def run(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EMBEDDING_LOCAL_DIR": "bundled-minilm", "GRAPHMEM_LOG_LEVEL": "WARNING"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("cli")
    lines = [
        {
            "id": "m1",
            "author": "ann",
            "text": "checkout depends on payments",
            "ts": "2026-05-02T10:00:00Z",
        },
        {"id": "m2", "author": "bob", "text": "payments depends on antifraud"},
        "this line is not json",
        {
            "subject": "antifraud",
            "subject_kind": "service",
            "predicate": "REQUIRES",
            "object": "encryption at rest",
            "object_kind": "policy",
            "confidence": 1.0,
        },
        {
            "subject": "a",
            "subject_kind": "service",
            "predicate": "TELEPORTS",
            "object": "b",
            "object_kind": "service",
        },
        {"author": "x"},
        {"id": "m1", "author": "ann", "text": "checkout depends on payments"},
    ] + [
        {"id": f"n{i}", "author": "cat", "text": f"small talk number {i} about lunch"}
        for i in range(12)
    ]
    src = data / "in.jsonl"
    src.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    proc = run("ingest", "--data-dir", str(data), "--chat", "team", str(src), data=data)
    assert proc.returncode == 0, proc.stderr
    summary = proc.stdout.strip().splitlines()[-1]
    assert summary.startswith("ingested 15 messages: 3 facts stored")
    assert "1 duplicates" in summary and "3 invalid lines skipped" in summary
    assert (
        "in.jsonl:3:" in proc.stderr
        and "in.jsonl:5:" in proc.stderr
        and "in.jsonl:6:" in proc.stderr
    )
    return data


def test_an_import_of_a_missing_file_says_so_before_opening_anything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = run(
        "ingest", "--data-dir", str(data), "--chat", "t", str(tmp_path / "nope.jsonl"), data=data
    )
    assert proc.returncode == 2
    assert "nope.jsonl: no such file" in proc.stderr
    assert not data.exists()  # no model loaded, no store created for a typo


def test_ask_json_contract(ingested: Path) -> None:
    proc = run(
        "ask",
        "--data-dir",
        str(ingested),
        "--chat",
        "team",
        "--json",
        "Which policy applies to checkout?",
        data=ingested,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"answer", "worlds", "seeds", "facts", "paths", "evidence", "trace_id"}
    assert ["checkout", "payments", "antifraud", "encryption at rest"] in out["paths"]
    assert out["seeds"][0] == {"entity": "checkout", "score": 1.0}
    assert {"subject", "predicate", "object", "confidence", "sources"} == set(out["facts"][0])
    assert out["facts"][0]["sources"] == ["m1"]
    # the question names something of the services' world: the lunch talk (its own world)
    # is not evidence (issue 15)
    assert out["evidence"][0] in {"m1", "m2"} and {"m1", "m2"} <= set(out["evidence"])
    assert not any(e.startswith("n") for e in out["evidence"])
    assert out["trace_id"] and out["worlds"]


def test_ask_many_questions_and_isolation(ingested: Path, tmp_path: Path) -> None:
    qs = tmp_path / "q.txt"
    qs.write_text(
        "What does checkout depend on?\nDoes antifraud depend on payments?\n\nWhat is billing?\n"
    )
    proc = run(
        "ask",
        "--data-dir",
        str(ingested),
        "--chat",
        "team",
        "--json",
        "--questions",
        str(qs),
        data=ingested,
    )
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(answers) == 3
    assert answers[0]["paths"][0][:2] == ["checkout", "payments"]
    assert answers[1]["answer"].startswith("No")
    assert answers[2]["paths"] == [] and "billing" in answers[2]["answer"]
    other = run(
        "ask",
        "--data-dir",
        str(ingested),
        "--chat",
        "other",
        "--json",
        "What does checkout depend on?",
        data=ingested,
    )
    assert json.loads(other.stdout)["facts"] == []


async def test_console_commands(core: Core) -> None:
    chat = "console:test"
    assert "Remembered" in await console_command(core, chat, "checkout depends on payments")
    assert "checkout depends on payments" in await console_command(
        core, chat, "what does checkout depend on?"
    )
    why = await console_command(core, chat, "/why")
    assert "Seeds: checkout" in why and "Cited facts: f_" in why
    assert "DEPENDS_ON" in await console_command(core, chat, "/facts checkout")
    assert "maturity" in await console_command(core, chat, "/worlds")
    assert "Unknown command" in await console_command(core, chat, "/frobnicate")
    assert "nothing called" in await console_command(core, chat, "/forget nosuch")
    assert "Forgot payments" in await console_command(core, chat, "/forget payments")
    assert "No facts" in await console_command(core, chat, "/facts")


async def test_console_remembers_a_fact_in_the_pipe_syntax_as_the_other_front_ends(
    core: Core,
) -> None:
    """`/remember a | kind | P | b | kind` stores the fact as written (the console had no
    /remember: the line was an unknown command, and typed without it a message with no fact);
    the ontology's refusal, a malformed line and a statement in words are answered as Telegram
    answers them."""
    chat = "console:remember"
    stored = await console_command(core, chat, "/remember Ann | person | WORKS_AT | Acme | company")
    assert "Remembered" in stored and "Acme" in stored, stored
    assert "WORKS_AT" in await console_command(core, chat, "/facts Ann")
    refused = await console_command(
        core, chat, "/remember Ann | person | FLIES_TO | Acme | company"
    )
    assert "FLIES_TO" in refused and "Remembered" not in refused, refused
    assert "Usage: /remember" in await console_command(core, chat, "/remember Ann | person")
    assert "Usage: /remember" in await console_command(core, chat, "/remember")
    said = await console_command(core, chat, "/remember checkout depends on payments")
    assert "Remembered" in said, said
    assert "DEPENDS_ON" in await console_command(core, chat, "/facts checkout")
    facts = await core.facts(chat)
    assert sorted(f.predicate for f in facts) == ["DEPENDS_ON", "WORKS_AT"]


async def test_worlds_lists_the_live_worlds_and_counts_the_merged_ones(core: Core) -> None:
    """A merged world is an alias of the one it joined: /worlds does not list it as a topic."""
    chat = "console:test"
    await console_command(core, chat, "checkout depends on payments")
    await console_command(core, chat, "my ball python Monty eats one mouse a week")
    infos = await core.worlds(chat)
    assert len(infos) == 2  # two topics, two worlds (worlds are on by default)
    a, b = (await core.pool.run(chat, lambda s: [s.worlds[w.id] for w in infos[:2]]))[:2]
    await core.pool.run(chat, lambda s: merge_pair(s, a, b, datetime.now(UTC)))
    shown = await console_command(core, chat, "/worlds")
    live = [w for w in await core.worlds(chat) if not w.merged_into]
    assert shown.count("• ") == len(live) == len(infos) - 1
    assert "(1 earlier world(s) merged into these)" in shown
