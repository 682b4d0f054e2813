"""A world merge inside a bulk batch, of a world born in that batch: done on the batch's staged
rows and the in-memory indexes, with no statement.

Why: a bulk import merges young worlds as it goes (core.worlds.merge_touched), and a merge in a
batch runs apart from it (WorldMover.apart): the batch's rows so far are written by statements
(not COPY, to spare a checkpoint), committed, the merge runs and commits, its fold commits.
Measured on `python -m bot ingest` of bench.bulk's 10,000 facts (USE, 2026-12-07, py-spy with
idle samples): 21 merges took 4.9 s of the writing thread's 12.1 s, 3.5 s of it writing the
batch early, where `UNWIND ... MATCH` scans the node tables; 20 of the 21 merged a world born
in the same batch, everything of which was still staged (messages, entities, facts, mentions).

Such a merge changes staged rows in place: their world, the unified entities' facts and
mentions re-pointed to the entity they join (whose new alias is written with the batch), the
duplicates this makes folded and a single-valued predicate's older values closed, as
WorldMerger._consolidate does after the statements of a stored merge. It is taken only when
every fact that fold changes is one of the batch's rows; otherwise the merge takes the long
way (merge.py). The same rows, graph and world counts as that way (tests/worlds/test_merge.py
compares the two, and the chat read back from the database).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from core.models import FactStatus
from core.rows import EntityRow
from core.store.active_graph import ActiveGraph, _reconfirm
from core.store.connection import KuzuConnection, _naive
from core.store.fold import Copy, combined, copies_of, older_values, value_groups
from core.store.messages import MessageLog
from core.store.staging import Staging

# a fold's plan: each kept fact with its copies folded into it; each fact a later value of its
# single-valued predicate closes, with when that value was last said
_Folds = list[tuple[str, list[str]]]
_Closed = list[tuple[str, Any]]
_Fact = dict[str, Any]  # a fact's columns as the fold reads them


class StagedMerger(MessageLog):
    def _merge_staged(
        self,
        src: str,
        dst: str,
        centroid: npt.NDArray[np.float32],
        unify: dict[str, str],
        moved: list[EntityRow],
    ) -> bool:
        """Merge src into dst on the batch's staged rows; False (nothing done) when src was
        not born in the current staged rows or the fold would change a stored fact."""
        st, graph = self._staged, self._graph
        if st is None or graph is None or not self._in_tx or src not in st.fresh:
            return False
        plan = self._fold_plan(graph, st, unify)
        if plan is None:
            return False
        for row in st.messages:
            if row["world"] == src:
                row["world"] = dst
        self.recall.merge(src, dst)
        for row in st.facts.values():
            if row["world"] == src:
                row["world"] = dst
        for fact in graph.by_id.values():
            if fact.world == src:
                fact.world, fact.edge = dst, None
        self._unify_staged(st, graph, unify)
        for row in st.entities:
            if row["world"] == src:
                row["world"] = dst
        self._fold_staged(st, graph, plan)
        a, b = self.worlds[src], self.worlds[dst]
        b.messages, b.facts, b.conf_sum = (
            b.messages + a.messages,
            b.facts + a.facts,
            b.conf_sum + a.conf_sum,
        )
        a.messages, a.facts, a.conf_sum = 0, 0, 0.0
        self._point_world(src, dst, centroid)
        return True

    def _point_world(self, src: str, dst: str, centroid: npt.NDArray[np.float32]) -> None:
        """src's record points to dst (and so do the worlds merged into src before), dst takes
        the merged centroid, src's uses and its latest activity."""
        a, b = self.worlds[src], self.worlds[dst]
        b.centroid = centroid.astype(np.float32)
        b.access_count += a.access_count
        b.last_active = max(a.last_active, b.last_active)
        a.merged_into = dst
        for w in self.worlds.values():
            if w.merged_into == src:
                w.merged_into = dst
                self.upsert_world(w)
        self.upsert_world(a)
        self.upsert_world(b)

    def _unify_staged(self, st: Staging, graph: ActiveGraph, unify: dict[str, str]) -> None:
        """Each unified entity's staged facts and mentions re-pointed to the entity it joins,
        its name an alias of that entity (written with the batch), its row dropped."""
        if not unify:
            return
        uids = {self._u(old): self._u(new) for old, new in unify.items()}
        for row in st.facts.values():
            row["from"] = uids.get(row["from"], row["from"])
            row["to"] = uids.get(row["to"], row["to"])
        mentions: dict[tuple[str, str], None] = {}
        for m, e in st.mentions:
            pair = (m, unify.get(e, e))
            if pair not in st.mentioned:
                mentions[pair] = None
        st.mentions = mentions
        for old, new in unify.items():
            keep = self.entities[new]
            keep.aliases = sorted({*keep.aliases, self.entities[old].key} - {keep.key})
            st.aliases[new] = keep.aliases
            st.aliases.pop(old, None)
            _repoint(graph, old, new, self.recall.row_of)
        st.entities = [r for r in st.entities if r["id"] not in unify]

    def _fold_plan(
        self, graph: ActiveGraph, st: Staging, unify: dict[str, str]
    ) -> tuple[_Folds, _Closed, dict[str, _Fact]] | None:
        """What WorldMerger._consolidate would fold and close (the rules of fold.py) once the
        unified entities' facts hang off the entities they join, and the facts it reads;
        None when it would delete a stored fact (a stored copy newer than one of the
        batch's)."""
        if not unify:
            return [], [], {}
        joined = set(unify.values())
        near = {
            f for e in {*joined, *unify} for f in (*graph.out.get(e, ()), *graph.inn.get(e, ()))
        }
        rows: list[Copy] = []
        for fid in near:
            fact = graph.by_id.get(fid)
            if fact is None:
                continue
            a, b = unify.get(fact.src, fact.src), unify.get(fact.dst, fact.dst)
            if a in joined or b in joined:
                row = st.facts.get(fid)
                since = row["valid_from"] if row is not None else _naive(fact.valid_from)
                rows.append(Copy(fid, a, fact.predicate, b, since))
        groups = copies_of(rows)
        folds = [(g[0].id, [c.id for c in g[1:]]) for g in groups if len(g) > 1]
        if any(f not in st.facts for _, extra in folds for f in extra):
            return None
        values = value_groups([g[0] for g in groups], self.single_valued)
        read = {f for keep, extra in folds for f in (keep, *extra)}
        facts = self._facts_read(graph, st, read | {f for group in values for f in group})
        said = {keep: _said([facts[f] for f in (keep, *extra)]) for keep, extra in folds}
        closed = older_values(values, lambda f: said.get(f) or _said([facts[f]]))
        return folds, closed, facts

    def _facts_read(self, graph: ActiveGraph, st: Staging, ids: set[str]) -> dict[str, _Fact]:
        """These active facts as a fold reads them: the batch's rows as they are staged,
        a stored fact from the graph and its confirmed_at from the database, read without
        writing the batch (the read is of rows stored before it)."""
        out: dict[str, _Fact] = {}
        for fid in sorted(ids):
            row = st.facts.get(fid)
            if row is not None:
                out[fid] = row
                continue
            fact = graph.by_id[fid]
            changed = st.reconfirmed.get(fid, {})
            confirmed = changed.get("now")
            if confirmed is None:
                got = KuzuConnection._rows(
                    self,
                    "MATCH (a:Entity {uid: $a})-[f:FACT]->(b:Entity {uid: $b}) WHERE "
                    "a.chat = $chat AND f.chat = $chat AND f.id = $id RETURN f.confirmed_at",
                    {"a": self._u(fact.src), "b": self._u(fact.dst), "id": fid},
                )
                confirmed = got[0][0] if got else None
            out[fid] = {
                "id": fid,
                "confidence": fact.confidence,
                "sources": list(fact.sources),
                "valid_from": _naive(fact.valid_from),
                "confirmed_at": confirmed,
                "world": fact.world,
                "stored": (fact.src, fact.dst),
            }
        return out

    def _fold_staged(
        self, st: Staging, graph: ActiveGraph, plan: tuple[_Folds, _Closed, dict[str, _Fact]]
    ) -> None:
        """The plan applied as WorldMerger._consolidate applies it to stored facts: to the
        batch's rows, or as the batch's changes of a stored fact (written with the batch,
        as a re-confirmation or a supersession of it is), and to the graph and the counts."""
        folds, closed, facts = plan
        for keep, extra in folds:
            group = [facts[f] for f in (keep, *extra)]
            confidence, sources, confirmed = combined(
                (r["confidence"], r["sources"], _said([r])) for r in group
            )
            row = group[0]
            self._fact_stat(row["world"], 0, confidence - float(row["confidence"]))
            if "stored" in row:
                self._set_fact(keep, row["stored"], c=confidence, now=confirmed, src=list(sources))
            row["confidence"], row["sources"], row["confirmed_at"] = confidence, sources, confirmed
            _reconfirm(graph, fact_id=keep, confidence=confidence, sources=list(sources))
            for fid in extra:
                gone = st.facts.pop(fid)
                self._fact_stat(gone["world"], -1, -float(gone["confidence"]))
                fact = graph.by_id.get(fid)
                graph.forget(fid, (fact.src, fact.dst) if fact else ())
        for fid, newest in closed:
            row = facts[fid]
            if "stored" in row:
                self._set_fact(fid, row["stored"], st=FactStatus.SUPERSEDED.value, now=newest)
            else:
                row["status"], row["valid_to"] = FactStatus.SUPERSEDED.value, newest
            self._fact_stat(row["world"], -1, -float(row["confidence"]))
            graph.supersede(fid)


def _said(rows: list[dict[str, Any]]) -> Any:
    """When the newest of these staged facts was last stated or confirmed."""
    return max(r["confirmed_at"] or r["valid_from"] for r in rows)


def _repoint(graph: ActiveGraph, old: str, new: str, row_of: Mapping[str, int]) -> None:
    """The graph after a unified entity's facts and mentions were copied onto the entity it
    joins and it was deleted (merge_worlds): the same fact ids, other end points."""
    for fact in list(graph.out.pop(old, {}).values()):
        graph.inn.get(fact.dst, {}).pop(fact.id, None)
        fact.src, fact.edge = new, None
        if fact.dst == old:  # a fact from the entity to itself
            fact.dst = new
        graph.out.setdefault(new, {})[fact.id] = fact
        graph.inn.setdefault(fact.dst, {})[fact.id] = fact
    for fact in list(graph.inn.pop(old, {}).values()):
        graph.out.get(fact.src, {}).pop(fact.id, None)
        fact.dst, fact.edge = new, None
        graph.out.setdefault(fact.src, {})[fact.id] = fact
        graph.inn.setdefault(new, {})[fact.id] = fact
    graph.touching.setdefault(new, {}).update(graph.touching.pop(old, {}))
    said = {**graph.mentions.get(new, {}), **graph.mentions.pop(old, {})}
    if said:  # oldest message first, as a reload orders them
        graph.mentions[new] = dict.fromkeys(sorted(said, key=lambda m: row_of.get(m, len(row_of))))
