"""The wall clock (the Clock port's adapter; tests pass their own) and the one rule for
timestamps that come from outside: a time without a zone is UTC.

Every datetime the core compares must carry a zone (Python refuses to subtract a naive one
from an aware one). Exports and hand-written JSON Lines often write "2026-11-01T09:00:00";
such a time is read as UTC at the boundary (pydantic models, the CLI), never compared raw.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, overload


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """The time itself when it has a zone; a time without one, taken as UTC."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def parse_timestamp(value: Any) -> datetime | None:
    """An ISO 8601 time from a JSON line ("Z" or an offset, or none: UTC); None for none.
    ValueError for text that is not a time."""
    if value in (None, ""):
        return None
    return as_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")))
