"""The period a question is about ("last week", "em maio", "в мае", "3 May 2024"), en/pt/ru."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.index.words import _utc

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
    r"^\s*(?:(?:and|but|so|e|mas|а|и|но)\s+)?(when|quando|когда)\b|\b(what|which) (date|day|time)\b|"
    r"\bhow long ago\b|\b(em|para) que (dia|data)\b|\bque dia\b|\bque horas\b|"
    r"\bqual (?:o |é o )?hor[aá]rio\b|\bкакого числа\b|\bв какой день\b|\bво сколько\b|"
    r"\bв котором часу\b|\b(?:с|до) како(?:го|й) (?:времени|часа)\b|\b(?:до|со?) скольки\b|"
    r"\bq horas\b|\buntil what\b",
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
