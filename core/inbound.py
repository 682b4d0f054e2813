"""The durable inbound log: the port and its row types (issue 12).

Two records with two jobs, both kept by one adapter (core/store/inbound_log.py, SQLite):

* Deliveries: what a platform handed us (a Telegram update, a Slack event), recorded before the
  platform is told it arrived (Telegram's offset, a webhook's 200, Slack's ack) and marked done
  once handled. A restart hands back the unfinished ones, and a delivery already done is never
  handled (answered) twice.
* Chat records: every message and explicit fact a chat was told, keyed (chat, message id),
  recorded before the graph is touched and marked done only once its facts are written. This is
  the chat's durable record: unfinished ones are ingested again at start, a chat whose graph
  cannot be opened is rebuilt from it, and edits replace the text here as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

# forget: an entity erased by request; created: the chat began while the log was kept, so the
# log holds all of it (only such a chat is rebuilt from the log)
RecordKind = Literal["message", "fact", "forget", "created"]
RECORD_KINDS: tuple[RecordKind, ...] = ("message", "fact", "forget", "created")


@dataclass(frozen=True)
class ChatRecord:
    chat: str
    id: str  # the message id within the chat
    kind: RecordKind
    author: str
    text: str
    ts: datetime
    triple: str  # an explicit fact (kind "fact"): the TripleIn as JSON; "" for a message
    done: bool
    reply_to: str = ""  # the message of the chat it answers (IncomingMessage.reply_to)


@dataclass(frozen=True)
class Delivery:
    source: str  # "telegram", "slack", ...
    id: str  # the platform's id of the delivery (update_id, event_id)
    body: str  # the raw delivery as the platform sent it (JSON)
    done: bool


class InboundLog(Protocol):
    """Blocking calls (a durable commit each); front-ends call them off the event loop when
    latency matters. Implementations are safe to share between threads."""

    # ---- deliveries
    def record_deliveries(self, source: str, items: list[tuple[str, str]]) -> None:
        """Record (id, body) pairs in one durable commit; an id seen before is kept as is."""
        ...

    def delivery(self, source: str, delivery_id: str) -> Delivery | None: ...

    def finish_delivery(self, source: str, delivery_id: str) -> None: ...

    def unfinished_deliveries(self, source: str) -> list[Delivery]:
        """Recorded but not done, oldest first."""
        ...

    # ---- chat records
    def begin(self, record: ChatRecord) -> ChatRecord:
        """Record a message (or explicit fact) as not done, unless its id is already recorded
        in the chat: then the stored record is returned unchanged (done or not)."""
        ...

    def begin_many(self, records: list[ChatRecord]) -> set[str]:
        """`begin` for a batch (a bulk import), in one durable commit: the ids of the records
        that were already recorded and done."""
        ...

    def finish(self, chat: str, record_id: str) -> None: ...

    def finish_many(self, chat: str, record_ids: list[str]) -> None: ...

    def replace_text(self, chat: str, record_id: str, text: str) -> None:
        """An edit: the new text replaces the old one, and the record is not done until the
        correction is applied to the graph."""
        ...

    def records(self, chat: str) -> list[ChatRecord]:
        """Every record of the chat in the order it was first received."""
        ...

    def unfinished(self) -> list[ChatRecord]:
        """Records of every chat not marked done, in the order received."""
        ...

    def forget_chat(self, chat: str) -> None:
        """A user's erase request: the chat's records go too, or a rebuild would undo it."""
        ...

    def erase(self, chat: str, record_ids: list[str]) -> None:
        """A user's erase request for a name: the records of the messages it took away go,
        their bytes with them, or a rebuild would bring them back."""
        ...

    def close(self) -> None: ...
