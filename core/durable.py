"""What the core does with the durable inbound log (core/inbound.py): record a message before
the graph is touched, mark it done once its facts are written, ingest what a crash left
unfinished, and rebuild a chat whose graph cannot be opened.

The graph is derived from the log: a message is recorded first (one durable SQLite commit),
then stored with its facts in one Kùzu transaction, then marked done. A kill anywhere in
between leaves the record unfinished, and `recover` runs it again at the next start; the graph
recognises the message id, so nothing is stored twice.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from core.contract import CoreApi
from core.errors import CoreError
from core.inbound import ChatRecord, InboundLog, RecordKind
from core.models import IncomingMessage, TripleIn

log = logging.getLogger(__name__)


async def begin(
    inbound: InboundLog | None,
    chat: str,
    msg_id: str,
    *,
    kind: RecordKind,
    author: str,
    text: str,
    ts: datetime,
    triple: str = "",
    reply_to: str = "",
) -> bool:
    """Record the message; True when its record was already there and done (its facts were
    written: a repeat of it is only a duplicate, never a message a kill left torn)."""
    if inbound is None:
        return False
    record = ChatRecord(chat, msg_id, kind, author, text, ts, triple, False, reply_to)
    return (await asyncio.to_thread(inbound.begin, record)).done


async def begin_many(inbound: InboundLog | None, records: list[ChatRecord]) -> set[str]:
    """`begin` for a batch: the ids whose records were already done."""
    if inbound is None or not records:
        return set()
    return await asyncio.to_thread(inbound.begin_many, records)


async def finish_many(inbound: InboundLog | None, chat: str, ids: list[str]) -> None:
    if inbound is not None and ids:
        await asyncio.to_thread(inbound.finish_many, chat, ids)


async def finish(inbound: InboundLog | None, chat: str, msg_id: str) -> None:
    if inbound is not None:
        await asyncio.to_thread(inbound.finish, chat, msg_id)


CREATED = "@created"


def record_created(inbound: InboundLog, chat: str, ts: datetime) -> None:
    """A new chat: from now on the log holds everything it is told (blocking; the pool calls it
    in its worker thread when it creates the chat's directory)."""
    inbound.begin(ChatRecord(chat, CREATED, "created", "", "", ts, "", done=True))
    inbound.finish(chat, CREATED)


def rebuildable(inbound: InboundLog, chat: str) -> bool:
    """Only a chat the log holds from its start is rebuilt from it; one older than the log
    would lose what came before, so its failure is reported instead (its files untouched)."""
    return any(r.kind == "created" for r in inbound.records(chat))


async def recover(core: CoreApi) -> int:
    """Ingest again every record a crash left unfinished (at start, before new input);
    returns how many were taken up. The graph knows the ids already stored, so a message is
    never stored twice, and one whose facts were cut short gets them now."""
    inbound = core.inbound
    if inbound is None:
        return 0
    records = await asyncio.to_thread(inbound.unfinished)
    for rec in records:
        try:
            if rec.kind == "created":  # recorded done; nothing to take up
                await finish(inbound, rec.chat, rec.id)
            elif rec.kind == "forget":  # an erase request a kill cut short: finish it
                await core.finish_forget(rec.chat, rec.text, rec.id)
            elif rec.kind == "fact":
                triple = TripleIn.model_validate_json(rec.triple)
                await core.remember_triple(rec.chat, triple, author=rec.author, message_id=rec.id)
            else:
                said = IncomingMessage(
                    author=rec.author,
                    text=rec.text,
                    message_id=rec.id,
                    ts=rec.ts,
                    reply_to=rec.reply_to or None,
                )
                await core.remember_message(rec.chat, said)
        except CoreError as exc:  # refused now means refused then: do not retry forever
            log.warning("chat=%s unfinished record %s not taken up: %s", rec.chat, rec.id, exc)
            await finish(inbound, rec.chat, rec.id)
        except Exception:  # a bug, not the record: the bot still starts and takes up the rest
            # kept unfinished, so the start after a fix takes it up (raised, it stopped every
            # start: one message that hit an extractor bug kept the bot down)
            log.exception("chat=%s unfinished record %s failed; kept for later", rec.chat, rec.id)
    if records:
        log.info("took up %d unfinished inbound records", len(records))
    return len(records)
