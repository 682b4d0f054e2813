"""The ask path's caches of pure functions of a text (core/phrases.py `one_word`,
core/langid.py `detect`): the same results as uncached, short texts only, a bounded number."""

from __future__ import annotations

from core import langid, phrases
from core.langid import detect
from core.phrases import CACHED, CACHED_CHARS, one_word


def test_a_cached_reading_is_the_reading() -> None:
    text = "abrimos no fim de semana, drop-in 10€"
    assert one_word(text) == one_word(text) == phrases._written_as_one(text)
    assert "weekend" in one_word(text) and "dropin" in one_word(text)
    assert detect(text) == langid._detected(text, None) == ("pt", True)


def test_long_texts_are_not_kept_and_the_caches_are_bounded() -> None:
    long = "на выходных открыто с 10 до 18, " * 40
    assert len(long) > CACHED_CHARS
    before = (phrases._one_word.cache_info().currsize, langid._detect.cache_info().currsize)
    assert one_word(long) == phrases._written_as_one(long)
    assert detect(long)[0] == "ru"
    after = (phrases._one_word.cache_info().currsize, langid._detect.cache_info().currsize)
    assert after == before
    assert phrases._one_word.cache_info().maxsize == langid._detect.cache_info().maxsize == CACHED
