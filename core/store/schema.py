"""A chat's model metadata in its shard (the schema itself is the shard's: core/store/shard.py;
chats of older versions, with one database each, are moved in by core/store/transfer.py)."""

from __future__ import annotations

import logging

from core.store.shard import SCHEMA_VERSION
from core.store.world_records import WorldRecords

log = logging.getLogger(__name__)

# What a message's stored vector embeds: its text alone (the routing vector too). Chats
# written before (their vector embedded "author: text") lack this marker and are re-embedded
# once when opened, as a chat of another model is: the two kinds of vector never mix.
MESSAGE_VECTORS = "text"


class ChatSchema(WorldRecords):
    _model_name: str
    model_mismatch: tuple[str | None, str | None] | None

    def _set_meta(self, key: str, value: str) -> None:
        self._exec(
            "MERGE (r:Record {uid: $rid, chat: $chat}) SET r.kind = 'meta', r.key = $k, "
            "r.body = $v",
            {"rid": self._u(f"meta:{key}"), "k": key, "v": value},
        )

    def meta(self, key: str) -> str | None:
        """A value the core keeps with the chat (set_meta), None when never set."""
        rows = self._rows(
            "MATCH (r:Record {uid: $rid}) WHERE r.chat = $chat AND r.kind = 'meta' RETURN r.body",
            {"rid": self._u(f"meta:{key}")},
        )
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._set_meta(key, value)

    def _check_model(self, model_name: str) -> None:
        rows = self._rows(
            "MATCH (r:Record) WHERE r.chat = $chat AND r.kind = 'meta' RETURN r.key, r.body"
        )
        meta = dict(rows)
        if not meta:
            for key, value in (
                ("schema", SCHEMA_VERSION),
                ("model", model_name),
                ("dim", str(self.dim)),
                ("message_vectors", MESSAGE_VECTORS),
            ):
                self._set_meta(key, value)
            return
        if (
            meta.get("model") != model_name
            or meta.get("dim") != str(self.dim)
            or meta.get("message_vectors") != MESSAGE_VECTORS
        ):
            # vectors of two models (or two kinds) never mix: the core re-embeds on open
            self.model_mismatch = (meta.get("model"), meta.get("dim"))

    def set_model(self, model_name: str) -> None:
        self._set_meta("model", model_name)
        self._set_meta("dim", str(self.dim))
        self._set_meta("message_vectors", MESSAGE_VECTORS)
        self.model_mismatch = None
