"""Pure text helpers: Telegram's length limit and HTML escaping. No aiogram imports here."""

from __future__ import annotations

import html

# Telegram counts a message's length in UTF-16 code units after entity parsing, so an emoji
# outside the BMP costs two. We split the plain text and escape each piece afterwards: escaping
# adds markup characters (&amp;) that Telegram does not count.
MESSAGE_LIMIT = 4096
CAPTION_LIMIT = 1024

# Paragraphs first, then lines, then words; only a single unbroken run is cut hard.
_SEPARATORS = ("\n\n", "\n", " ")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def escape(text: str) -> str:
    """Escape user or core text for parse_mode=HTML (quotes are safe outside attributes)."""
    return html.escape(text, quote=False)


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split text into pieces of at most `limit` UTF-16 units, at the largest boundary that fits.

    Separators at a cut are dropped; blank pieces are left out (Telegram refuses empty messages).
    """
    if limit < 2:
        raise ValueError("limit must be at least 2")
    out: list[str] = []
    _split(text, limit, _SEPARATORS, out)
    return [piece for piece in out if piece.strip()]


def _split(text: str, limit: int, separators: tuple[str, ...], out: list[str]) -> None:
    if utf16_len(text) <= limit:
        out.append(text)
        return
    if not separators:
        out.extend(_hard_split(text, limit))
        return
    sep, finer = separators[0], separators[1:]
    current = ""
    for part in text.split(sep):
        candidate = f"{current}{sep}{part}" if current else part
        if utf16_len(candidate) <= limit:
            current = candidate
            continue
        if current:
            out.append(current)
        if utf16_len(part) <= limit:
            current = part
        else:
            _split(part, limit, finer, out)
            current = ""
    if current:
        out.append(current)


def _hard_split(text: str, limit: int) -> list[str]:
    # Walk code points so a surrogate pair (2 units) is never cut in half.
    pieces: list[str] = []
    start, units = 0, 0
    for i, ch in enumerate(text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if units + width > limit:
            pieces.append(text[start:i])
            start, units = i, 0
        units += width
    pieces.append(text[start:])
    return pieces
