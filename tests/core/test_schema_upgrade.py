"""A shard of schema 3 (`<tag>:<id>` STRING keys, FLOAT[] vectors), as the version before
schema 4 wrote it, is rebuilt at open in schema 4 (INT64 keys, int8 vectors) with everything
of every chat in place and the chats still apart; the schema-3 file is kept beside it."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import kuzu
import numpy as np

from core.embedding import HashEmbedder
from core.service import Core
from core.store.keys import SEED_KEY
from core.store.pool import StorePool
from core.store.shard import SCHEMA_VERSION, chat_tag
from ontology import Ontology

# the schema of core/store/shard.py before schema 4, as it was
SCHEMA_3 = [
    """CREATE NODE TABLE Message(uid STRING PRIMARY KEY, chat STRING, id STRING,
        seq INT64, author STRING, text STRING, ts TIMESTAMP, world STRING, extraction STRING,
        emb FLOAT[])""",
    """CREATE NODE TABLE Entity(uid STRING PRIMARY KEY, chat STRING, id STRING,
        kind STRING, name STRING, key STRING, aliases STRING[], world STRING, ident STRING,
        emb FLOAT[], created_at TIMESTAMP)""",
    """CREATE REL TABLE FACT(FROM Entity TO Entity, chat STRING, id STRING,
        predicate STRING, confidence DOUBLE, status STRING, valid_from TIMESTAMP,
        valid_to TIMESTAMP, confirmed_at TIMESTAMP, sources STRING[], world STRING)""",
    "CREATE REL TABLE MENTIONS(FROM Message TO Entity, chat STRING)",
    """CREATE NODE TABLE Record(uid STRING PRIMARY KEY, chat STRING, kind STRING,
        key STRING, created_at TIMESTAMP, body STRING, sources STRING[], topic STRING,
        centroid FLOAT[], access_count INT64, last_active TIMESTAMP, merged_into STRING)""",
]
TS = datetime(2026, 11, 1, 12, 0)


def write_schema3_chat(conn: kuzu.Connection, chat: str, obj: str, emb: HashEmbedder) -> None:
    """One chat's rows written with the statements of schema 3 (chat-scoped string keys)."""
    tag = chat_tag(chat)
    text = f"checkout depends on {obj}"
    vec = emb.embed([text])[0].tolist()
    for key, value in (("schema", "3"), ("model", emb.model_name), ("dim", str(emb.dim))):
        conn.execute(
            "MERGE (r:Record {uid: $rid}) SET r.chat = $chat, r.kind = 'meta', r.key = $k, "
            "r.body = $v",
            {"rid": f"{tag}:meta:{key}", "chat": tag, "k": key, "v": value},
        )
    conn.execute(
        "MERGE (w:Record {uid: $rid}) SET w.chat = $chat, w.kind = 'world', w.key = 'w0000001', "
        "w.topic = 'services', w.centroid = $c, w.access_count = 2, w.created_at = $ts, "
        "w.last_active = $ts, w.merged_into = ''",
        {"rid": f"{tag}:world:w0000001", "chat": tag, "c": vec, "ts": TS},
    )
    conn.execute(
        "CREATE (:Message {uid: $uid, chat: $chat, id: 'm1', seq: 1, author: 'ann', text: $t, "
        "ts: $ts, world: 'w0000001', extraction: 'done', emb: $e})",
        {"uid": f"{tag}:m1", "chat": tag, "t": text, "ts": TS, "e": vec},
    )
    for eid, name in (("e_checkout", "checkout"), ("e_target", obj)):
        conn.execute(
            "CREATE (:Entity {uid: $u, chat: $chat, id: $id, kind: 'service', name: $n, "
            "key: $n, aliases: [], world: 'w0000001', ident: '', emb: $e, created_at: $ts})",
            {"u": f"{tag}:{eid}", "chat": tag, "id": eid, "n": name, "ts": TS,
             "e": emb.embed([name])[0].tolist()},
        )  # fmt: skip
        conn.execute(
            "MATCH (m:Message {uid: $m}), (e:Entity {uid: $e}) "
            "MERGE (m)-[:MENTIONS {chat: $chat}]->(e)",
            {"m": f"{tag}:m1", "e": f"{tag}:{eid}", "chat": tag},
        )
    conn.execute(
        "MATCH (a:Entity {uid: $s}), (b:Entity {uid: $o}) CREATE (a)-[:FACT {chat: $chat, "
        "id: 'f1', predicate: 'DEPENDS_ON', confidence: 1.0, status: 'active', valid_from: $ts, "
        "confirmed_at: $ts, sources: ['m1'], world: 'w0000001'}]->(b)",
        {"s": f"{tag}:e_checkout", "o": f"{tag}:e_target", "chat": tag, "ts": TS},
    )
    triple = {"subject": "crm", "subject_kind": "service", "predicate": "USES",
              "object": obj, "object_kind": "service", "confidence": 0.5}  # fmt: skip
    conn.execute(
        "CREATE (:Record {uid: $rid, chat: $chat, kind: 'pending', key: 'p_1', body: $t, "
        "sources: ['m1'], created_at: $ts, topic: 'low confidence'})",
        {"rid": f"{tag}:pending:p_1", "chat": tag, "t": json.dumps(triple), "ts": TS},
    )
    conn.execute(
        "CREATE (:Record {uid: $rid, chat: $chat, kind: 'trace', key: 't_old', created_at: $ts, "
        "body: $b})",
        {"rid": f"{tag}:trace:t_old", "chat": tag, "ts": TS, "b": f"trace of {chat}"},
    )


def write_schema3_shard(root: Path, chats: dict[str, str], emb: HashEmbedder) -> Path:
    shard = root / "shards" / "shard-000"
    shard.mkdir(parents=True)
    (root / "shards" / "layout.json").write_text(json.dumps({"shards": 1}))
    (shard / "chats.json").write_text(json.dumps({"chats": list(chats)}))
    db = kuzu.Database(str(shard / "graph.kz"), buffer_pool_size=64 << 20, max_db_size=1 << 32)
    conn = kuzu.Connection(db)
    for stmt in SCHEMA_3:
        conn.execute(stmt)
    for node in ("Message", "Entity"):  # the seed rows schema 3 wrote (ShardDb._seed)
        conn.execute(f"MERGE (x:{node} {{uid: '_seed'}}) SET x.chat = '_seed'")
    for chat, obj in chats.items():
        write_schema3_chat(conn, chat, obj, emb)
    conn.close()
    db.close()
    return shard


async def test_a_schema_3_shard_is_upgraded_at_open_and_reads_the_same(
    tmp_path: Path, ontology: Ontology
) -> None:
    emb = HashEmbedder()
    chats = {"telegram:1": "payments", "telegram:2": "ledger"}  # same ids in both chats
    shard = write_schema3_shard(tmp_path, chats, emb)
    pool = StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=1)
    core = Core(pool=pool, embedder=emb, ontology=ontology)
    for chat, obj in chats.items():
        facts = await core.facts(chat)
        assert [(f.id, f.subject, f.object, f.sources) for f in facts] == [
            ("f1", "checkout", obj, ["m1"])
        ]
        assert [(w.id, w.topic) for w in await core.worlds(chat)] == [("w0000001", "services")]
        assert [(p.id, p.triple.object) for p in await core.pending(chat)] == [("p_1", obj)]
        assert await pool.run(chat, lambda s: s.trace("t_old")) == f"trace of {chat}"
        exported = await core.export(chat)
        assert [m["text"] for m in exported["messages"]] == [f"checkout depends on {obj}"]
        assert sorted(e["name"] for e in exported["entities"]) == sorted(["checkout", obj])
        # the vectors came through, as int8: cosine with the original >= 0.999
        stored = await pool.run(chat, lambda s: s.message_vectors.vector("m1"))
        assert stored is not None
        assert float(stored @ emb.embed([f"checkout depends on {obj}"])[0]) >= 0.999
        assert await pool.run(chat, lambda s: s.unembedded) == {}
        answer = await core.ask(chat, "What does checkout depend on?")
        assert answer.paths == [["checkout", obj]]
    await core.remember("telegram:1", author="bob", text="billing depends on ledger")
    await core.close()

    [kept] = list(shard.glob("schema3-*.kz"))  # the schema-3 file, set aside
    assert kept.stat().st_size > 0
    assert not (shard / "compact.tmp").exists()
    db = kuzu.Database(str(shard / "graph.kz"), read_only=True)
    conn = kuzu.Connection(db)
    info = conn.execute("CALL table_info('Message') RETURN name, type")
    assert not isinstance(info, list)
    assert dict(info.get_all())["uid"] == "INT64"
    seeds = conn.execute("MATCH (m:Message) WHERE m.chat = '_seed' RETURN m.uid")
    assert not isinstance(seeds, list)
    assert seeds.get_all() == [[SEED_KEY]]
    schema = conn.execute(
        "MATCH (r:Record) WHERE r.kind = 'meta' AND r.key = 'schema' RETURN DISTINCT r.body"
    )
    assert not isinstance(schema, list)
    assert schema.get_all() == [[SCHEMA_VERSION]]
    conn.close()
    db.close()

    # opened again: nothing upgraded twice, the new message there, the chats still apart
    again = Core(
        pool=StorePool(tmp_path, dim=emb.dim, model_name=emb.model_name, shards=1),
        embedder=emb,
        ontology=ontology,
    )
    one = [(f.subject, f.object) for f in await again.facts("telegram:1")]
    assert sorted(one) == [("billing", "ledger"), ("checkout", "payments")]
    two = [(f.subject, f.object) for f in await again.facts("telegram:2")]
    assert two == [("checkout", "ledger")]
    await again.close()
    assert len(list(shard.glob("schema3-*.kz"))) == 1


def test_packed_vectors_keep_cosines_within_a_thousandth() -> None:
    from core.store.packed import pack_many, pack_vector, unpack_vector

    rng = np.random.default_rng(3)
    vecs = rng.normal(size=(200, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    packed = [pack_vector(v) for v in vecs]
    assert packed == pack_many(vecs)
    assert all(len(p) == 512 for p in packed)  # 384 int8 codes in base64
    back = np.stack([unpack_vector(p, 384) for p in packed])  # type: ignore[misc]
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(back * vecs, axis=1))) >= 0.9999
    exact, approx = vecs @ vecs[:20].T, back @ vecs[:20].T
    assert float(np.max(np.abs(exact - approx))) < 0.002
    assert unpack_vector(packed[0], 512) is None  # another model's dimension
    assert pack_vector(np.zeros(384, np.float32)) == "" and unpack_vector("", 384) is None
