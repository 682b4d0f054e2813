"""Resolve and write: each triple checked against the ontology, its names resolved to entities,
low confidence sent to review, the rest written through the GraphStore port (which re-confirms
or supersedes).

Identity order (issue 16): a valid stable id (chat-wide) beats a name; an exact name (case,
punctuation, legal form normalised; per world) beats a lemma; a lemma resolves only names read
from free text (`loose`), never an explicitly stated one, so two entities each stated with their
own name stay two. A name with two candidates is refused, not guessed."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence, Set

from core.language import clean_name, name_key
from core.models import REVIEW_THRESHOLD, IngestResult, Rejection, TripleIn
from core.pipeline.context import Stage
from core.pipeline.select import entity_label
from core.ports import GraphStore, Vector
from core.rows import PlannedEntity, PlannedFact

log = logging.getLogger(__name__)


class _Unresolvable(Exception):
    """A triple's name cannot become an entity (e.g. nothing left after normalising)."""


def _kind_conflict(store: GraphStore, names: list[tuple[str, str, str]], earlier: Set[str]) -> str:
    """'Java is a concept in this world' for each name (name, entity id, kind) the world
    already knows, stored or made by an earlier triple of the same message ("Java is an island,
    Jakarta is located on Java" was refused, not queued): a triple the ontology refuses because
    of such a kind clashes with what the world calls the name (the offline extractor even
    gives the known kind back)."""
    return "; ".join(
        f"{name} is a {kind} in this world"
        for name, eid, kind in names
        if eid in store.entities or eid in earlier
    )


class Writer(Stage):
    def write_triples(
        self,
        store: GraphStore,
        triples: Sequence[TripleIn],
        *,
        source: str,
        world: str,
        names: Mapping[str, Vector] | None = None,
        loose: bool = True,
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
                earlier = set(fresh)  # made by the message's triples before this one
                try:
                    s_id, s_kind = self.resolve(
                        store,
                        world,
                        triple.subject,
                        triple.subject_kind,
                        triple.subject_ident,
                        fresh,
                        loose=loose,
                    )
                    o_id, o_kind = self.resolve(
                        store,
                        world,
                        triple.object,
                        triple.object_kind,
                        triple.object_ident,
                        fresh,
                        loose=loose,
                    )
                except _Unresolvable as exc:
                    reason = str(exc)
                else:  # a known entity keeps its first kind: check the triple against it
                    reason = self.ontology.check(s_kind, triple.predicate, o_kind)
                    conflict = _kind_conflict(
                        store,
                        [(triple.subject, s_id, s_kind), (triple.object, o_id, o_kind)],
                        earlier,
                    )
                    if reason is not None and conflict:
                        # the triple is fine as stated; it clashes with what this world already
                        # calls the name: a person decides (issue 15), never a silent refusal
                        why = f"{conflict}; {reason}"
                        log.info("kind conflict in world %s: %s", world, why)
                        sources = [source] if source else []
                        result.pending.append(store.add_pending(triple, sources, now, why))
                        continue
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
        *,
        loose: bool = True,
    ) -> tuple[str, str]:
        """(entity id, kind). Identifiers are chat-wide; bare names per world."""
        display = clean_name(name)
        key = name_key(display)
        if not key:
            raise _Unresolvable(f"empty name {name!r}")
        ident = self.extractor.normalise_ident(ident)  # an invalid id is no identity
        eid = self.identify(store, world, display, ident, fresh, loose=loose)
        existing = store.entities.get(eid)
        if existing is not None and existing.kind != kind:
            return eid, existing.kind  # the first kind sticks; the predicate check decides
        if existing is None:
            prev = fresh.get(eid)
            if prev is not None:
                return eid, prev[0]
            fresh[eid] = (kind, display, key, ident or "")
        return eid, kind

    def identify(
        self,
        store: GraphStore,
        world: str,
        display: str,
        ident: str | None,
        fresh: dict[str, tuple[str, str, str, str]],
        *,
        loose: bool,
    ) -> str:
        """The entity a name (and id) stands for, known or new; see the module's docstring."""
        index = self.names(store)
        if ident:
            if ident in store.by_ident:
                return store.by_ident[ident]
            # the same name said before without an id is this entity, unless it has another id
            bare = [
                i
                for i in index.find([world], display, levels="e").ids
                if not store.entities[i].ident
            ]
            if len(bare) == 1:
                store.set_ident(bare[0], ident)
                return bare[0]
            return "e_" + hashlib.sha1(ident.encode()).hexdigest()[:16]
        match = index.find([world], display, levels="el" if loose else "e")
        if match.ambiguous:
            options = "; ".join(entity_label(store, i) for i in match.ids)
            raise _Unresolvable(f"{display!r} could name more than one entity: {options}")
        if match.ids:
            return match.ids[0]
        rules = self.ctx.name_rules
        eid = _local_id(store, world, name_key(display))
        taken = store.entities.get(eid)
        planned = fresh.get(eid)
        if loose:  # free text: "платежей" and "платежи" in one message are one entity
            return eid
        if (taken is not None and rules.exact_key(taken.name) != rules.exact_key(display)) or (
            planned is not None and rules.exact_key(planned[1]) != rules.exact_key(display)
        ):  # a lemma twin stated with its own name: an entity of its own
            eid = _local_id(store, world, f"exact|{rules.exact_key(display)}")
        return eid

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


def _local_id(store: GraphStore, world: str, seed: str) -> str:
    """A new entity's id, made from its world and name so that every mention of the name in
    one batch plans the same entity. An id stays with its entity when the regrouping job or a
    merge takes it to another world, so an id held by an entity of another world is skipped
    for the next one of its sequence. Reused, it made the name said again in the first world
    resolve to the moved entity, and that world's facts joined another world's entities."""
    eid = "e_" + hashlib.sha1(f"{world}|{seed}".encode()).hexdigest()[:16]
    n = 0
    while (taken := store.entities.get(eid)) is not None and taken.world != world:
        n += 1
        eid = "e_" + hashlib.sha1(f"{world}|{seed}|{n}".encode()).hexdigest()[:16]
    return eid
