"""Telegram front-end (aiogram 3): turns updates into core calls and core results into messages.

No domain logic lives here. Entry point: `run_telegram(core, settings, stop_event=...)`.
"""

from bot.telegram.runner import build_dispatcher, create_bot, run_telegram

__all__ = ["build_dispatcher", "create_bot", "run_telegram"]
