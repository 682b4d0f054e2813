"""Language detection on short client messages: share right, per split and per language.

    python -m bench.language            # both sets, both splits; the README quotes held-out

The first set (tests/fixtures/lang_short.tsv) holds short messages as clients write them, each
with the chat's recent language when the chat has one. Its tuning part was used to build the
word lists in core/langid.py; the held-out part was written at the same time and not tuned on.
The second (tests/fixtures/lang_short2.tsv, 200 messages, 2026-12-05) was written by a helper
that saw neither the detector nor its sets: clients of small businesses writing content words
("fazem limpeza?", "do you fix brakes?"), 60% of them in another language than the chat's
recent one. Its tuning part was read while adding the word-list cue; its held-out part was not.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from core.langid import detect_language

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
FIXTURE = FIXTURES / "lang_short.tsv"
SETS = {"short": FIXTURE, "short2": FIXTURES / "lang_short2.tsv"}


@dataclass(frozen=True)
class Labelled:
    split: str
    lang: str
    prior: str | None
    text: str


def load(path: Path = FIXTURE) -> list[Labelled]:
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        split, lang, prior, text = line.split("\t", 3)
        items.append(Labelled(split, lang, None if prior == "-" else prior, text))
    return items


def score(items: list[Labelled]) -> tuple[float, list[tuple[Labelled, str]]]:
    wrong = [(i, got) for i in items if (got := detect_language(i.text, i.prior)) != i.lang]
    return 1 - len(wrong) / max(len(items), 1), wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=["tune", "heldout"], default=None)
    parser.add_argument("--set", choices=sorted(SETS), default=None)
    parser.add_argument("--show-wrong", action="store_true")
    args = parser.parse_args()
    for name in [args.set] if args.set else sorted(SETS):
        items = load(SETS[name])
        for split in [args.split] if args.split else ["tune", "heldout"]:
            part = [i for i in items if i.split == split]
            share, wrong = score(part)
            by_lang = Counter(i.lang for i in part)
            bad = Counter(i.lang for i, _ in wrong)
            per = "  ".join(f"{lg} {1 - bad[lg] / n:.3f}" for lg, n in sorted(by_lang.items()))
            print(f"{name:<7} {split:<8} n={len(part):<4} right {share:.3f}   {per}")
            if args.show_wrong:
                for i, got in wrong:
                    print(f"   want {i.lang} got {got} (prior {i.prior}): {i.text}")


if __name__ == "__main__":
    main()
