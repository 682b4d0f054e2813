"""The console front-end: the same core in a terminal, for trying the bot without any token."""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from bot.conversation import with_follow_up
from bot.render import render_facts, render_ingest, render_pending, render_trace, render_worlds
from bot.texts import t
from bot.triples import stated
from core.contract import CoreApi
from core.errors import CoreError, InvalidInput, NotFound
from core.language import sanitize
from core.models import IncomingMessage

HELP = """Type a statement to remember it ("checkout depends on payments"),
or a question to ask ("which policy applies to checkout?").
Commands: /remember <statement, or subject | kind | PREDICATE | object | kind>
          /why  /facts [entity]  /forget <name|all>  /worlds  /review  /approve N  /reject N
          /help  /quit"""


async def console_command(core: CoreApi, chat: str, line: str) -> str:
    """One line in, one reply out (also used by tests)."""
    cmd, _, arg = sanitize(line).strip().partition(" ")  # no invisible characters in commands
    arg = arg.strip()
    try:
        if cmd in ("/help", "/start"):
            return HELP
        if cmd == "/remember":  # as Telegram's /remember and Slack's `/kb remember`
            return await _remember(core, chat, arg)
        if cmd == "/why":
            trace = await core.why(chat)
            return render_trace(trace) if trace else "No answer to explain yet."
        if cmd == "/facts":
            return render_facts(await core.facts(chat, arg or None))
        if cmd == "/forget":
            if not arg:
                return "Usage: /forget <entity> or /forget all"
            if arg == "all":
                await core.forget_chat(chat)
                return "Forgot everything in this chat."
            gone = await core.forget_entity(chat, arg)
            return f"Forgot {arg}: {gone.facts} fact(s), {gone.messages} message(s)."
        if cmd == "/worlds":
            return render_worlds(await core.worlds(chat))
        if cmd == "/review":
            items = await core.pending(chat)
            if not items:
                return "Nothing waits for review."
            return "\n".join(f"{i + 1}. {render_pending(p)}" for i, p in enumerate(items)) + (
                "\n/approve N or /reject N"
            )
        if cmd in ("/approve", "/reject"):
            items = await core.pending(chat)
            if not arg.isdigit() or not 1 <= int(arg) <= len(items):
                return f"Usage: {cmd} N (see /review)"
            fact = await core.review(chat, items[int(arg) - 1].id, cmd == "/approve")
            return f"Stored: {fact.sentence()}" if fact else "Rejected."
        if cmd.startswith("/"):
            return f"Unknown command {cmd}.\n{HELP}"
        reply = await core.handle_message(chat, IncomingMessage(author="you", text=line))
        return with_follow_up(reply).text
    except NotFound as exc:
        return f"I have nothing called {exc}."
    except InvalidInput as exc:
        return str(exc)
    except CoreError as exc:
        return f"Sorry, that failed: {exc}"


async def _remember(core: CoreApi, chat: str, text: str) -> str:
    storing = stated(core, chat, text, author="you")
    if storing is None:
        return t("telegram.remember_usage", "en")
    return render_ingest(await storing, "en")


async def run_console(
    core: CoreApi,
    *,
    chat: str = "console:local",
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> None:
    stdout.write("graphmem console. " + HELP + "\n")
    while True:
        stdout.write("> ")
        stdout.flush()
        line = await asyncio.to_thread(stdin.readline)
        if not line:
            break
        line = line.strip()
        if line in ("/quit", "/exit"):
            break
        if line:
            stdout.write(await console_command(core, chat, line) + "\n")
