"""Everything the front-ends say on their own, in English, Portuguese and Russian: one table,
one `t(key, lang, **values)`.

The words are data, in one catalogue a front-end (bot/locales/telegram.toml, slack.toml,
lead.toml for the hand-off both share, render.toml for the listings of /worlds and /facts), so
a translator edits a text's three languages side by side and no code changes. Keys are
"<catalogue>.<table>": `telegram.*` and `slack.*` for one platform's words (Slack's are
mrkdwn, Telegram's plain text the send path escapes), `lead.*` for the hand-off
(`lead.slack.*` where Slack says it differently), `render.*` for the listings. A text missing
in a language falls back to English. Placeholders use str.format names. Answers come from the
core in the user's language (core/texts.py); these are only the front-ends' own words.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "pt", "ru")
_LOCALES = Path(__file__).with_name("locales")

CATALOGUES = ("telegram", "slack", "lead", "render")  # bot/locales/<name>.toml: "<name>.<table>"


def _flatten(prefix: str, table: dict[str, Any], into: dict[str, dict[str, str]]) -> None:
    """A table of strings is one text (its languages); a table of tables nests keys."""
    if all(isinstance(v, str) for v in table.values()):
        into[prefix] = table
        return
    for name, sub in table.items():
        _flatten(f"{prefix}.{name}", sub, into)


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """Every text: key -> {language: template}. Read from the package on first use."""
    texts: dict[str, dict[str, str]] = {}
    for name in CATALOGUES:
        raw = (_LOCALES / f"{name}.toml").read_text(encoding="utf-8")
        _flatten(name, tomllib.loads(raw), texts)
    return texts


def has_text(key: str) -> bool:
    return key in catalogue()


QUOTE_CHARS = 300  # user text quoted in a reply ("/forget <5,000 characters>" hit the limits)


def quoted(value: object) -> object:
    """A value for a template: user text is cut to QUOTE_CHARS characters, so no reply that
    quotes it outgrows Telegram's 4,096 or Slack's limits (issue 12)."""
    if isinstance(value, str) and len(value) > QUOTE_CHARS:
        return value[: QUOTE_CHARS - 1] + "…"
    return value


def t(key: str, lang: str = "en", **values: object) -> str:
    """The text `key` in `lang` (English when missing), with `values` filled in."""
    variants = catalogue()[key]
    filled = {k: quoted(v) for k, v in values.items()}
    return variants.get(lang, variants["en"]).format(**filled)


def language_of(code: str | None) -> str:
    """An IETF tag ("pt-br", "ru", None) -> one of LANGUAGES, English by default."""
    base = (code or "").lower().split("-")[0]
    return base if base in LANGUAGES else "en"
