"""Edits and odd characters through the durable path (issue 12): an edit supersedes what
only the old text said and is searched by its new words; invisible characters and lone
surrogates are harmless from the log to the tokenizer."""

from __future__ import annotations

from pathlib import Path

from core.service import Core
from ontology import Ontology
from tests.core.durable_core import CHAT, make_core, sentences


async def test_an_edit_supersedes_what_only_the_old_text_said(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="Acme belongs to Globex", message_id="5")
    await core.remember(CHAT, author="bob", text="checkout depends on payments", message_id="6")
    await core.remember(CHAT, author="ann", text="checkout depends on payments", message_id="7")
    fixed = await core.correct(CHAT, message_id="5", author="ann", text="Acme belongs to Initech")
    assert len(fixed.superseded) == 1
    await core.correct(CHAT, message_id="7", author="ann", text="nothing to see here")
    history = await core.facts(CHAT, history=True)
    assert sentences(history) == {
        ("Acme BELONGS_TO Globex", "superseded"),  # closed, not erased
        ("Acme BELONGS_TO Initech", "active"),
        ("checkout DEPENDS_ON payments", "active"),  # message 6 still says it
    }
    checkout = next(f for f in history if f.predicate == "DEPENDS_ON")
    assert checkout.sources == ["6"]
    exported = await core.export(CHAT)
    texts = {m["id"]: m["text"] for m in exported["messages"]}
    assert texts["5"] == "Acme belongs to Initech"
    assert [r.text for r in core.inbound.records(CHAT) if r.id == "5"] == [  # type: ignore[union-attr]
        "Acme belongs to Initech"
    ]
    await core.close()
    # and a rebuild from the record gives the corrected chat
    core = make_core(tmp_path, ontology)
    chat_dir = core.pool.path(CHAT)
    (chat_dir / "graph.kz").write_bytes(b"junk" * 4000)
    active = {f.sentence() for f in await core.facts(CHAT)}
    assert active == {"Acme BELONGS_TO Initech", "checkout DEPENDS_ON payments"}
    await core.close()


async def test_an_edit_is_searched_by_its_new_words_and_vectors_stay_with_their_messages(
    tmp_path: Path, ontology: Ontology
) -> None:
    """After an edit the keyword index and the message -> vector map are what a reload gives:
    the edited-away word finds nothing, and every later message keeps its own vector (the
    edit used to remove and re-append the vector row, shifting the rows after it)."""
    core = make_core(tmp_path, ontology)
    lines = ["zanzibar invoice is late", "the quokka report is ready", "payments moved to Lisbon"]
    for i, text in enumerate(lines):
        await core.remember(CHAT, author="ann", text=text, message_id=str(i))
    await core.ask(CHAT, "where did payments move?")  # builds the cached message -> vector map
    await core.correct(CHAT, message_id="0", author="ann", text="the walrus invoice is late")

    def view(store) -> tuple[list[str], list[str], list[str], list[str]]:  # type: ignore[no-untyped-def]
        index = store.recall
        rows = index.vector_rows(store.message_vectors)
        owners = [store.message_vectors.ids[r] for r in rows]
        found = [index.ids[r] for w in ("zanzibar", "walrus") for r in index.bm25(w, 5)]
        return index.ids, owners, found, list(index.texts)

    live = await core.pool.run(CHAT, view)
    ids, owners, found, texts = live
    assert owners == ids  # each message's row is its own vector
    assert found == ["0"]  # by "walrus" only
    assert texts[0] == "the walrus invoice is late"
    await core.pool.close()
    assert await core.pool.run(CHAT, view) == live  # and a reload from disk agrees
    await core.close()


async def test_invisible_characters_and_lone_surrogates_are_harmless(
    tmp_path: Path, ontology: Ontology
) -> None:
    core = make_core(tmp_path, ontology)
    await core.remember(CHAT, author="ann", text="check\u200bout depends on pay\u202ements")
    await core.remember(CHAT, author="ann", text="checkout depends on \ufeffantifraud\x07")
    await core.remember(CHAT, author="ann", text="broken \ud800 surrogate depends on x")
    names = {f.subject for f in await core.facts(CHAT)} | {f.object for f in await core.facts(CHAT)}
    assert {"checkout", "payments", "antifraud"} <= names
    assert len(await core.facts(CHAT, "checkout")) == 2  # one entity, not two
    answer = await core.ask(CHAT, "what does check\u200bout depend on \udfff?")
    assert answer.answer
    await core.close()


async def test_a_lone_surrogate_reaches_the_real_tokenizer_harmlessly(real_core: Core) -> None:
    # the model's tokenizer raises TypeError on a lone surrogate; the core's entrance mends it
    await real_core.remember(CHAT, author="\udfffann", text="checkout \ud800 depends on payments")
    answer = await real_core.ask(CHAT, "what does checkout depend on\udfff?")
    assert "payments" in answer.answer
