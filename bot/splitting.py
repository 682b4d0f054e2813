"""One long-text splitter for every front-end: Telegram (4096 UTF-16 units per message) and
Slack (3,000 characters per block) cut where a reader would.

Coarsest boundary first: paragraphs, lines, sentences, words. Only a run with none of these (a
10,000-character URL) is cut hard, never inside a character (a surrogate pair counts two UTF-16
units) and, for text already escaped, never inside an "&amp;" entity. The whitespace at a cut is
dropped; blank pieces are left out (both platforms refuse an empty message). Pure: no platform
imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# not ";" among the sentence ends: an escaped entity ends in one
BREAKS = (r"\n\s*\n", r"\n", r"(?<=[.!?…])\s+", r"\s+")
_ENTITY_MAX = 5  # "&amp;": the longest entity an escape writes


def utf16_len(text: str) -> int:
    """Telegram counts a message's length in UTF-16 code units: an emoji outside the BMP is 2."""
    return len(text.encode("utf-16-le")) // 2


def split_text(
    text: str,
    limit: int,
    *,
    measure: Callable[[str], int] = len,
    escaped: bool = False,
) -> list[str]:
    """`text` in pieces of at most `limit` (as `measure` counts), in order. `escaped`: the text
    holds entities ("&amp;") a hard cut must not split."""
    if limit < 2:
        raise ValueError("limit must be at least 2")
    out: list[str] = []
    _split(text, limit, BREAKS, out, measure, escaped)
    return [piece for piece in out if piece.strip()]


def _split(
    text: str,
    limit: int,
    breaks: tuple[str, ...],
    out: list[str],
    measure: Callable[[str], int],
    escaped: bool,
) -> None:
    if measure(text) <= limit:
        out.append(text)
        return
    if not breaks:
        out.extend(_hard_split(text, limit, measure, escaped))
        return
    # with a capturing group re.split keeps the separators: part, sep, part, sep, ..., part
    parts = re.split(f"({breaks[0]})", text)
    current = ""
    for i in range(0, len(parts), 2):
        part, sep = parts[i], parts[i - 1] if i else ""
        candidate = f"{current}{sep}{part}" if current else part
        if measure(candidate) <= limit:
            current = candidate
            continue
        if current.strip():
            out.append(current)
        if measure(part) <= limit:
            current = part
        else:
            _split(part, limit, breaks[1:], out, measure, escaped)
            current = ""
    if current.strip():
        out.append(current)


def _hard_split(text: str, limit: int, measure: Callable[[str], int], escaped: bool) -> list[str]:
    pieces: list[str] = []
    start, units = 0, 0
    for i, ch in enumerate(text):  # whole code points: a surrogate pair is never cut in half
        width = measure(ch)
        if units + width > limit:
            cut = i
            amp = text.rfind("&", max(start + 1, i - _ENTITY_MAX + 1), i) if escaped else -1
            if amp > start and ";" not in text[amp:i]:  # an entity would straddle the cut
                cut = amp
            pieces.append(text[start:cut])
            start, units = cut, measure(text[cut:i])
        units += width
    pieces.append(text[start:])
    return pieces
