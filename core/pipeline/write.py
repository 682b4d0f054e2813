"""Resolve and write: each triple checked against the ontology, its names resolved to entities
(identifiers chat-wide, lemmatised names per world), low confidence sent to review, the rest
written through the GraphStore port (which re-confirms or supersedes)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence

from core.language import clean_name, name_key
from core.models import REVIEW_THRESHOLD, IngestResult, Rejection, TripleIn
from core.pipeline.context import Stage
from core.ports import GraphStore, Vector
from core.rows import PlannedEntity, PlannedFact

log = logging.getLogger(__name__)


class _Unresolvable(Exception):
    """A triple's name cannot become an entity (e.g. nothing left after normalising)."""


class Writer(Stage):
    def write_triples(
        self,
        store: GraphStore,
        triples: Sequence[TripleIn],
        *,
        source: str,
        world: str,
        names: Mapping[str, Vector] | None = None,
    ) -> IngestResult:
        """names: vectors of names embedded beforehand (a bulk import's batch), by name."""
        now = self.clock.now()
        result = IngestResult(message_id=source, world=world)
        planned: list[PlannedFact] = []
        fresh: dict[
            str, tuple[str, str, str, str]
        ] = {}  # new entity id -> (kind, name, key, ident)
        for triple in triples:
            reason = self.ontology.check(triple.subject_kind, triple.predicate, triple.object_kind)
            if reason is None:
                try:
                    s_id, s_kind = self.resolve(
                        store,
                        world,
                        triple.subject,
                        triple.subject_kind,
                        triple.subject_ident,
                        fresh,
                    )
                    o_id, o_kind = self.resolve(
                        store, world, triple.object, triple.object_kind, triple.object_ident, fresh
                    )
                except _Unresolvable as exc:
                    reason = str(exc)
                else:  # a known entity keeps its first kind: check the triple against it
                    reason = self.ontology.check(s_kind, triple.predicate, o_kind)
            if reason is not None:
                log.info("rejected triple (%s) in world %s: %s", triple.predicate, world, reason)
                result.rejected.append(Rejection(triple=triple, reason=reason))
                continue
            if triple.confidence < REVIEW_THRESHOLD:
                result.pending.append(store.add_pending(triple, [source] if source else [], now))
                continue
            pred = self.ontology.predicates[triple.predicate.strip().upper()]
            planned.append(
                PlannedFact(
                    subject=self.planned(store, world, s_id, s_kind, fresh),
                    predicate=pred.name,
                    object=self.planned(store, world, o_id, o_kind, fresh),
                    confidence=triple.confidence,
                    single_valued=pred.cardinality == "one",
                )
            )
        if planned:
            planned = self.attach_embeddings(planned, fresh, names or {})
            outcome = store.write_facts(planned, source=source, now=now, world=world)
            result.stored = outcome.stored
            result.superseded = outcome.superseded
        return result

    def resolve(
        self,
        store: GraphStore,
        world: str,
        name: str,
        kind: str,
        ident: str | None,
        fresh: dict[str, tuple[str, str, str, str]],
    ) -> tuple[str, str]:
        """(entity id, kind). Identifiers are chat-wide; bare names per world."""
        display = clean_name(name)
        key = name_key(display)
        if not key:
            raise _Unresolvable(f"empty name {name!r}")
        if ident:
            eid = store.by_ident.get(ident) or "e_" + hashlib.sha1(ident.encode()).hexdigest()[:16]
        else:
            eid = store.by_key.get((world, key)) or (
                "e_" + hashlib.sha1(f"{world}|{key}".encode()).hexdigest()[:16]
            )
        existing = store.entities.get(eid)
        if existing is not None and existing.kind != kind:
            return eid, existing.kind  # the first kind sticks; the predicate check decides
        if existing is None:
            prev = fresh.get(eid)
            if prev is not None:
                return eid, prev[0]
            fresh[eid] = (kind, display, key, ident or "")
        return eid, kind

    def planned(
        self,
        store: GraphStore,
        world: str,
        eid: str,
        kind: str,
        fresh: dict[str, tuple[str, str, str, str]],
    ) -> PlannedEntity:
        ent = store.entities.get(eid)
        if ent is not None:
            return PlannedEntity(eid, ent.kind, ent.name, ent.key, ent.world, ent.ident, None)
        f_kind, name, key, ident = fresh[eid]
        return PlannedEntity(eid, f_kind, name, key, world, ident, None)

    def attach_embeddings(
        self,
        planned: list[PlannedFact],
        fresh: dict[str, tuple[str, str, str, str]],
        known: Mapping[str, Vector],
    ) -> list[PlannedFact]:
        names = {eid: fresh[eid][1] for eid in fresh}
        if not names:
            return planned
        by_id = {eid: known[name] for eid, name in names.items() if name in known}
        ids = [eid for eid in names if eid not in by_id]
        if ids:
            by_id.update(zip(ids, self.embedder.embed([names[i] for i in ids]), strict=True))

        def with_vec(e: PlannedEntity) -> PlannedEntity:
            vec = by_id.get(e.id)
            return (
                e
                if vec is None
                else PlannedEntity(e.id, e.kind, e.name, e.key, e.world, e.ident, vec)
            )

        return [
            PlannedFact(
                with_vec(p.subject), p.predicate, with_vec(p.object), p.confidence, p.single_valued
            )
            for p in planned
        ]
