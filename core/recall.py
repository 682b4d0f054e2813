"""Recall: find the messages that answer a question (hybrid evidence retrieval).

Much of what people tell the bot never becomes a clean triple ("I finally started at the new
clinic today"), so evidence is ranked over the chat's messages by several signals, fused by
weighted reciprocal rank fusion:

- meaning:    cosine of the question with the message embedding ("author: text");
- words:      BM25 over lemmatised tokens (en/pt/ru), an index kept in memory per chat;
- entities:   messages that mention the question's entities, and the source messages of the
              facts about them (the graph's provenance);
- speaker:    a speaker named in the question -> that author's messages, by meaning;
- time:       a period in the question ("last week", "in May", "em maio", "в мае", "yesterday",
              "3 May 2024") -> messages in that period, by meaning; they rank first;
- neighbours: the turns just before and after a strong hit (same session).

Pure functions plus one small per-chat index (MessageIndex); the store owns the index and feeds
it (core/store/kuzu_store.py), the core calls `rank` (core/service.py, Core._evidence).
Measured on tests/fixtures/recall_*.jsonl by bench/recall.py.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from core.language import QUESTION_WORDS, STOPWORDS, key_tokens, name_key

Vector = npt.NDArray[np.float32]

SIGNALS = ("meaning", "words", "entities", "speaker", "time", "neighbours")


@dataclass(frozen=True)
class RecallConfig:
    """Fusion weights and limits (measured on the recall fixture; see bench/recall.py)."""

    k: int = 10  # evidence items returned
    depth: int = 50  # candidates taken from each signal
    rrf_k: int = 60
    w_meaning: float = 1.0
    w_words: float = 1.0
    w_entities: float = 1.0
    w_speaker: float = 1.0
    w_time: float = 1.0
    w_neighbours: float = 0.5
    neighbour_hits: int = 3  # the best fused hits whose adjacent turns become candidates
    neighbour_gap_s: float = 6 * 3600.0  # adjacent turns further apart are another session
    time_first: bool = True  # messages inside the question's period rank before the rest
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    min_tokens: int = 3  # messages with fewer content tokens are chit-chat ...
    short_penalty: float = 0.15  # ... and lose this much cosine
    subset_words: float = 0.3  # speaker / period subsets: cosine + this * normalised BM25

    def weight(self, signal: str) -> float:
        return float(getattr(self, f"w_{signal}"))


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    signals: tuple[str, ...]
    ts: datetime
    author: str
    text: str


class Vectors(Protocol):
    """What rank needs from core.store.vectors.VectorMatrix."""

    ids: list[str]

    def __len__(self) -> int: ...

    def row(self, item_id: str) -> int | None: ...

    def best(self, sims: Vector, k: int) -> list[tuple[str, float]]: ...


# ====================================================================== keyword index
def index_tokens(text: str) -> list[str]:
    """Lemmatised content tokens (stop words and question words dropped)."""
    return [
        t
        for t in key_tokens(text)
        if t not in STOPWORDS and t not in QUESTION_WORDS and (len(t) > 1 or t.isdigit())
    ]


class MessageIndex:
    """A chat's messages in seq order: BM25 postings, authors, texts and timestamps, in memory
    (texts cost about their UTF-8 size; fetching ten rows from Kùzu cost ~5-10 ms at 10k).

    Built when the chat's store opens and appended to on every stored message (rows only grow;
    forgetting a chat drops the whole store)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.authors: list[str] = []  # display names
        self.texts: list[str] = []  # evidence text without a database round trip
        self.by_author: dict[str, list[int]] = {}  # author name key -> rows
        self._author_tokens: dict[str, set[str]] = {}  # author key -> its name tokens
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

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, message_id: str, author: str, text: str, ts: datetime) -> None:
        if message_id in self.row_of:
            return
        row = len(self.ids)
        self.ids.append(message_id)
        self.row_of[message_id] = row
        self.authors.append(author)
        self.texts.append(text)
        akey = name_key(author)
        self.by_author.setdefault(akey, []).append(row)
        if akey not in self._author_tokens:
            self._author_tokens[akey] = {
                t for t in akey.split() if len(t) > 2 and t not in STOPWORDS
            }
        self._ts.append(_utc(ts).timestamp())
        toks = index_tokens(text)
        self._lengths.append(len(toks))
        self._same.append(self._texts.setdefault(" ".join(sorted(toks)) or text.lower(), row))
        self._total += len(toks)
        counts: dict[str, int] = {}
        for tok in toks:
            counts[tok] = counts.get(tok, 0) + 1
        for tok, tf in counts.items():
            rows, tfs = self._postings.setdefault(tok, ([], []))
            rows.append(row)
            tfs.append(tf)

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

    def bm25(self, query: str, limit: int, *, k1: float = 1.2, b: float = 0.75) -> list[int]:
        """Rows by BM25 of the query's lemmatised tokens, best first."""
        scores = self.bm25_scores(query, k1=k1, b=b)
        if scores is None:
            return []
        return [r for r in _top(scores, limit) if scores[r] > 0]

    def bm25_scores(
        self, query: str, *, k1: float = 1.2, b: float = 0.75
    ) -> npt.NDArray[np.float32] | None:
        """BM25 of every row (None when no query term is indexed)."""
        n = len(self.ids)
        terms = list(dict.fromkeys(index_tokens(query)))
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
        """Author keys named in the question (any name token of 3+ letters)."""
        toks = set(key_tokens(question))
        return [a for a, names in self._author_tokens.items() if names and names & toks]

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
        return self._vec_array


# ====================================================================== time
_MONTHS: dict[str, int] = {}
for _i, _names in enumerate(
    [
        "january jan janeiro",
        "february feb fevereiro",
        "march março marco",
        "april apr abril",
        "may maio",
        "june jun junho",
        "july jul julho",
        "august aug agosto",
        "september sep sept setembro",
        "october oct outubro",
        "november nov novembro",
        "december dec dezembro",
    ],
    start=1,
):
    for _n in _names.split():
        _MONTHS[_n] = _i
_RU_MONTHS = [
    (re.compile(p), i)
    for i, p in enumerate(
        [
            "январ[ьяе]",
            "феврал[ьяе]",
            "март[ае]?",
            "апрел[ьяе]",
            "ма[йяе]",
            "июн[ьяе]",
            "июл[ьяе]",
            "август[ае]?",
            "сентябр[ьяе]",
            "октябр[ьяе]",
            "ноябр[ьяе]",
            "декабр[ьяе]",
        ],
        start=1,
    )
]
_EN_PT_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_RU_MONTH = "|".join(p.pattern for p, _ in _RU_MONTHS)
_YEAR = r"(?:\s*(?:de\s+|of\s+|,\s*)?((?:19|20)\d\d))?"
_WHEN = re.compile(
    r"^\s*(when|quando|когда)\b|\b(what|which) (date|day|time)\b|\bhow long ago\b|"
    r"\b(em|para) que (dia|data)\b|\bque dia\b|\bкакого числа\b|\bв какой день\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Period:
    start: datetime
    end: datetime  # exclusive
    label: str

    def contains(self, ts: datetime) -> bool:
        return self.start <= ts < self.end


def is_when_question(question: str) -> bool:
    return bool(_WHEN.search(question.strip()))


def _utc(ts: datetime) -> datetime:
    return ts.replace(tzinfo=UTC) if ts.tzinfo is None else ts.astimezone(UTC)


def _day(ts: datetime) -> datetime:
    return ts.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _month_period(month: int, year: str | None, now: datetime, label: str) -> Period:
    y = int(year) if year else (now.year if month <= now.month else now.year - 1)
    start, end = _month_span(y, month)
    return Period(start, end, label)


def _date_period(
    day: int, month: int, year: str | None, now: datetime, label: str
) -> Period | None:
    y = int(year) if year else now.year
    try:
        start = datetime(y, month, day, tzinfo=UTC)
    except ValueError:
        return None
    if not year and start > now:
        start = start.replace(year=y - 1)
    return Period(start, start + timedelta(days=1), label)


_N = r"(\d{1,3})"
_UNITS = {
    "day": 1,
    "days": 1,
    "dia": 1,
    "dias": 1,
    "день": 1,
    "дня": 1,
    "дней": 1,
    "week": 7,
    "weeks": 7,
    "semana": 7,
    "semanas": 7,
    "неделю": 7,
    "недели": 7,
    "недель": 7,
}
_RELATIVE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bday before yesterday\b|\banteontem\b|\bпозавчера\b"), "-2d"),
    (re.compile(r"\byesterday\b|\bontem\b|\bвчера\b"), "-1d"),
    (re.compile(r"\btoday\b|\bhoje\b|\bсегодня\b"), "0d"),
    (re.compile(r"\blast week\b|\bsemana passada\b|\bпрошл\w* недел\w*"), "-1w"),
    (re.compile(r"\bthis week\b|\b(?:n)?esta semana\b|\bэт\w* недел\w*"), "0w"),
    (re.compile(r"\blast month\b|\bm[eê]s passado\b|\bпрошл\w* месяц\w*"), "-1m"),
    (re.compile(r"\bthis month\b|\b(?:n)?este m[eê]s\b|\bэт\w* месяц\w*"), "0m"),
    (re.compile(r"\blast year\b|\bano passado\b|\bпрошл\w* год\w*"), "-1y"),
]


def parse_period(text: str, now: datetime) -> Period | None:
    """The period a question is about, relative to `now`, or None. en / pt / ru."""
    q = text.lower()
    now = _utc(now)
    today = _day(now)
    # explicit dates first: 2024-05-03, 03.05.2024, "May 3", "3 May", "3 de maio", "3 мая"
    if m := re.search(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b", q):
        return _date_period(int(m[3]), int(m[2]), m[1], now, m[0])
    if m := re.search(r"\b(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)\b", q):
        return _date_period(int(m[1]), int(m[2]), m[3], now, m[0])
    if m := re.search(rf"\b({_EN_PT_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b{_YEAR}", q):
        return _date_period(int(m[2]), _MONTHS[m[1]], m[3], now, m[0])
    day_month = rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?({_EN_PT_MONTH})\b{_YEAR}"
    if m := re.search(day_month, q):
        return _date_period(int(m[1]), _MONTHS[m[2]], m[3], now, m[0])
    if m := re.search(rf"\b(\d{{1,2}})\s+({_RU_MONTH})\b(?:\s+((?:19|20)\d\d))?", q):
        month = next(i for p, i in _RU_MONTHS if p.fullmatch(m[2]))
        return _date_period(int(m[1]), month, m[3], now, m[0])
    # "N days ago", "há 3 dias", "2 недели назад"; "last 10 days", "últimos 10 dias"
    ago = rf"\b{_N}\s+(\w+)\s+ago\b|\bh[aá]\s+{_N}\s+(\w+)|\b{_N}\s+(\w+)\s+назад\b"
    if m := re.search(ago, q):
        n, unit = next((m[i], m[i + 1]) for i in (1, 3, 5) if m[i])
        if unit in _UNITS:
            span = _UNITS[unit]
            start = today - timedelta(days=int(n) * span)
            return Period(start, start + timedelta(days=span), m[0])
    m = re.search(rf"\b(?:last|past|[uú]ltimos|последние)\s+{_N}\s+(\w+)", q)
    if m and m[2] in _UNITS:
        return Period(
            today - timedelta(days=int(m[1]) * _UNITS[m[2]]), today + timedelta(days=1), m[0]
        )
    for pattern, code in _RELATIVE:
        if m := pattern.search(q):
            return _relative(code, now, today, m[0])
    # months: "in May", "em maio", "в мае", "May 2024", "maio de 2024"
    if m := re.search(rf"\b(?:in|during|since|of|em|no|durante|de)\s+({_EN_PT_MONTH})\b{_YEAR}", q):
        return _month_period(_MONTHS[m[1]], m[2], now, m[0])
    if m := re.search(
        r"\b(janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|"
        rf"outubro|novembro|dezembro|january|february|april|june|july|august|"
        rf"september|october|november|december){_YEAR}\b",
        q,
    ):
        return _month_period(_MONTHS[m[1]], m[2], now, m[0])
    if m := re.search(rf"(?<!\w)({_RU_MONTH})(?!\w)(?:\s+((?:19|20)\d\d))?", q):
        month = next(i for p, i in _RU_MONTHS if p.fullmatch(m[1]))
        return _month_period(month, m[2], now, m[0])
    if m := re.search(r"\b(?:in|em|в)\s+((?:19|20)\d\d)\b", q):
        y = int(m[1])
        return Period(datetime(y, 1, 1, tzinfo=UTC), datetime(y + 1, 1, 1, tzinfo=UTC), m[0])
    return None


def _relative(code: str, now: datetime, today: datetime, label: str) -> Period:
    n, unit = int(code[:-1]), code[-1]
    if unit == "d":
        start = today + timedelta(days=n)
        return Period(start, start + timedelta(days=1), label)
    if unit == "w":
        week = today - timedelta(days=today.weekday())
        start = week + timedelta(days=7 * n)
        return Period(start, start + timedelta(days=7), label)
    if unit == "m":
        year, month = now.year, now.month + n
        if month < 1:
            year, month = year - 1, month + 12
        start, end = _month_span(year, month)
        return Period(start, end, label)
    start = datetime(now.year + n, 1, 1, tzinfo=UTC)
    return Period(start, start.replace(year=start.year + 1), label)


# ====================================================================== ranking
def _top(
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


@dataclass
class Signals:
    """Each signal's candidate message ids, best first (what /why shows per evidence item)."""

    lists: dict[str, list[str]] = field(default_factory=dict)
    period: Period | None = None


def gather(
    index: MessageIndex,
    vectors: Vectors,
    sims: Vector,
    question: str,
    *,
    entity_messages: Sequence[str],
    now: datetime,
    cfg: RecallConfig,
) -> Signals:
    """Every signal's ranked candidates. `sims`: the question's cosine with each vector row;
    `entity_messages`: provenance and mentions of the question's entities, best first."""
    out = Signals()
    depth = cfg.depth
    out.lists["entities"] = list(dict.fromkeys(entity_messages))[:depth]
    if not len(index):
        out.lists["meaning"] = [mid for mid, _ in vectors.best(sims, depth)] if len(sims) else []
        return out
    vec_rows = index.vector_rows(vectors)
    row_sims = np.where(vec_rows >= 0, sims[np.clip(vec_rows, 0, None)] if len(sims) else 0.0, -1.0)
    _, lengths = index.arrays()
    # chit-chat ("ok", "haha", "thanks!") rarely answers anything: a small demotion
    short = (lengths < cfg.min_tokens).astype(np.float32) * cfg.short_penalty
    meaning = row_sims - short
    out.lists["meaning"] = [index.ids[r] for r in _top(meaning, depth)]
    bm = index.bm25_scores(question, k1=cfg.bm25_k1, b=cfg.bm25_b)
    relevance = meaning
    if bm is not None:
        out.lists["words"] = [index.ids[r] for r in _top(bm, depth) if bm[r] > 0]
        relevance = meaning + cfg.subset_words * bm / max(float(bm.max()), 1e-6)

    def by_meaning(rows: npt.NDArray[np.int64]) -> list[str]:
        """A subset (one speaker's, one period's messages) by meaning and words; a repeated
        text ("sounds good", "ok") is kept once."""
        seen: set[int] = set()
        out: list[str] = []
        for r in _top(relevance[rows], 3 * depth, rows):
            if index.same(r) not in seen:
                seen.add(index.same(r))
                out.append(index.ids[r])
        return out[:depth]

    speakers = index.speakers(question)
    if speakers:
        rows = np.asarray(sorted(r for a in speakers for r in index.by_author[a]), dtype=np.int64)
        out.lists["speaker"] = by_meaning(rows)
    period = parse_period(question, now)
    if period is not None:
        ts, _ = index.arrays()
        mask = (ts >= period.start.timestamp()) & (ts < period.end.timestamp())
        rows = np.flatnonzero(mask).astype(np.int64)
        if len(rows):
            out.period = period
            out.lists["time"] = by_meaning(rows)
    return out


def fuse(lists: Mapping[str, Sequence[str]], cfg: RecallConfig) -> dict[str, float]:
    """Weighted reciprocal rank fusion: sum over signals of w / (rrf_k + rank)."""
    scores: dict[str, float] = {}
    for signal, ranked in lists.items():
        w = cfg.weight(signal)
        if w <= 0:
            continue
        for rank, mid in enumerate(ranked):
            scores[mid] = scores.get(mid, 0.0) + w / (cfg.rrf_k + rank + 1)
    return scores


def neighbours(index: MessageIndex, hits: Sequence[str], gap_s: float) -> list[str]:
    """The turns just before and after each hit, when they are of the same session."""
    ts, _ = index.arrays()
    out: list[str] = []
    for mid in hits:
        row = index.row_of.get(mid)
        if row is None:
            continue
        out.extend(
            index.ids[other]
            for other in (row - 1, row + 1)
            if 0 <= other < len(index) and abs(ts[other] - ts[row]) <= gap_s
        )
    return list(dict.fromkeys(out))


def rank(
    index: MessageIndex,
    vectors: Vectors,
    sims: Vector,
    question: str,
    *,
    entity_messages: Sequence[str],
    now: datetime,
    cfg: RecallConfig,
) -> list[Hit]:
    """The chat's evidence for a question, most relevant first, with the signals that found it."""
    sig = gather(index, vectors, sims, question, entity_messages=entity_messages, now=now, cfg=cfg)
    scores = fuse(sig.lists, cfg)
    if cfg.neighbour_hits > 0 and cfg.w_neighbours > 0:
        best = sorted(scores, key=lambda m: -scores[m])[: cfg.neighbour_hits]
        near = [m for m in neighbours(index, best, cfg.neighbour_gap_s) if m not in best]
        sig.lists["neighbours"] = near
        for rank_, mid in enumerate(near):
            scores[mid] = scores.get(mid, 0.0) + cfg.w_neighbours / (cfg.rrf_k + rank_ + 1)
    order = sorted(scores, key=lambda m: -scores[m])
    if sig.period is not None and cfg.time_first:
        inside = set(sig.lists.get("time", ()))
        order = [m for m in order if m in inside] + [m for m in order if m not in inside]
    found: dict[str, list[str]] = {}
    for signal in SIGNALS:
        for mid in sig.lists.get(signal, ()):
            found.setdefault(mid, []).append(signal)
    hits = []
    for mid in order[: cfg.k]:
        row = index.row_of.get(mid)
        if row is None:
            continue  # a source id that is not a stored message
        hits.append(
            Hit(
                mid,
                round(scores[mid], 6),
                tuple(found.get(mid, ())),
                index.ts(row),
                index.authors[row],
                index.texts[row],
            )
        )
    return hits


def plain_vector(vectors: Vectors, sims: Vector, k: int) -> list[str]:
    """The baseline: top k messages by cosine alone."""
    return [mid for mid, _ in vectors.best(sims, k)] if len(sims) else []


__all__ = [
    "SIGNALS",
    "Hit",
    "MessageIndex",
    "Period",
    "RecallConfig",
    "Signals",
    "fuse",
    "gather",
    "index_tokens",
    "is_when_question",
    "neighbours",
    "parse_period",
    "plain_vector",
    "rank",
]
