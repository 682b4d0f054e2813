"""The offline extractor on token soup: chat is typed fast ("Ann,, reports to Bob", ", and"),
and a raise here lost the message (IndexError twice in 2026-12: an empty list part, a doubled
comma before the verb). Deterministic: the same inputs every run."""

from __future__ import annotations

import random

from core.extract import OfflineExtractor
from core.language import key_tokens, nominative
from ontology import load_ontology

ONTO = load_ontology()
EXTRACTOR = OfflineExtractor(ONTO)
FORMS = sorted({f for p in ONTO.predicates.values() for ws in p.surface.values() for f in ws})
PIECES = [
    *FORMS,
    *"Ann Acme Java Ромашка ООО LLC the a é um our наш which который de на острове island in".split(),
    *"and и e not não не , ,, ( ) « » ? ! . ; : - — 1 10k".split(),
    "no longer", "I think", "btw", "ИНН 7707083893", "CNPJ 11.222.333/0001-81", "a@b.co",
    "https://x.io", "\u200b", "😀", "\n", "\t", "ё",
]  # fmt: skip


def soup(rng: random.Random) -> str:
    text = " ".join(rng.choice(PIECES) for _ in range(rng.randint(1, 12)))
    return text.replace(" ", "") if rng.random() < 0.3 else text


def test_no_text_makes_the_extractor_raise() -> None:
    rng = random.Random(2026)
    for _ in range(4000):
        text = soup(rng)
        EXTRACTOR.extract(text)
        EXTRACTOR.parse(text, question=True)
        EXTRACTOR.denials(text)
        key_tokens(text)
        nominative(text)


def test_the_two_inputs_that_raised() -> None:
    assert [(t.subject, t.object) for t in EXTRACTOR.extract("Ann,, reports to Bob")] == [
        ("Ann", "Bob")
    ]
    assert [t.object for t in EXTRACTOR.extract("checkout depends on payments, and ledger")] == [
        "payments",
        "ledger",
    ]


def test_a_text_parsed_again_reads_as_a_fresh_extractor_reads_it() -> None:
    """The extractor keeps its last parse (a stored message is read for its facts, then for
    what it denies): whatever was parsed before, each text reads as it does alone."""
    rng = random.Random(7)
    texts = [
        "billing does not depend on auth",
        "billing depends on auth",
        "Ann no longer works at Acme",
        "who works at Acme",  # read otherwise as a question: no subject
        "quem trabalha na Acme",
        *(soup(rng) for _ in range(300)),
    ]
    for k, text in enumerate(texts):
        fresh = OfflineExtractor(ONTO)
        for previous in (texts[k - 1], text):  # another text before it, then itself
            EXTRACTOR.parse(previous, question=not k % 2)
            for question in (False, True, False):  # as read with nothing kept
                assert EXTRACTOR.parse(text, question=question) == fresh._parse(text, question)
            assert EXTRACTOR.denials(text) == fresh.denials(text)
            assert EXTRACTOR.extract(text) == fresh.extract(text)
