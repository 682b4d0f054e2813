"""A chat's messages as a keyword index: BM25 postings over lemmatised tokens (en/pt/ru),
authors, texts, timestamps and worlds, in memory. Built when a chat opens, appended to on every
stored message (core/store/); ranked by core/recall/fusion.py."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from core.identity import cognate_term, first_name_like, script, sound_term
from core.language import (
    QUESTION_WORDS,
    STOPWORDS,
    key_tokens,
    lemma,
    name_key,
    tokens,
    written_tokens,
)

Vector = npt.NDArray[np.float32]


class Vectors(Protocol):
    """What rank needs from core.index.vectors.VectorMatrix."""

    ids: list[str]

    def __len__(self) -> int: ...

    def row(self, item_id: str) -> int | None: ...

    def best(self, sims: Vector, k: int) -> list[tuple[str, float]]: ...


# BM25's idf of a word at most ~15% of the chat's messages hold (1.5 = log(1 + 3.5))
RARE_IDF = 1.5


class ChatWords(Protocol):
    """What the quote's reading needs of a chat's words (MessageIndex)."""

    def idf(self, tok: str) -> float: ...

    def rare(self, tok: str) -> bool: ...


def _utc(ts: datetime) -> datetime:
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def top_rows(
    scores: npt.NDArray[Any], limit: int, rows: npt.NDArray[np.int64] | None = None
) -> list[int]:
    """Indices of the `limit` highest scores, best first (mapped through `rows` if given)."""
    k = min(limit, len(scores))
    if k <= 0:
        return []
    idx = np.argpartition(-scores, k - 1)[:k]
    idx = idx[np.argsort(-scores[idx], kind="stable")]
    out = idx if rows is None else rows[idx]
    return [int(i) for i in out]


def index_tokens(text: str) -> list[str]:
    """Lemmatised content tokens (stop words and question words dropped)."""
    return [key for _, key in _indexed(text)]


def _indexed(text: str) -> list[tuple[str, str]]:
    """(token as written, its lemma) of each content token (index_tokens)."""
    return [
        (w, t)
        for w in tokens(text)
        if (t := lemma(w)) not in STOPWORDS
        and t not in QUESTION_WORDS
        and (len(t) > 1 or t.isdigit())
    ]


def _sounds(indexed: list[tuple[str, str]]) -> list[str]:
    """The postings a message's words also get by their sound, so that a question in another
    script finds a loanword ("do you do apostille?" against "Апостиль мы сами не ставим",
    which shares no token with it and was not among the evidence): a word's dictionary form,
    and the word as written when its form sounds otherwise, as a question's words are heard
    (MessageIndex.bm25_scores): the lemmatiser reads "garantia" as the verb "garantir"
    (grntr), so "a garantia agora é de 12 meses" did not sound like "гарантия" (grnt) and
    was never found as the update of "гарантия на ремонт — 6 месяцев" (the fourteenth
    round of the client trials)."""
    heard = [
        term
        for w, key in indexed
        for term in dict.fromkeys((sound_term(key), sound_term(w.lower())))
        if term is not None
    ]
    return [f"~{term}" for term in heard] + [
        f"~{term}" for _, t in indexed if (term := cognate_term(t)) is not None
    ]


def _words_key(toks: list[str], text: str) -> str:
    """What rows with the same words share ("ok", "haha"): MessageIndex.same."""
    return " ".join(sorted(toks)) or text.lower()


class MessageIndex:
    """A chat's messages in seq order: BM25 postings, authors, texts and timestamps, in memory
    (texts cost about their UTF-8 size; fetching ten rows from Kùzu cost ~5-10 ms at 10k).

    Built when the chat's store opens and appended to on every stored message (rows only grow;
    an edit re-indexes its row, retext; forgetting a chat drops the whole store)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.authors: list[str] = []  # display names
        self.texts: list[str] = []  # evidence text without a database round trip
        # each row's world as the database holds it, through moves and merges: a question
        # scoped to one world reads it here, not with a database statement
        self.worlds: list[str] = []
        # explicit replies (a Telegram reply, a Slack thread): message -> the one it answers,
        # and each answered message's first reply
        self.replied_to: dict[str, str] = {}
        self.first_reply: dict[str, str] = {}
        self.by_author: dict[str, list[int]] = {}  # author name key -> rows
        self._author_tokens: dict[str, set[str]] = {}  # author key -> its name tokens
        self._author_words: dict[str, bool] = {}  # names_an_author's answers
        self._ts: list[float] = []
        self._lengths: list[int] = []
        self._same: list[int] = []  # rows with the same words share a value ("ok", "haha")
        self._texts: dict[str, int] = {}
        self._total = 0
        self._postings: dict[str, tuple[list[int], list[int]]] = {}  # token -> (rows, tf)
        self._cache: dict[str, tuple[int, npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
        self._arrays: tuple[int, npt.NDArray[np.float64], npt.NDArray[np.float32]] | None = None
        self._vec_map: tuple[int, int, list[int]] = (0, 0, [])
        self._vec_array: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._vec_aligned = True  # message row i is vector row i, for every row

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, message_id: str, author: str, text: str, ts: datetime, world: str = "") -> None:
        if message_id in self.row_of:
            return
        row = len(self.ids)
        self.ids.append(message_id)
        self.row_of[message_id] = row
        self.authors.append(author)
        self.texts.append(text)
        self.worlds.append(world)
        akey = name_key(author)
        self.by_author.setdefault(akey, []).append(row)
        if akey not in self._author_tokens:
            self._author_tokens[akey] = {
                t for t in akey.split() if len(t) > 2 and t not in STOPWORDS
            }
            self._author_words = {}  # a new author may be named by a word read before
        self._ts.append(_utc(ts).timestamp())
        indexed = _indexed(text)
        toks = [key for _, key in indexed]
        self._lengths.append(len(toks))
        self._same.append(self._texts.setdefault(_words_key(toks, text), row))
        self._total += len(toks)
        self._post(row, toks + _sounds(indexed))

    def retext(self, message_id: str, text: str) -> None:
        """An edited message: its words and text become the new ones (row, author and time
        stay), so the words edited away no longer find it."""
        row = self.row_of.get(message_id)
        if row is None:
            return
        old = _indexed(self.texts[row])
        for tok in set([key for _, key in old] + _sounds(old)):
            rows, tfs = self._postings[tok]
            at = rows.index(row)
            del rows[at], tfs[at]
            if not rows:
                del self._postings[tok]
            self._cache.pop(tok, None)
        old_key = next((k for k, r in self._texts.items() if r == row), None)
        if old_key is not None:  # the rows that had the same words now share the next of them
            del self._texts[old_key]
            twins = [r for r, s in enumerate(self._same) if s == row and r != row]
            for r in twins:
                self._same[r] = twins[0]
            if twins:
                self._texts[old_key] = twins[0]
        indexed = _indexed(text)
        toks = [key for _, key in indexed]
        self._total += len(toks) - self._lengths[row]
        self._lengths[row] = len(toks)
        self._same[row] = self._texts.setdefault(_words_key(toks, text), row)
        self.texts[row] = text
        self._arrays = None
        self._post(row, toks + _sounds(indexed))

    def _post(self, row: int, toks: list[str]) -> None:
        """The row's postings: each token with its count in the row."""
        counts: dict[str, int] = {}
        for tok in toks:
            counts[tok] = counts.get(tok, 0) + 1
        for tok, tf in counts.items():
            rows, tfs = self._postings.setdefault(tok, ([], []))
            rows.append(row)
            tfs.append(tf)
            self._cache.pop(tok, None)  # an array built before is stale

    def link(self, message_id: str, parent_id: str) -> None:
        self.replied_to[message_id] = parent_id
        self.first_reply.setdefault(parent_id, message_id)

    def move(self, message_ids: Iterable[str], world: str) -> None:
        """These messages now belong to `world` (a regrouping moved them)."""
        for message_id in message_ids:
            row = self.row_of.get(message_id)
            if row is not None:
                self.worlds[row] = world

    def merge(self, src: str, dst: str) -> None:
        """Every message of world src now belongs to dst (a merge; ~0.5 ms at 10k rows)."""
        self.worlds = [dst if w == src else w for w in self.worlds]

    def world(self, message_id: str) -> str:
        row = self.row_of.get(message_id)
        return "" if row is None else self.worlds[row]

    # ------------------------------------------------------------------ lookups
    def ts(self, row: int) -> datetime:
        return datetime.fromtimestamp(self._ts[row], UTC)

    def same(self, row: int) -> int:
        """The first row with the same words as this one."""
        return self._same[row]

    def latest(self) -> datetime | None:
        return self.ts(len(self._ts) - 1) if self._ts else None

    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32]]:
        """(timestamps, document lengths) as arrays, rebuilt only after new messages."""
        n = len(self.ids)
        if self._arrays is None or self._arrays[0] != n:
            self._arrays = (
                n,
                np.asarray(self._ts, dtype=np.float64),
                np.asarray(self._lengths, dtype=np.float32),
            )
        return self._arrays[1], self._arrays[2]

    def _posting(self, tok: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]] | None:
        got = self._postings.get(tok)
        if got is None:
            return None
        cached = self._cache.get(tok)
        if cached is None or cached[0] != len(got[0]):
            cached = (
                len(got[0]),
                np.asarray(got[0], dtype=np.int64),
                np.asarray(got[1], dtype=np.float32),
            )
            self._cache[tok] = cached
        return cached[1], cached[2]

    def idf(self, tok: str) -> float:
        """BM25's inverse document frequency of one index token (0 when no message has it)."""
        got, n = self._postings.get(tok), len(self.ids)
        df = len(got[0]) if got else 0
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5)) if df else 0.0

    def rare(self, tok: str) -> bool:
        """Few of the chat's messages hold the token: at most ~15% (idf >= RARE_IDF), or two
        at most, a sentence and the one that updates it. In a chat of ten messages or fewer
        no word two of them share reaches that idf, so an update was never paired there: a
        garage's chat of six messages showed "revisão completa ... custa 120€" without
        "correção: a revisão completa passou para 135€" (the console, 2026-12-07)."""
        got = self._postings.get(tok)
        df = len(got[0]) if got else 0
        return 0 < df <= 2 or self.idf(tok) >= RARE_IDF

    def bm25(self, query: str, limit: int, *, k1: float = 1.2, b: float = 0.75) -> list[int]:
        """Rows by BM25 of the query's lemmatised tokens, best first."""
        scores = self.bm25_scores(query, k1=k1, b=b)
        if scores is None:
            return []
        return [r for r in top_rows(scores, limit) if scores[r] > 0]

    def bm25_scores(
        self, query: str, *, k1: float = 1.2, b: float = 0.75
    ) -> npt.NDArray[np.float32] | None:
        """BM25 of every row (None when no query term is indexed)."""
        n = len(self.ids)
        indexed = _indexed(query)
        words = [key for _, key in indexed]
        # each word also by its sound in the other script (_sounds), as written and in its
        # dictionary form: "networking" is "network" to the lemmatiser, and "нетворкинг" in a
        # Russian message sounds like the word as written ("quando é o networking?" quoted
        # the wifi password)
        heard = words + [w for w, key in indexed if w != key]
        sounds = [f"~{term}" for t in heard if (term := sound_term(t, other=True)) is not None]
        # a word no message holds, also by its sound in its own script (identity.cognate_term):
        # "quanto custa se for urgente?" found nothing beside "urgent jobs are +50%"
        sounds += [
            f"~{term}"
            for w, key in indexed
            if key not in self._postings
            # and as written, in Latin script ("expressa", read "expressar"; a Russian form
            # sounds like other words: "приведу" like "правда")
            for form in dict.fromkeys((key, w.lower() if script(w) == "latn" else key))
            if (term := cognate_term(form)) is not None
        ]
        terms = list(dict.fromkeys(words + sounds))
        if not n or not terms:
            return None
        _, lengths = self.arrays()
        avg = max(self._total / n, 1.0)
        scores = np.zeros(n, dtype=np.float32)
        hit = False
        for tok in terms:
            posting = self._posting(tok)
            if posting is None:
                continue
            rows, tf = posting
            df = len(rows)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            norm = k1 * (1.0 - b + b * lengths[rows] / avg)
            scores[rows] += idf * tf * (k1 + 1.0) / (tf + norm)
            hit = True
        return scores if hit else None

    def speakers(self, question: str) -> list[str]:
        """Author keys named in the question (any name token of 3+ letters), or written
        capitalised in the other script ("Сколько стоит массаж у Ольги?" names Olga: it was
        said back as a name the chat never mentions; the fifty-eighth round)."""
        toks = set(key_tokens(question))
        written = [w for w in written_tokens(question) if w[:1].isupper()]
        return [
            a
            for a, names in self._author_tokens.items()
            if names
            and (names & toks or any(first_name_like(w, n) for w in written for n in names))
        ]

    def names_an_author(self, word: str) -> bool:
        """Whether a word is the first name of someone who writes in the chat, in either
        script ("инес" of Inês). Remembered per word until a new author writes: offline world
        naming asks it of every word of every world (5% of a 10,000-message import's time,
        py-spy)."""
        known = self._author_words.get(word)
        if known is None:
            known = self._author_words[word] = any(
                first_name_like(word, n) for names in self._author_tokens.values() for n in names
            )
        return known

    def vector_rows(self, vectors: Vectors) -> npt.NDArray[np.int64]:
        """Row of each message in the vector matrix (-1 without a vector), kept incrementally."""
        key, seen, mapping = self._vec_map
        grown = len(vectors) - seen
        if key != id(vectors) or grown < 0 or grown > len(self.ids) - len(mapping):
            mapping, seen = [], 0  # another matrix (re-embedded) or rows we cannot place
        if len(mapping) < len(self.ids) or seen != len(vectors):
            for mid in self.ids[len(mapping) :]:
                r = vectors.row(mid)
                mapping.append(-1 if r is None else r)
            self._vec_map = (id(vectors), len(vectors), mapping)
            self._vec_array = np.asarray(mapping, dtype=np.int64)
            self._vec_aligned = len(mapping) == len(vectors) and bool(
                np.array_equal(self._vec_array, np.arange(len(mapping)))
            )
        return self._vec_array

    def row_scores(self, vectors: Vectors, sims: Vector) -> Vector:
        """Each message row's score from `sims`, one per vector row (-1 for a message without
        a vector). The usual case, every message's vector at its own row, is `sims` itself:
        mapping it cost three passes over the chat's messages for each question."""
        rows = self.vector_rows(vectors)
        if self._vec_aligned and len(sims) == len(rows):
            return sims
        return np.where(rows >= 0, sims[np.clip(rows, 0, None)] if len(sims) else 0.0, -1.0)
