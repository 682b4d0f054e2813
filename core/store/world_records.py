"""A chat's worlds as Record rows: write, rename, delete, count."""

from __future__ import annotations

from core.rows import (
    WorldRow,
)
from core.store.connection import _naive
from core.store.indexes import ChatIndexes


class WorldRecords(ChatIndexes):
    def upsert_world(self, world: WorldRow) -> None:
        self._put_world(world)
        self.worlds[world.id] = world
        self._sync_world_vector(world)

    def _put_world(self, world: WorldRow) -> None:
        self._exec(
            "MERGE (w:Record {uid: $rid, chat: $chat}) SET w.kind = 'world', w.key = $id, "
            "w.topic = $topic, "
            "w.centroid = $c, w.access_count = $n, w.created_at = $created, "
            "w.last_active = $active, w.merged_into = $merged",
            {
                "rid": self._u(f"world:{world.id}"),
                "id": world.id,
                "topic": world.topic,
                "c": world.centroid.tolist(),
                "n": world.access_count,
                "created": _naive(world.created_at),
                "active": _naive(world.last_active),
                "merged": world.merged_into,
            },
        )

    def rename_world(self, world_id: str, topic: str) -> None:
        w = self.worlds.get(world_id)
        if w is not None:
            w.topic = topic
            self._exec(
                "MATCH (w:Record {uid: $rid}) WHERE w.chat = $chat SET w.topic = $t",
                {"rid": self._u(f"world:{world_id}"), "t": topic},
            )

    def delete_world(self, world_id: str) -> None:
        """Remove a dead world (no active facts, no recent messages) and the merged shells that
        point to it. Its messages stay: they are the chat's record."""
        ids = [world_id, *(w.id for w in self.worlds.values() if w.merged_into == world_id)]
        self._exec(
            "MATCH (w:Record) WHERE w.chat = $chat AND w.uid IN $rids DELETE w",
            {"rids": self._us(f"world:{i}" for i in ids)},
        )
        for wid in ids:
            self.worlds.pop(wid, None)
        self.world_vectors.remove(set(ids))

    def world_counts(self) -> dict[str, tuple[int, float, int]]:
        """world id -> (active facts, mean confidence, messages)."""
        out: dict[str, tuple[int, float, int]] = {}
        for wid, n, mean in self._rows(
            "MATCH ()-[f:FACT]->() WHERE f.chat = $chat AND f.status = 'active' "
            "RETURN f.world, count(*), avg(f.confidence)"
        ):
            out[wid] = (int(n), float(mean or 0.0), 0)
        for wid, n in self._rows("MATCH (m:Message) WHERE m.chat = $chat RETURN m.world, count(*)"):
            facts, mean, _ = out.get(wid, (0, 0.0, 0))
            out[wid] = (facts, mean, int(n))
        return out
