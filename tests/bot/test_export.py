"""`python -m bot export` and `ingest` of its output (issue 12): the round trip restores the
chat; a chat that cannot be read exits non-zero with a clear message."""

from __future__ import annotations

import io
import json
from pathlib import Path

from bot.cli import ingest_file
from bot.export import export_chat
from core.embedding import HashEmbedder
from core.models import IncomingMessage, TripleIn
from core.service import Core, CoreConfig
from core.store.pool import StorePool
from ontology import Ontology
from tests.bot.test_cli import run

CHAT = "telegram:-1001"


def make_core(data: Path, ontology: Ontology) -> Core:
    emb = HashEmbedder()
    pool = StorePool(data, dim=emb.dim, model_name=emb.model_name)
    return Core(pool=pool, embedder=emb, ontology=ontology, config=CoreConfig())


def without_worlds(lines: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in x.items() if k != "world"} for x in lines]


async def test_export_then_ingest_restores_the_chat(tmp_path: Path, ontology: Ontology) -> None:
    core = make_core(tmp_path / "a", ontology)
    for i, text in enumerate(
        [
            "checkout depends on payments",
            "ok vou ver",
            "Acme belongs to Globex",
            "Acme belongs to Initech",  # supersedes: history must survive the trip
            "платежи зависят от антифрода",
        ]
    ):
        # "ok vou ver" answers the first message (a Telegram reply): the link makes the trip
        reply_to = "m0" if i == 1 else None
        said = IncomingMessage(author="Ana", text=text, message_id=f"m{i}", reply_to=reply_to)
        await core.remember_message(CHAT, said)
    triple = TripleIn(
        subject="Bob",
        subject_kind="person",
        predicate="DECIDES_FOR",
        object="Acme",
        object_kind="company",
        confidence=0.9,
    )
    await core.remember_triple(CHAT, triple, message_id="m9")
    await core.correct(CHAT, message_id="m0", author="Ana", text="checkout depends on billing")
    out = io.StringIO()
    await export_chat(core, CHAT, out)
    await core.close()
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert {tuple(sorted(x)) for x in lines} == {
        ("author", "id", "text", "ts", "world"),
        ("author", "id", "reply_to", "text", "ts", "world"),
        (
            "confidence",
            "object",
            "object_kind",
            "predicate",
            "sources",
            "status",
            "subject",
            "subject_kind",
            "valid_from",
            "valid_to",
        ),
    }
    statuses = sorted(x["status"] for x in lines if "predicate" in x)
    assert statuses.count("superseded") == 2  # Globex, and checkout -> payments after the edit

    exported = tmp_path / "chat.jsonl"
    exported.write_text(out.getvalue(), encoding="utf-8")
    restored = make_core(tmp_path / "b", ontology)
    err = io.StringIO()
    counts = await ingest_file(restored, CHAT, exported, err=err)
    assert err.getvalue() == ""
    assert counts["messages"] == 6
    again = await ingest_file(restored, CHAT, exported, err=err)  # twice: nothing doubles
    assert again["messages"] == again["facts"] == 0
    out2 = io.StringIO()
    await export_chat(restored, CHAT, out2)
    await restored.close()
    assert without_worlds([json.loads(x) for x in out2.getvalue().splitlines()]) == (
        without_worlds(lines)
    )


def test_export_of_a_chat_that_cannot_be_read_fails_clearly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"id": "1", "author": "a", "text": "x depends on y"}) + "\n")
    assert (
        run("ingest", "--data-dir", str(data), "--chat", "c:1", str(lines), data=data).returncode
        == 0
    )
    missing = run("export", "--data-dir", str(data), "--chat", "c:2", data=data)
    assert missing.returncode == 2
    assert "no chat 'c:2'" in missing.stderr
    # broken, and older than any record of it: nothing to rebuild from
    (data / "inbound.sqlite3").unlink()
    for name in ("inbound.sqlite3-wal", "inbound.sqlite3-shm"):
        (data / name).unlink(missing_ok=True)
    [chat_dir] = [p for p in (data / "shards").iterdir() if p.is_dir()]  # the chat's shard
    (chat_dir / "graph.kz").write_bytes(b"\0garbage" * 2000)
    broken = run("export", "--data-dir", str(data), "--chat", "c:1", data=data)
    assert broken.returncode == 1
    assert "cannot be read" in broken.stderr
    assert broken.stdout == ""
