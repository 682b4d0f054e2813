"""Chats that share a shard database stay apart (issue 14): two chats in the same shard with the
same message ids, names, identifiers and topics never see, change or erase each other's data;
`/forget all` leaves no byte of a chat in its shard's files; a chat moves between shards whole.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from core.embedding import HashEmbedder
from core.models import TripleIn
from core.service import Core
from core.store.keys import node_key
from core.store.kuzu_store import ChatStore
from core.store.shard import ShardDb, chat_tag
from core.store.transfer import delete_chat, dump_chat, load_chat
from ontology import Ontology
from tests.conftest import hash_core, pool_of

A, B = "telegram:1001", "telegram:1002"


def make(data: Path, ontology: Ontology, shards: int = 1) -> Core:
    return hash_core(data, ontology, shards=shards)


def strings(value: Any) -> str:
    return repr(value)


async def say(core: Core, chat: str, lines: list[tuple[str, str]]) -> None:
    for message_id, text in lines:
        await core.remember(chat, author="ann", text=text, message_id=message_id)


# the same message ids, names, identifier and topics in both chats; each has one secret word
LINES_A = [
    ("1", "checkout depends on payments"),
    ("2", "Romashka LLC (INN 7701234560) belongs to Flower Group"),
    ("3", "payments depends on zanzibarquokka"),
]
LINES_B = [
    ("1", "checkout depends on ledger"),
    ("2", "Romashka LLC (INN 7701234560) belongs to Stone Group"),
    ("3", "ledger depends on marmaladeokapi"),
]


async def test_two_chats_of_one_shard_never_see_each_other(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make(tmp_path, ontology)
    assert pool_of(core).shard_index(A) == pool_of(core).shard_index(B)
    await say(core, A, LINES_A)
    await say(core, B, LINES_B)  # the same message ids: never taken for duplicates
    low = TripleIn(
        subject="crm",
        subject_kind="service",
        predicate="USES",
        object="zanzibarquokka",
        object_kind="service",
        confidence=0.4,
    )
    await core.remember_triple(A, low)
    answer_a = await core.ask(A, "What does payments depend on?")
    assert "zanzibarquokka" in answer_a.answer

    async def seen_by_b() -> str:
        answer = await core.ask(B, "What does payments depend on? Who owns Romashka?")
        why = await core.why(B)
        return strings(
            [
                await core.facts(B, history=True),
                await core.export(B),
                await core.pending(B),
                await core.worlds(B),
                answer,
                why,
                await core.stats(B),
            ]
        )

    text = await seen_by_b()
    assert "zanzibarquokka" not in text and "Flower Group" not in text
    assert "marmaladeokapi" in text and "Stone Group" in text
    assert (await core.stats(B))["messages"] == 3
    assert await core.why(B, answer_a.trace_id) is None  # A's trace id, asked through B

    # maintenance through B: merges, regroups, decays, removes, edits, forgets only B
    before_a = await core.export(A)
    await core.merge_worlds(B)
    await core.regroup_worlds(B)
    await core.decay(B, half_life=timedelta(seconds=1), floor=0.99)
    await core.remove_dead_worlds(B, idle=timedelta(0))
    await core.correct(B, message_id="1", author="ann", text="checkout depends on billing")
    await core.forget_entity(B, "Romashka")
    await core.forget_entity(B, "checkout")
    after_a = await core.export(A)
    assert {k: v for k, v in after_a.items() if k != "exported_at"} == {
        k: v for k, v in before_a.items() if k != "exported_at"
    }

    # and from disk, indexes rebuilt: the same
    await core.close()
    core = make(tmp_path, ontology)
    reloaded = await core.export(A)
    assert reloaded["messages"] == before_a["messages"]
    assert reloaded["facts"] == before_a["facts"]
    text = await seen_by_b()
    assert "zanzibarquokka" not in text and "Flower Group" not in text
    await core.close()


async def test_forget_all_leaves_no_byte_of_the_chat_in_its_shard(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make(tmp_path, ontology)
    await say(core, A, LINES_A)
    await say(core, B, LINES_B)
    await core.ask(A, "What does payments depend on?")
    shard_dir = pool_of(core).path(A)
    await pool_of(core).release(A)  # the data in the shard file, not only the WAL

    def raw() -> bytes:
        return b"".join(p.read_bytes() for p in shard_dir.rglob("*") if p.is_file())

    assert b"zanzibarquokka" in raw()
    await core.forget_chat(A)
    assert b"zanzibarquokka" not in raw()
    assert b"Flower Group" not in raw()
    assert A not in core.chats()
    assert (await core.export(A))["messages"] == []  # a new, empty chat
    b_facts = {f.sentence() for f in await core.facts(B)}
    assert "ledger DEPENDS_ON marmaladeokapi" in b_facts  # the other chat is whole
    await core.close()
    core = make(tmp_path, ontology)
    assert {f.sentence() for f in await core.facts(B)} == b_facts
    await core.close()


async def test_a_chat_moves_between_shards_whole(tmp_path: Path, ontology: Ontology) -> None:
    core = make(tmp_path / "data", ontology)
    await say(core, A, LINES_A)
    await say(core, B, LINES_B)
    await core.ask(A, "What does payments depend on?")
    before = await core.export(A)
    await core.close()
    source = ShardDb(tmp_path / "data" / "shards" / "shard-000", buffer_pool_bytes=64 << 20)
    other = ShardDb(tmp_path / "other", buffer_pool_bytes=64 << 20)
    load_chat(other, dump_chat(source, chat_tag(A)))
    delete_chat(source, chat_tag(A))
    assert dump_chat(source, chat_tag(A)) == {t: [] for t in dump_chat(source, chat_tag(A))}
    assert dump_chat(source, chat_tag(B))["Message"]  # B stays
    source.close()
    emb = HashEmbedder()
    moved = ChatStore(other.path, dim=emb.dim, model_name=emb.model_name, shard=other, chat=A)
    exported = moved.export()
    assert exported["messages"] == before["messages"]
    assert exported["facts"] == before["facts"]
    assert exported["worlds"] == before["worlds"]
    assert moved.last_trace_id is not None
    other.close()


async def test_a_key_collision_fails_the_write_and_leaves_the_other_chat_alone(
    tmp_path: Path, ontology: Ontology
) -> None:
    """Node keys are 64-bit hashes of `<chat tag>:<id>` (core/store/keys.py). Should one of B's
    keys ever equal one of A's, B's upsert must fail, never rewrite A's row: the chat is part
    of every MERGE pattern. The collision is made by giving A's world record B's key."""
    core = make(tmp_path, ontology)
    await say(core, A, LINES_A[:1])
    await say(core, B, LINES_B[:1])
    world_b = await core.pool.run(B, lambda s: next(iter(s.worlds)))

    def steal(store: ChatStore) -> None:  # A's row now holds the key B's world record uses
        key_b = node_key(f"{chat_tag(B)}:world:{world_b}")
        store.shard.execute("MATCH (r:Record) WHERE r.uid = $b DELETE r", {"b": key_b})
        store.shard.execute(
            "CREATE (:Record {uid: $b, chat: $chat, kind: 'note', key: 'mine', body: 'A only'})",
            {"b": key_b, "chat": store.tag},
        )

    await core.pool.run(A, steal)
    with pytest.raises(RuntimeError):
        await core.pool.run(B, lambda s: s.upsert_world(s.worlds[world_b]))
    rows = await core.pool.run(
        A,
        lambda s: s._rows(
            "MATCH (r:Record) WHERE r.chat = $chat AND r.kind = 'note' RETURN r.body"
        ),
    )
    assert rows == [["A only"]]
    await core.close()
