"""Issue 15: a name's kind is per world. In another world the same name with another kind is
another entity; inside one world a kind conflict waits in the review queue with its reason."""

from __future__ import annotations

from pathlib import Path

from bot.render import render_pending
from core.embedding import HashEmbedder
from core.models import TripleIn
from core.service import Core
from ontology import Ontology
from tests.conftest import build_core


async def test_kind_conflict_in_one_world_goes_to_review_with_its_reason(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = build_core(tmp_path / "d", HashEmbedder(), ontology, world_mode="single")
    chat = "tg:kinds"
    try:
        await core.remember(chat, author="a", text="The billing service uses Java")
        said = await core.remember(chat, author="a", text="Jakarta is located in Java")
        assert not said.stored
        assert not said.rejected  # not refused: waiting for a person
        assert len(said.pending) == 1
        waiting = (await core.pending(chat))[0]
        known = next(
            e["kind"] for e in (await core.export(chat))["entities"] if e["name"] == "Java"
        )
        assert known != "place"
        assert f"Java is a {known} in this world" in waiting.reason
        assert f"Java is a {known} in this world" in render_pending(waiting)
        assert waiting.triple.predicate == "LOCATED_IN"
    finally:
        await core.close()


async def test_same_name_with_another_kind_in_another_world_is_another_entity(
    world_core: Core,
) -> None:
    chat = "tg:kinds2"
    code = await world_core.remember(chat, author="a", text="The billing service uses Java")
    # a stated fact in another world (a second world exists: its first message was about travel)
    trip = await world_core.remember(
        chat, author="b", text="Next month we fly to Indonesia: Jakarta, Bali and the volcanoes"
    )
    assert trip.world != code.world
    stored = await world_core.remember_fact_from(
        chat,
        TripleIn(
            subject="Jakarta",
            subject_kind="place",
            predicate="LOCATED_IN",
            object="Java",
            object_kind="place",
            confidence=0.9,
        ),
        source=trip.message_id,
    )
    assert stored.stored and not stored.pending and not stored.rejected
    data = await world_core.export(chat)
    javas = {e["world"]: e["kind"] for e in data["entities"] if e["name"] == "Java"}
    assert set(javas) == {code.world, trip.world}
    assert javas[trip.world] == "place" and javas[code.world] != "place"


async def test_approving_a_kind_conflict_stores_it_as_the_names_other_meaning(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = build_core(tmp_path / "d", HashEmbedder(), ontology, world_mode="single")
    chat = "tg:kinds3"
    try:
        code = await core.remember(chat, author="a", text="The billing service uses Java")
        said = await core.remember(chat, author="a", text="Jakarta is located in Java")
        waiting = (await core.pending(chat))[0]
        assert "in this world" in waiting.reason

        fact = await core.review(chat, waiting.id, approve=True)
        assert fact is not None  # stored, not sent back to the queue
        assert fact.predicate == "LOCATED_IN"
        assert await core.pending(chat) == []
        data = await core.export(chat)
        javas = {e["world"]: e["kind"] for e in data["entities"] if e["name"] == "Java"}
        assert len(javas) == 2, javas  # two meanings, two entities, two worlds
        assert javas[code.world] != "place"
        island = next(w for w, k in javas.items() if k == "place")
        assert fact.world == island
        # the message went with its fact; the code fact stayed where it was
        world_of = {m["id"]: m["world"] for m in data["messages"]}
        assert world_of[said.message_id] == island
        assert world_of[code.message_id] == code.world
        facts = await core.facts(chat)
        uses = next(f for f in facts if f.predicate == "USES")
        assert uses.world == code.world
        assert {s for f in facts if f.world == island for s in f.sources} == {said.message_id}
    finally:
        await core.close()


async def test_a_kind_conflict_with_a_name_the_same_message_made_is_queued_not_refused(
    tmp_path: Path, ontology: Ontology
) -> None:
    """ "Java is an island, Jakarta is located on Java": the first clause makes Java a concept,
    the second needs a place. It was refused like a triple the ontology forbids; it waits for a
    person with its reason, as a clash with a name the world knew before does."""
    core = build_core(tmp_path / "d", HashEmbedder(), ontology, world_mode="single")
    chat = "tg:kinds4"
    try:
        said = await core.remember(
            chat, author="a", text="Java is an island in Indonesia, Jakarta is located on Java"
        )
        assert [(f.subject, f.predicate, f.object) for f in said.stored] == [
            ("Java", "IS_A", "island")
        ]
        assert not said.rejected
        [waiting] = await core.pending(chat)
        assert (waiting.triple.subject, waiting.triple.object) == ("Jakarta", "Java")
        assert "Java is a concept in this world" in waiting.reason
        assert "Jakarta is" not in waiting.reason  # made by the queued triple itself
    finally:
        await core.close()
