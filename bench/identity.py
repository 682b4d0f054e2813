"""Mention -> entity on tests/fixtures/identity_mentions.json: `python -m bench.identity`.

Each case is a question (en / pt / ru, with typos) and the stored entity it names, or none. The
resolution is retrieval's own: names first (core/pipeline/select.py's name_mentions: exact,
lemma, transliteration), then the best entity vector if it clears the seed cut-off. Printed per
model: the fixed 0.60 (before issue 16) beside the cut-off read from the model (core/seeds.py).
The quantile behind that cut-off was chosen on part=tune; the figure to quote is part=held.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from core.identity import NameIndex, NameRules
from core.pipeline.select import name_mentions
from core.ports import Embedder
from core.seeds import seed_cutoff
from ontology import load_ontology

FIXTURE = Path(__file__).resolve().parent.parent / "tests/fixtures/identity_mentions.json"


def resolve(
    index: NameIndex, names: list[str], vecs: np.ndarray, q_vec: np.ndarray, q: str, cut: float
) -> str | None:
    found = name_mentions(index, q, {"w"})
    if found.found:
        return found.found[0]
    sims = vecs @ q_vec
    best = int(sims.argmax())
    return names[best] if sims[best] >= cut else None


def score(embedder: Embedder, part: str, cut: float) -> tuple[int, int, int, int]:
    """(named right, named cases, 'none' right, none cases) on one part of the fixture."""
    rules = NameRules(load_ontology().legal_forms)
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    hit = pos = rej = neg = 0
    for group in data["groups"]:
        names = group["stored"]
        index = NameIndex(rules)
        for name in names:
            index.add(name, "w", [name])
        vecs = embedder.embed(names)
        cases = [c for c in group["cases"] if c[2] == part]
        q_vecs = embedder.embed([c[0] for c in cases]) if cases else []
        for (question, expected, _part), q_vec in zip(cases, q_vecs, strict=True):
            got = resolve(index, names, vecs, q_vec, question, cut)
            if expected is None:
                neg += 1
                rej += got is None
            else:
                pos += 1
                hit += got == expected
    return hit, pos, rej, neg


def timing(n: int = 10_000) -> None:
    """Building a chat's name index (once, on first use after it opens) and one question."""
    import random
    import statistics
    import time

    from core.language import lemma

    words = (
        "платежи сервис доставки Ромашка Трейд склад Казань отчёт payments gateway ledger "
        "billing core auth api Flores Comércio Serviços pagamentos estoque faturamento"
    ).split()
    rng = random.Random(16)
    names = [" ".join(rng.sample(words, rng.randint(1, 3))) for _ in range(n)]
    for word in words:  # dictionaries loaded before the clock starts
        lemma(word.lower())
    start = time.perf_counter()
    index = NameIndex(NameRules(load_ontology().legal_forms))
    for i, name in enumerate(names):
        index.add(f"e{i}", "w", [name])
    built = time.perf_counter() - start
    question = "кто принимает решения за Ромашка-Трейд и что с платежами склада?"
    name_mentions(index, question, {"w"})
    laps = []
    for _ in range(50):
        t0 = time.perf_counter()
        name_mentions(index, question, {"w"})
        laps.append((time.perf_counter() - t0) * 1000)
    print(
        f"name index: {n} names built in {built:.2f} s; a question's names {statistics.median(laps):.2f} ms p50"
    )


def embedders() -> dict[str, Embedder]:
    from bench.common import offline_embedder
    from core.embedding.use import UseEmbedder

    return {"MiniLM (en)": offline_embedder(), "USE v3 (multilingual)": UseEmbedder(threads=1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--part", default="held", choices=("held", "tune"))
    parser.add_argument("--timing", action="store_true", help="also time the name index")
    args = parser.parse_args()
    part = args.part
    if args.timing:
        timing()
    print(f"mention -> entity, part={part} (named: right entity; none: no seed at all)")
    for label, embedder in embedders().items():
        derived = seed_cutoff(embedder)
        for name, cut in (("fixed 0.60", 0.60), (f"derived {derived:.3f}", derived)):
            hit, pos, rej, neg = score(embedder, part, cut)
            total = (hit + rej) / (pos + neg)
            print(
                f"  {label:22} {name:15} named {hit}/{pos}  none {rej}/{neg}  "
                f"all {hit + rej}/{pos + neg} ({total:.0%})"
            )


if __name__ == "__main__":
    main()
