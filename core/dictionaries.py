"""The word lists of the English and Portuguese lemmatiser (simplemma), as one shared lookup:
the lemmatiser reads them (core/language.py), a typo is a word neither holds
(core/index/spelling.py), and a word only one of them holds is a language cue
(core/langid.py)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

LATIN = ("en", "pt")


@lru_cache(maxsize=1)
def latin_dictionaries() -> Any:
    # The stream dictionaries give the same lemmas as simplemma's default dicts for ~14 MB
    # instead of ~120 MB (en + pt, measured): they bisect the compressed word lists rather
    # than unpacking them into a Python dict; the lookups below are cached.
    from simplemma.strategies.dictionaries.stream_dictionary_factory import (
        StreamDictionaryFactory,
    )

    return StreamDictionaryFactory()


@lru_cache(maxsize=1)
def _lookup() -> Any:
    from simplemma.strategies import DictionaryLookupStrategy

    return DictionaryLookupStrategy(dictionary_factory=latin_dictionaries())


@lru_cache(maxsize=65536)
def holding(token: str) -> tuple[str, ...]:
    """The languages (of LATIN) whose word list holds a lower-case Latin-script word."""
    return tuple(code for code in LATIN if _lookup().get_lemma(token, code) is not None)
