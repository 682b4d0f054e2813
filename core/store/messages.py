"""A chat's messages: stored first, listed, found by mention and provenance; and the
re-embedding of a chat written with another model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from core.index.vectors import VectorMatrix
from core.rows import Extraction, MessageRow
from core.store.connection import _naive, _utc
from core.store.graph import GraphReader

log = logging.getLogger(__name__)


class MessageLog(GraphReader):
    def add_message(
        self,
        *,
        message_id: str,
        author: str,
        text: str,
        ts: datetime,
        world: str,
        extraction: str,
        embedding: npt.NDArray[np.float32],
    ) -> MessageRow:
        self.message_seq += 1
        row = {
            "uid": self._u(message_id),
            "id": message_id,
            "seq": self.message_seq,
            "author": author,
            "text": text,
            "ts": _naive(ts),
            "world": world,
            "x": extraction,
        }
        if self._staged is not None:  # a bulk batch's: written with the batch (staging.py)
            self._staged.messages.append({**row, "emb": embedding})
            self._staged.batch_messages.add(message_id)
        else:
            self._exec(
                "CREATE (:Message {uid: $uid, chat: $chat, id: $id, seq: $seq, author: $author, "
                "text: $text, ts: $ts, world: $world, extraction: $x, emb: $emb})",
                {**row, "emb": self._packed(embedding)},
            )
        self.message_ids.add(message_id)
        self.message_vectors.add(message_id, self._as_stored(embedding))
        if world in self.worlds:
            self.worlds[world].messages += 1
        self.last_world, self.last_message_ts = world, _utc(ts)
        self.recall.add(message_id, author, text, _utc(ts) or ts, world)
        return MessageRow(message_id, self.message_seq, author, text, ts, world, extraction)

    def add_reply(self, message_id: str, parent_id: str) -> None:
        """The message replies to an earlier one of the chat (a Telegram reply, a Slack
        thread): kept as a Record, the small-kinds table (core/store/shard.py)."""
        row = {"rid": self._u(f"reply:{message_id}"), "id": message_id, "p": parent_id}
        if self._staged is not None:  # a bulk batch's: written with the batch (staging.py)
            self._staged.replies.append(row)
        else:
            self._exec(
                "CREATE (:Record {uid: $rid, chat: $chat, kind: 'reply', key: $id, body: $p})",
                row,
            )
        self.recall.link(message_id, parent_id)

    def set_extraction(self, message_id: str, status: str) -> None:
        self._exec(
            "MATCH (m:Message {uid: $u}) WHERE m.chat = $chat SET m.extraction = $x",
            {"u": self._u(message_id), "x": status},
        )

    def messages(self, ids: Sequence[str]) -> list[MessageRow]:
        if not ids:
            return []
        rows = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat AND m.uid IN $ids RETURN m.id, m.seq, "
            "m.author, m.text, m.ts, m.world, m.extraction",
            {"ids": self._us(ids)},
        )
        found = {
            r[0]: MessageRow(r[0], r[1], r[2], r[3], _utc(r[4]) or datetime.now(UTC), r[5], r[6])
            for r in rows
        }
        return [found[i] for i in ids if i in found]

    def messages_with_extraction(self, status: str, limit: int = 100) -> list[MessageRow]:
        rows = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat AND m.extraction = $x "
            "RETURN m.id ORDER BY m.seq LIMIT $n",
            {"x": status, "n": limit},
        )
        return self.messages([r[0] for r in rows])

    def message_count(self) -> int:
        return len(self.message_ids)

    def last_seq(self) -> int:
        """The sequence number of the chat's newest message (0: none yet)."""
        return self.message_seq

    def routed_since(self, seq: int) -> int:
        """Messages stored after `seq` that came as messages: not stated facts (explicit) and
        not restored from an export (what the regrouping job's growth counts,
        core/pipeline/due.py)."""
        rows = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat AND m.seq > $s AND NOT m.extraction IN $x "
            "RETURN count(*)",
            {"s": seq, "x": [Extraction.EXPLICIT.value, Extraction.IMPORT.value]},
        )
        return int(rows[0][0]) if rows else 0

    def recent_messages(self, limit: int = 5) -> list[MessageRow]:
        """The last `limit` messages, oldest first (hand-off cards show them)."""
        rows = self._rows(
            "MATCH (m:Message) WHERE m.chat = $chat RETURN m.id ORDER BY m.seq DESC LIMIT $n",
            {"n": limit},
        )
        return self.messages([r[0] for r in reversed(rows)])

    def mention_count(self, message_id: str) -> int:
        """How many entities the stored message mentions (MENTIONS edges in the database)."""
        rows = self._rows(
            "MATCH (m:Message {uid: $m})-[r:MENTIONS]->(:Entity) WHERE m.chat = $chat "
            "AND r.chat = $chat RETURN count(r)",
            {"m": self._u(message_id)},
        )
        return int(rows[0][0]) if rows else 0

    def mentions_of(self, entity_ids: Sequence[str], limit: int = 50) -> list[str]:
        """Messages that mention any of the entities, latest first."""
        mentions = self.active_graph().mentions
        found = {m for e in entity_ids for m in mentions.get(e, ())}
        order = self.recall.row_of
        return sorted(found, key=lambda m: order.get(m, -1), reverse=True)[:limit]

    def bare_entities(self, entity_ids: Iterable[str]) -> list[str]:
        """Those of the entities that no message mentions and no fact (any status) touches:
        a torn batch's nodes, which came back from the WAL without their edges."""
        graph = self.active_graph()
        return [e for e in entity_ids if not graph.mentions.get(e) and not graph.touching.get(e)]

    def fact_sources(self, entity_ids: Sequence[str], limit: int = 50) -> list[str]:
        """Source messages of the facts (any status) whose subject or object is one of ids,
        latest facts first: the graph's provenance, for evidence."""
        if not entity_ids:
            return []
        graph = self.active_graph()  # the provenance of every fact, in memory
        facts = {f for e in entity_ids for f in graph.touching.get(e, ())}
        latest = sorted(facts, key=lambda f: (graph.provenance[f][0], f), reverse=True)
        out: dict[str, None] = {}
        for fact_id in latest[:limit]:
            for src in graph.provenance[fact_id][1]:
                if src in self.message_ids:
                    out.setdefault(src)
        return list(out)

    def outdated_sources(self, entity_ids: Sequence[str]) -> set[str]:
        """Messages whose facts about these entities were all superseded since (see
        ActiveGraph.outdated_sources): history, not what holds now."""
        return self.active_graph().outdated_sources(entity_ids) if entity_ids else set()

    def replaced(self, subject: str, predicate: str, obj: str) -> bool:
        """Was this fact (entity ids) true once and replaced since (ActiveGraph.replaced)?"""
        return self.active_graph().replaced(subject, predicate, obj)

    def repair_vectors(
        self, embed: Callable[[list[str]], npt.NDArray[np.float32]], batch: int = 256
    ) -> int:
        """Embed again the entities and messages that were loaded without a vector (or with
        one of zeros), write them back and index them; returns how many.

        Measured on kuzu 0.11.3: the FLOAT[] vector of an entity created after its table was
        checkpointed can read back as zeros once the shard checkpoints again (reproduced by
        replaying the store's own statements with the sparse vectors of the test embedder; not
        seen with USE or MiniLM vectors over ~40 entities and frequent checkpoints). Without
        this, such an entity silently stops being found by meaning after a restart. The text
        embedded is what the write path embedded: the name, or the message's text. (Schema 4
        stores these vectors as text, core/store/packed.py, which that trap was not seen to
        touch; the repair stays for any vector that reads back empty.)"""
        todo = self.unembedded
        self.unembedded = {}
        entities = [(e, self.entities[e].name) for e in todo.get("e", []) if e in self.entities]
        messages: list[tuple[str, str]] = []
        if todo.get("m"):
            rows = self._rows(
                "MATCH (m:Message) WHERE m.chat = $chat AND m.uid IN $ids RETURN m.id, m.text",
                {"ids": self._us(todo["m"])},
            )
            messages = [(r[0], r[1]) for r in rows]
        with self.transaction():
            for table, items, matrix in (
                ("Entity", entities, self.entity_vectors),
                ("Message", messages, self.message_vectors),
            ):
                self._embed_into(table, items, matrix, embed, batch)
        return len(entities) + len(messages)

    def _embed_into(
        self,
        table: str,
        items: list[tuple[str, str]],
        matrix: VectorMatrix,
        embed: Callable[[list[str]], npt.NDArray[np.float32]],
        batch: int,
    ) -> None:
        """Embed (id, text) items in batches, store each vector in `table` and in `matrix`."""
        for i in range(0, len(items), batch):
            chunk = items[i : i + batch]
            vecs = embed([text for _, text in chunk])
            for (item_id, _), vec in zip(chunk, vecs, strict=True):
                self._exec(
                    f"MATCH (x:{table} {{uid: $u}}) WHERE x.chat = $chat SET x.emb = $e",
                    {"u": self._u(item_id), "e": self._packed(vec)},
                )
                matrix.add(item_id, self._as_stored(vec))

    def reembed(
        self, embed: Callable[[list[str]], npt.NDArray[np.float32]], batch: int = 256
    ) -> None:
        """Vectors of two models never mix: re-embed every entity and message, then record
        the new model. Runs once, when a chat written with another model is opened (or one
        whose messages' vectors embedded "author: text", before schema.MESSAGE_VECTORS)."""
        entities = [(e.id, e.name) for e in self.entities.values()]
        rows = self._rows("MATCH (m:Message) WHERE m.chat = $chat RETURN m.id, m.text, m.world")
        self.entity_vectors = VectorMatrix(self.dim)
        self.message_vectors = VectorMatrix(self.dim)
        with self.transaction():
            for table, items, matrix in (
                ("Entity", entities, self.entity_vectors),
                ("Message", [(r[0], r[1]) for r in rows], self.message_vectors),
            ):
                self._embed_into(table, items, matrix, embed, batch)
            # centroids are recomputed from their messages' new vectors (the text alone, as
            # routing embeds it)
            sums: dict[str, npt.NDArray[np.float32]] = {}
            for r in rows:
                vec = self.message_vectors.vector(r[0])
                if vec is not None:
                    wid = self.resolve_world(r[2] or "")
                    sums[wid] = sums.get(wid, np.zeros(self.dim, np.float32)) + vec
            for w in list(self.worlds.values()):
                total = sums.get(self.resolve_world(w.id), np.zeros(self.dim, np.float32))
                norm = float(np.linalg.norm(total))
                w.centroid = (total / max(norm, 1e-12)).astype(np.float32)
                self.upsert_world(w)
            self.set_model(self._model_name)
        log.info(
            "re-embedded %d entities and %d messages with %s",
            len(entities),
            len(rows),
            self._model_name,
        )
