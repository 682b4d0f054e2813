"""Telegram's command list and help, from the one text table (bot/texts.py)."""

from __future__ import annotations

from bot.texts import LANGUAGES, t

# the commands registered with setMyCommands and listed by /help, in this order
COMMAND_NAMES = ("ask", "remember", "why", "worlds", "facts", "forget", "review", "export", "help")


def command_list(lang: str) -> list[tuple[str, str]]:
    """(command, description) in `lang`."""
    return [(name, t(f"telegram.command.{name}", lang)) for name in COMMAND_NAMES]


def help_text(lang: str) -> str:
    lines = [t("telegram.help_intro", lang), "", t("telegram.help_commands", lang)]
    lines += [f"/{name} - {description}" for name, description in command_list(lang)]
    return "\n".join(lines)


__all__ = ["COMMAND_NAMES", "LANGUAGES", "command_list", "help_text"]
