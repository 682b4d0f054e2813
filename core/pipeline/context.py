"""What every pipeline stage shares: the ports and the configuration, bundled once by Core.

Core (core/service.py) builds one Stage context and hands it to each stage (ingest, write,
retrieve, answer, maintenance), as graphiti bundles its driver, embedder and LLM client."""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.calibration import Calibration, calibrate
from core.config import CoreConfig
from core.errors import InvalidInput
from core.extract import OfflineExtractor
from core.identity import NameIndex, NameRules
from core.inbound import InboundLog
from core.language import detect_language, key_tokens, name_key, sanitize
from core.pipeline.due import RegroupDue
from core.ports import Clock, Embedder, GraphStore, GraphStores, Llm
from core.questions import VerbForms
from core.seeds import seed_cutoff
from core.texts import t
from core.world_names import OfflineNaming
from core.worlds import WorldParams
from ontology import Ontology


class RouteVectors:
    """The routing vectors (the text alone) of recent messages, so the regrouping job, run
    often while a chat has young worlds, embeds only what it has not seen. Keyed by a hash of
    the text (no message text kept here); bounded, oldest dropped first."""

    def __init__(self, limit: int = 8192) -> None:
        self.limit = limit
        self._vectors: OrderedDict[bytes, np.ndarray[Any, np.dtype[np.float32]]] = OrderedDict()

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()

    def put(self, text: str, vector: np.ndarray[Any, np.dtype[np.float32]]) -> None:
        key = self._key(text)
        self._vectors[key] = vector
        self._vectors.move_to_end(key)
        while len(self._vectors) > self.limit:
            self._vectors.popitem(last=False)

    def get(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]] | None:
        return self._vectors.get(self._key(text))

    def lookup(
        self, texts: Sequence[str]
    ) -> dict[str, np.ndarray[Any, np.dtype[np.float32]] | None]:
        """Each distinct text's vector as held now (None: to embed, then `given`)."""
        return {t: self.get(t) for t in dict.fromkeys(texts)}

    def given(
        self,
        texts: Sequence[str],
        known: dict[str, np.ndarray[Any, np.dtype[np.float32]] | None],
        vectors: Sequence[np.ndarray[Any, np.dtype[np.float32]]],
    ) -> list[np.ndarray[Any, np.dtype[np.float32]]]:
        """texts' vectors, once lookup's missing texts (in its order) were embedded as
        `vectors`, which are kept here as copies, not views that keep their whole batch alive.
        Read from `known`, so right even when the texts outnumber the limit or other calls
        pushed some out meanwhile."""
        missing = [t for t, v in known.items() if v is None]
        for text, vec in zip(missing, vectors, strict=True):
            known[text] = own = vec.copy()
            self.put(text, own)
        return [v for v in (known[t] for t in texts) if v is not None]


@dataclass(frozen=True)
class Context:
    """The ports and settings of one Core, plus what is derived once from the ontology."""

    pool: GraphStores
    embedder: Embedder
    ontology: Ontology
    config: CoreConfig
    world_params: WorldParams
    clock: Clock
    llm: Llm | None
    inbound: InboundLog | None = None  # the durable record of messages (issue 12)
    offers_person: bool = False  # a hand-off reaches a manager: answers may offer one
    extractor: OfflineExtractor = field(init=False)
    max_hops: dict[str, int] = field(init=False)
    kind_by_key: dict[str, str] = field(init=False)  # a kind word's key -> the kind
    surface_keys: set[str] = field(init=False)  # keys of the predicates' surface forms
    surface_forms: list[str] = field(init=False)  # the predicates' surface forms, as written
    verb_forms: VerbForms = field(init=False)  # the same, by their verb (core/questions.py)
    # predicate -> the first word of each of its forms ("depend", "работать"): a verb, which
    # offline names leave out of a world holding such facts (core/world_names.py)
    predicate_verbs: dict[str, frozenset[str]] = field(init=False)
    form_verbs: dict[str, frozenset[str]] = field(init=False)  # a form (lower case) -> its verb
    name_rules: NameRules = field(init=False)  # the legal forms name keys ignore
    seed_cutoff: float = field(init=False)  # configured, or read from the model (core/seeds.py)
    route_vectors: RouteVectors = field(init=False, default_factory=RouteVectors)
    word_vectors: RouteVectors = field(init=False, default_factory=lambda: RouteVectors(4096))
    # sentences of evidence messages, alone, that a quote is chosen among (core/quote.py)
    sentence_vectors: RouteVectors = field(init=False, default_factory=lambda: RouteVectors(4096))
    calibration: Calibration = field(init=False)  # the model's same/cross-topic cosines
    regroup_due: RegroupDue = field(init=False)  # when the regrouping job runs (due.py)

    def __post_init__(self) -> None:
        ontology = self.ontology
        kind_by_key: dict[str, str] = {}
        for word, kind in ontology.kind_words().items():
            kind_by_key.setdefault(name_key(word), kind)
        # every predicate form's keys, lemmatised once: (predicate, form as written, keys)
        forms = [
            (pred.name, form, key_tokens(form))
            for pred in ontology.predicates.values()
            for written in pred.surface.values()
            for form in written
        ]
        verbs: dict[str, set[str]] = {p: set() for p in ontology.predicates}
        for pred, _, keys in forms:
            verbs[pred].update(keys[:1])
        derived = {
            "extractor": OfflineExtractor(ontology),
            "max_hops": {p.name: p.max_hops for p in ontology.predicates.values()},
            "name_rules": NameRules(ontology.legal_forms),
            "seed_cutoff": (
                self.config.min_seed_similarity
                if self.config.min_seed_similarity is not None
                else seed_cutoff(self.embedder)
            ),
            "calibration": calibrate(self.embedder, self.config.calibration_dir),
            "kind_by_key": kind_by_key,
            "regroup_due": RegroupDue(self.world_params),
            "surface_keys": {k for _, _, keys in forms for k in keys},
            "predicate_verbs": {p: frozenset(v) for p, v in verbs.items()},
            "form_verbs": {form.lower(): frozenset(keys[:1]) for _, form, keys in forms},
            "surface_forms": [form for _, form, _ in forms],
            "verb_forms": VerbForms(form for _, form, _ in forms),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def verbs_in(self, text: str) -> set[str]:
        """The verbs (lemmas) of the predicate forms a text uses ("trabalha na" -> trabalhar)."""
        return {k for m in self.extractor.forms_in(text) for k in self.form_verbs[m.lower()]}

    def vectors_of_words(self, words: list[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Unit vectors of single words (offline world names), each embedded once."""
        return self._vectors_in(self.word_vectors, words)

    def vectors_of_sentences(
        self,
        texts: list[str],
        stored: Mapping[str, np.ndarray[Any, np.dtype[np.float32]]],
    ) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Unit vectors of sentences alone (quotes): when the sentence is a whole message, its
        stored vector (`stored`: by text) or its recent routing vector, else embedded once."""
        recent = {t: stored.get(t, self.route_vectors.get(t)) for t in dict.fromkeys(texts)}
        rest = [t for t, v in recent.items() if v is None]
        found = dict(zip(rest, self._vectors_in(self.sentence_vectors, rest), strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([v if (v := recent[t]) is not None else found[t] for t in texts])

    def _vectors_in(
        self, cache: RouteVectors, texts: list[str]
    ) -> np.ndarray[Any, np.dtype[np.float32]]:
        known = cache.lookup(texts)
        missing = [w for w, v in known.items() if v is None]
        fresh = list(self.embedder.embed(missing)) if missing else []
        vecs = cache.given(texts, known, fresh)
        if not vecs:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack(vecs).astype(np.float32)


class Stage:
    """A pipeline stage: the context's parts under the names the stages' code uses."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.pool = ctx.pool
        self.embedder = ctx.embedder
        self.ontology = ctx.ontology
        self.config = ctx.config
        self.world_params = ctx.world_params
        self.clock = ctx.clock
        self.llm = ctx.llm
        self.inbound = ctx.inbound
        self.extractor = ctx.extractor
        self._max_hops = ctx.max_hops
        self._kind_by_key = ctx.kind_by_key
        self._surface_keys = ctx.surface_keys
        self._surface_forms = ctx.surface_forms
        self._predicate_names = frozenset(ctx.ontology.predicates)

    def offline_names(self) -> OfflineNaming | None:
        """What the regrouping job names worlds with: None when an LLM names them, else the
        predicates' verbs that offline names leave out and the chat's word vectors
        (core/world_names.py)."""
        if self.llm is not None:
            return None
        return OfflineNaming(self.ctx.predicate_verbs, self.ctx.vectors_of_words)

    def names(self, store: GraphStore) -> NameIndex:
        """The chat's name index (exact, lemma, sound keys), built on first use."""
        return store.names or store.use_name_rules(self.ctx.name_rules)

    def check_text(self, text: str) -> str:
        text = sanitize(text or "").strip()
        if not text:
            raise InvalidInput(t("empty", "en"))
        if len(text) > self.config.max_message_chars:
            lang = detect_language(text[:500])
            raise InvalidInput(
                t("too_long", lang, n=len(text), limit=self.config.max_message_chars)
            )
        return text

    async def embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        return await asyncio.to_thread(self.embedder.embed, list(texts))

    async def route_vectors(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Routing vectors of texts, embedding only those not seen recently."""
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        cache = self.ctx.route_vectors
        known = cache.lookup(texts)
        missing = [t for t, v in known.items() if v is None]
        vectors = list(await self.embed(missing)) if missing else []
        return np.stack(cache.given(texts, known, vectors))
