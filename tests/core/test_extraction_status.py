"""Extraction statuses are a StrEnum in the domain; the store keeps the plain strings it
always kept, so databases written before the enum read the same."""

from __future__ import annotations

from core.ports import GraphStore
from core.rows import Extraction
from core.service import Core


async def test_the_store_writes_and_finds_the_plain_strings(core: Core) -> None:
    result = await core.remember("c", author="ana", text="checkout depends on payments")

    def read(store: GraphStore) -> tuple[str, list[str]]:
        row = store.messages([result.message_id])[0]
        store.set_extraction(result.message_id, Extraction.FAILED)
        failed = store.messages_with_extraction("failed")  # a plain string, as older code asked
        return row.extraction, [m.id for m in failed]

    stored, failed = await core.pool.run("c", read)
    assert stored == "offline"
    assert failed == [result.message_id]

    await core.pool.discard("c")  # read back from Kùzu, not from the in-memory row
    again = await core.pool.run("c", lambda s: s.messages([result.message_id])[0].extraction)
    assert again == "failed"
    assert type(again) is str
