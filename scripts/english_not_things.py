"""Writes core/data/english_not_things.txt: the English words that are never a noun, only a
verb, an auxiliary or an adverb ("remove", "recycled", "totally"), but for -ing forms, as lemminflect 0.2.3's
lexicon (MIT licence) reads them; lower-case, letters only, four letters or more. The unknown-
word check (core/unknown.py, core/language.names_a_thing) reads the list; lemminflect is not a
run-time dependency (loaded, its lexicon costs ~34 MB of RSS). The lexicon has gaps: it reads
"act", "ace", "advert" and "abscess" only as verbs, so they are on the list though they are
nouns too.

    pip install lemminflect==0.2.3 && python scripts/english_not_things.py
"""

from __future__ import annotations

from pathlib import Path

from lemminflect import Lemmatizer  # type: ignore[import-not-found]

OUT = Path(__file__).resolve().parent.parent / "core" / "data" / "english_not_things.txt"
NOT_THINGS = {"VERB", "AUX", "ADV"}


def _noun(lexicon: dict[str, dict[str, tuple[str, ...]]], word: str) -> bool:
    return "NOUN" in lexicon.get(word, {})


def main() -> None:
    lemmatizer = Lemmatizer()
    lemmatizer.getAllLemmas("house")  # loads the lexicon
    lexicon = lemmatizer.lemma_dict
    words = sorted(
        w
        for w, readings in lexicon.items()
        if w.isalpha()
        and w.islower()
        and len(w) >= 4
        and set(readings) <= NOT_THINGS
        # a verb's -ing form names a thing as often: "is there parking near the marina?",
        # "catering", "cleaning"
        and not w.endswith("ing")
        # nor an -s form of a verb that is also a noun: the lexicon reads "acts", "adverts"
        # only as verbs
        and not (w.endswith("s") and any(_noun(lexicon, b) for b in readings.get("VERB", ())))
    )
    header = "# English words lemminflect 0.2.3 reads only as a verb, auxiliary or adverb\n"
    OUT.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {OUT}")


if __name__ == "__main__":
    main()
