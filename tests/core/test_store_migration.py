"""A chat written by schema 1 (meta, worlds, review queue and traces in four tables of their
own), in its own database as older versions kept it, is moved into its shard on the next start
with everything in place; the original directory is set aside, never deleted."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import kuzu

from core.embedding import HashEmbedder
from core.service import Core
from core.store.pool import StorePool
from ontology import Ontology
from tests.conftest import build_core

V1_SCHEMA = [
    "CREATE NODE TABLE Meta(key STRING PRIMARY KEY, value STRING)",
    """CREATE NODE TABLE Message(id STRING PRIMARY KEY, seq INT64, author STRING,
        text STRING, ts TIMESTAMP, world STRING, extraction STRING, emb FLOAT[])""",
    """CREATE NODE TABLE World(id STRING PRIMARY KEY, topic STRING,
        centroid FLOAT[], access_count INT64, created_at TIMESTAMP, last_active TIMESTAMP,
        merged_into STRING)""",
    """CREATE NODE TABLE Entity(id STRING PRIMARY KEY, kind STRING, name STRING,
        key STRING, aliases STRING[], world STRING, ident STRING, emb FLOAT[],
        created_at TIMESTAMP)""",
    """CREATE REL TABLE FACT(FROM Entity TO Entity, id STRING, predicate STRING,
        confidence DOUBLE, status STRING, valid_from TIMESTAMP, valid_to TIMESTAMP,
        confirmed_at TIMESTAMP, sources STRING[], world STRING)""",
    "CREATE REL TABLE MENTIONS(FROM Message TO Entity)",
    """CREATE NODE TABLE Pending(id STRING PRIMARY KEY, triple STRING,
        sources STRING[], created_at TIMESTAMP)""",
    "CREATE NODE TABLE Trace(id STRING PRIMARY KEY, created_at TIMESTAMP, body STRING)",
]


def write_v1_chat(path: Path, embedder: HashEmbedder) -> None:
    path.mkdir(parents=True)
    db = kuzu.Database(str(path / "graph.kz"), buffer_pool_size=64 << 20, max_db_size=1 << 32)
    conn = kuzu.Connection(db)
    for stmt in V1_SCHEMA:
        conn.execute(stmt)
    ts = datetime(2026, 5, 1, 12, 0)
    for key, value in (("schema", "1"), ("model", embedder.model_name), ("dim", str(embedder.dim))):
        conn.execute("CREATE (:Meta {key: $k, value: $v})", {"k": key, "v": value})
    centroid = embedder.embed(["checkout depends on payments"])[0].tolist()
    conn.execute(
        "CREATE (:World {id: 'w0000001', topic: 'services', centroid: $c, access_count: 3, "
        "created_at: $ts, last_active: $ts, merged_into: ''})",
        {"c": centroid, "ts": ts},
    )
    conn.execute(
        "CREATE (:Message {id: 'm1', seq: 1, author: 'ann', text: 'checkout depends on payments', "
        "ts: $ts, world: 'w0000001', extraction: 'done', emb: $c})",
        {"ts": ts, "c": centroid},
    )
    for eid, name in (("e_checkout", "checkout"), ("e_payments", "payments")):
        conn.execute(
            "CREATE (:Entity {id: $id, kind: 'service', name: $n, key: $n, aliases: [], "
            "world: 'w0000001', ident: '', emb: $c, created_at: $ts})",
            {"id": eid, "n": name, "c": embedder.embed([name])[0].tolist(), "ts": ts},
        )
        conn.execute(
            "MATCH (m:Message {id: 'm1'}), (e:Entity {id: $id}) CREATE (m)-[:MENTIONS]->(e)",
            {"id": eid},
        )
    conn.execute(
        "MATCH (a:Entity {id: 'e_checkout'}), (b:Entity {id: 'e_payments'}) "
        "CREATE (a)-[:FACT {id: 'f1', predicate: 'DEPENDS_ON', confidence: 1.0, "
        "status: 'active', valid_from: $ts, sources: ['m1'], world: 'w0000001'}]->(b)",
        {"ts": ts},
    )
    triple = {
        "subject": "crm",
        "subject_kind": "service",
        "predicate": "USES",
        "object": "postgres",
        "object_kind": "service",
        "confidence": 0.5,
    }
    conn.execute(
        "CREATE (:Pending {id: 'p_1', triple: $t, sources: ['m1'], created_at: $ts})",
        {"t": json.dumps(triple), "ts": ts},
    )
    conn.execute(
        "CREATE (:Trace {id: 't_old', created_at: $ts, body: 'the old trace'})", {"ts": ts}
    )
    conn.close()
    db.close()


async def test_schema_1_chat_is_migrated_without_loss(tmp_path: Path, ontology: Ontology) -> None:
    embedder = HashEmbedder()
    probe = StorePool(tmp_path, dim=embedder.dim, model_name=embedder.model_name)
    legacy = probe.legacy_path("c")
    write_v1_chat(legacy, embedder)
    (legacy / "chat.json").write_text(json.dumps({"chat": "c"}))

    core = build_core(tmp_path, embedder, ontology)
    facts = await core.facts("c")
    assert [(f.subject, f.predicate, f.object, f.sources) for f in facts] == [
        ("checkout", "DEPENDS_ON", "payments", ["m1"])
    ]
    worlds = await core.worlds("c")
    assert [(w.id, w.topic) for w in worlds] == [("w0000001", "services")]
    pending = await core.pending("c")
    assert [(p.id, p.triple.subject, p.sources) for p in pending] == [("p_1", "crm", ["m1"])]
    assert await core.pool.run("c", lambda s: s.trace("t_old")) == "the old trace"
    assert await core.pool.run("c", lambda s: s.last_trace_id) == "t_old"
    answer = await core.ask("c", "What does checkout depend on?")
    assert answer.paths == [["checkout", "payments"]]
    assert core.pool.chats() == ["c"]
    await core.close()
    assert not legacy.exists()
    [kept] = [p for p in legacy.parent.iterdir() if p.name.startswith(legacy.name + ".migrated-")]
    assert (kept / "graph.kz").exists()  # set aside, never deleted

    # reopened: the shard schema only, nothing migrated twice, new writes land in Record
    again = build_core(tmp_path, embedder, ontology)
    tables = await again.pool.run(
        "c", lambda s: sorted(r[0] for r in s._rows("CALL show_tables() RETURN name"))
    )
    assert tables == ["Entity", "FACT", "MENTIONS", "Message", "Record"]
    assert len(await again.pending("c")) == 1 and len(await again.worlds("c")) == 1
    assert await again.pool.run("c", lambda s: s.trace(answer.trace_id)) is not None
    await again.close()


V2_RECORD = """CREATE NODE TABLE Record(id STRING PRIMARY KEY, kind STRING, key STRING,
    created_at TIMESTAMP, body STRING, sources STRING[], topic STRING, centroid FLOAT[],
    access_count INT64, last_active TIMESTAMP, merged_into STRING)"""


def write_v2_chat(path: Path, embedder: HashEmbedder, obj: str) -> None:
    """A chat as the last per-chat version wrote it: schema 2, four of the tables plus Record."""
    path.mkdir(parents=True)
    db = kuzu.Database(str(path / "graph.kz"), buffer_pool_size=64 << 20, max_db_size=1 << 32)
    conn = kuzu.Connection(db)
    for stmt in [s for s in V1_SCHEMA if "Message(" in s or "Entity(" in s or "REL" in s]:
        conn.execute(stmt)
    conn.execute(V2_RECORD)
    ts = datetime(2026, 5, 1, 12, 0)
    for key, value in (("schema", "2"), ("model", embedder.model_name), ("dim", str(embedder.dim))):
        conn.execute(
            "CREATE (:Record {id: $id, kind: 'meta', key: $k, body: $v})",
            {"id": f"meta:{key}", "k": key, "v": value},
        )
    centroid = embedder.embed([f"checkout depends on {obj}"])[0].tolist()
    conn.execute(
        "CREATE (:Record {id: 'world:w0000001', kind: 'world', key: 'w0000001', topic: 'services',"
        " centroid: $c, access_count: 1, created_at: $ts, last_active: $ts, merged_into: ''})",
        {"c": centroid, "ts": ts},
    )
    conn.execute(
        "CREATE (:Message {id: '1', seq: 1, author: 'ann', text: $t, ts: $ts, "
        "world: 'w0000001', extraction: 'done', emb: $c})",
        {"t": f"checkout depends on {obj}", "ts": ts, "c": centroid},
    )
    for eid, name in (("e_checkout", "checkout"), (f"e_{obj}", obj)):
        conn.execute(
            "CREATE (:Entity {id: $id, kind: 'service', name: $n, key: $n, aliases: [], "
            "world: 'w0000001', ident: '', emb: $c, created_at: $ts})",
            {"id": eid, "n": name, "c": embedder.embed([name])[0].tolist(), "ts": ts},
        )
        conn.execute(
            "MATCH (m:Message {id: '1'}), (e:Entity {id: $id}) CREATE (m)-[:MENTIONS]->(e)",
            {"id": eid},
        )
    conn.execute(
        "MATCH (a:Entity {id: 'e_checkout'}), (b:Entity {id: $b}) "
        "CREATE (a)-[:FACT {id: 'f1', predicate: 'DEPENDS_ON', confidence: 1.0, "
        "status: 'active', valid_from: $ts, sources: ['1'], world: 'w0000001'}]->(b)",
        {"ts": ts, "b": f"e_{obj}"},
    )
    conn.close()
    db.close()


async def test_per_chat_databases_move_into_one_shard_and_stay_apart(
    tmp_path: Path, ontology: Ontology
) -> None:
    """Two chats of the last per-chat version, with the same message, fact, entity and world
    ids, land in the same shard; each keeps only its own."""
    embedder = HashEmbedder()
    probe = StorePool(tmp_path, dim=embedder.dim, model_name=embedder.model_name, shards=1)
    for chat, obj in (("a", "payments"), ("b", "ledger")):
        write_v2_chat(probe.legacy_path(chat), embedder, obj)
        (probe.legacy_path(chat) / "chat.json").write_text(json.dumps({"chat": chat}))
    pool = StorePool(tmp_path, dim=embedder.dim, model_name=embedder.model_name, shards=1)
    assert pool.chats() == ["a", "b"]
    core = Core(pool=pool, embedder=embedder, ontology=ontology)
    for chat, obj in (("a", "payments"), ("b", "ledger")):
        facts = await core.facts(chat)
        assert [(f.subject, f.object, f.sources) for f in facts] == [("checkout", obj, ["1"])]
        answer = await core.ask(chat, "What does checkout depend on?")
        assert answer.paths == [["checkout", obj]]
        assert [w.id for w in await core.worlds(chat)] == ["w0000001"]
    await core.close()
    kept = sorted(p.name.split(".")[1][:8] for p in (tmp_path / "chats").iterdir())
    assert kept == ["migrated", "migrated"]  # both set aside, never deleted
