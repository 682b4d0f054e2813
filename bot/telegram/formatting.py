"""Pure text helpers: Telegram's length limit and HTML escaping. No aiogram imports here."""

from __future__ import annotations

import html

from bot.splitting import split_text, utf16_len

# Telegram counts a message's length in UTF-16 code units after entity parsing. We split the
# plain text and escape each piece afterwards: escaping adds markup characters (&amp;) that
# Telegram does not count.
MESSAGE_LIMIT = 4096
CAPTION_LIMIT = 1024


def escape(text: str) -> str:
    """Escape user or core text for parse_mode=HTML (quotes are safe outside attributes)."""
    return html.escape(text, quote=False)


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split text into pieces of at most `limit` UTF-16 units, at the largest boundary that fits
    (bot/splitting.py); escaped afterwards, so the limit counts what Telegram counts."""
    return split_text(text, limit, measure=utf16_len)


__all__ = ["CAPTION_LIMIT", "MESSAGE_LIMIT", "escape", "split_message", "utf16_len"]
