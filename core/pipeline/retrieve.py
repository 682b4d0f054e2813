"""Retrieval for a question: worlds, seeds (named and by meaning), k-hop expansion, directional
reach, personalised PageRank, then selection (select.py), evidence (core/recall/), the quoted
sentence (core/quote.py) and the offline answer text (core/answering.py). Runs in the chat's
worker thread, on the GraphStore port."""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field
from functools import partial

from core.answering import Support, asks_what_it_is, compose, in_subkind, kind_asked
from core.asked import asks_amount, recall_query
from core.index.spelling import respelled
from core.index.vectors import Ahead
from core.index.words import MessageIndex
from core.langid import LANGUAGES
from core.language import (
    QUESTION_WORDS,
    STOPWORDS,
    clean_name,
    is_time_word,
    key_tokens,
    name_key,
    names_a_thing,
    written_tokens,
)
from core.models import Answer, FactView, ScoredEntity, Seed
from core.pipeline.bridge import kin_in, translations
from core.pipeline.context import Stage
from core.pipeline.select import (
    Mentions,
    best_paths,
    entity_label,
    kind_candidates,
    literal_entities,
    name_mentions,
    named_worlds,
    select_facts,
    yes_no_answer,
)
from core.ports import GraphStore, Vector
from core.questions import declarative, split_verb
from core.quote import REPLACED, pick_quote
from core.quoted import Meaning, Quote
from core.recall import Hit, is_when_question, nearest
from core.recall import rank as recall_rank
from core.replies import replying, thread_of
from core.restated import Written
from core.retrieval import graph_scores, path_to, personalized_pagerank, reach_within_hops
from core.rows import new_id
from core.texts import t
from core.unknown import says_no_thing, situated
from core.vocabulary import widened
from core.world_names import FILLER
from core.worlds import question_worlds

# the messages nearest by meaning alone a quote also looks at (core/recall/fusion.py, nearest):
# velo's tuning part 0.667 -> 0.700 with 2, 3 or 5 (lumio's 1.000 throughout)
NEAREST = 3
RESTATING = 8  # messages the quote's own words find that may update it (core/restated.py)


def names_something(name: str) -> bool:
    """Whether a clause's subject or object can be a name the chat never mentioned: not a
    pronoun or filler word alone ("where are *you* located?", "how *much* is a day pass?"),
    which would otherwise be said back as "I have nothing about you"."""
    return any(
        w not in STOPWORDS and w not in FILLER and w not in QUESTION_WORDS
        for w in name.lower().split()
    )


@dataclass
class Retrieved:
    answer: Answer
    nodes: list[ScoredEntity]
    edges: list[FactView]
    evidence_text: list[tuple[str, str]]
    evidence_hits: list[Hit] = field(default_factory=list)


class Retriever(Stage):
    def kind_targets(self, question: str) -> set[str]:
        return {self._kind_by_key[k] for k in key_tokens(question) if k in self._kind_by_key}

    def content_phrase(self, question: str) -> str:
        words = [
            w
            for w in clean_name(question).split()
            if name_key(w)
            and name_key(w) not in STOPWORDS
            and names_something(w)
            and name_key(w) not in self._kind_by_key
            and name_key(w) not in self._surface_keys
            # where the client is, not what they ask ("we're in Braga, is there an extra charge
            # ...?" said it had nothing about Braga: the thirty-first round)
            and not situated(question, w.strip("?!.,;:"))
        ]
        return " ".join(words).strip("?!.,")  # "" for a greeting or filler alone ("hello?")

    def ambiguous(
        self, store: GraphStore, base: Answer, mentions: Mentions, lang: str
    ) -> Retrieved:
        lines = [
            t(
                "ambiguous",
                lang,
                name=phrase,
                options="; ".join(sorted(entity_label(store, i) for i in ids)),
            )
            for phrase, ids in mentions.ambiguous
        ]
        return Retrieved(base.model_copy(update={"answer": "\n".join(lines)}), [], [], [])

    def retrieve(self, store: GraphStore, question: str, q_emb: Vector, lang: str) -> Retrieved:
        cfg = self.config
        fixed = respelled(question, lambda tok: store.recall.idf(tok) > 0)  # "servce"
        if fixed != question:  # rare: the vector too is of what the client meant
            question, q_emb = fixed, self.embedder.embed([fixed])[0]
        worlds = set(
            question_worlds(store, q_emb, self.world_params, mode=cfg.world_mode, text=question)
        ) or {""}
        worlds |= named_worlds(store, question, worlds)
        trace_id = new_id("t")
        base = Answer(answer="", language=lang, worlds=sorted(worlds), trace_id=trace_id)
        if not written_tokens(question):  # "?", "🙂?": nothing is asked; facts near the
            # vector of a lone "?" were listed as what it knows
            nothing = compose(self.ontology, Support(lang=lang, person=self.ctx.offers_person))
            return Retrieved(base.model_copy(update={"answer": nothing}), [], [], [])
        mentions = name_mentions(
            self.names(store), question, worlds, lambda i: store.entities[i].ident
        )
        if mentions.ambiguous:  # say which ones it could mean instead of mixing them
            return self.ambiguous(store, base, mentions, lang)
        literal = mentions.found
        ahead = Ahead(store.message_vectors.scores, q_emb)  # beside the graph stage
        clauses = self.extractor.parse(declarative(question, self._surface_forms), question=True)
        if not clauses:  # "where is checkout located?": who is it about, and what?
            moved = split_verb(question, self.ctx.verb_forms)
            clauses = self.extractor.parse(moved, question=True) if moved else []
        # "how many people ...?", "what's the min number of people?" ask a number, not a person
        asked = None if asks_amount(question) else kind_asked(question, self._kind_by_key)
        unknown = [
            name
            for c in clauses
            for name in (c.subject, *c.objects)
            if name
            and names_something(name)
            and not literal_entities(store, name, worlds)
            and not situated(question, name)  # "I live in Faro, could you post ...?"
            # nor a word of the client's situation or of grammar ("quanto fica a cada um?"
            # parsed "cada" as a thing the chat lacks: the sixty-fourth round)
            and not says_no_thing(name)
            # a day is when, not what: "can I come on a sunday to work on my stuff?" said it
            # had nothing about "sunday" (the thirty-ninth round)
            and not all(is_time_word(w) for w in name.split())
        ]
        vectors = store.entity_vectors
        sims = vectors.scores(q_emb)  # one scan; every cosine below is read from it

        def cosine(eid: str) -> float:
            if eid in literal:
                return 1.0
            row = vectors.row(eid)
            return 0.0 if row is None else float(sims[row])

        vec_seeds = [
            (eid, s)
            for eid, s in vectors.best(sims, cfg.top_k_seeds)
            if s >= self.ctx.seed_cutoff and store.entities[eid].world in worlds
        ]
        if unknown and not literal:
            vec_seeds = []  # the question names something we do not know: say so, don't guess
        entities = store.entities
        targets = vectors.nearest_of(
            kind_candidates(store, asked, self.kind_targets(question)),
            sims,
            20,
            exact=set(literal),
            keep=lambda eid: entities[eid].world in worlds,
        )
        sources = literal or [e for e, _ in vec_seeds]
        missing: list[str] = []  # names the question writes that the chat never mentions
        if not sources:
            evidence_ids, evidence_text, hits, near = self.evidence(
                store, question, q_emb, literal, [], worlds, message_sims=ahead.get()
            )
            names = ", ".join(unknown) if unknown else self.content_phrase(question)
            quote = self.quote(store, question, q_emb, lang, hits, near, missing, worlds=worlds)
            # a name the question uses is worth saying back ("nothing about billing"); a
            # phrase of its words is not ("nothing about much Pro 20 seats")
            # each name once: the parse and the quote may both find it ("«Анн, Анн»")
            said = list(
                dict.fromkeys(
                    [n for n in unknown if name_key(n) not in self._kind_by_key] + missing
                )
            )
            # the one word left, when it names a thing: not "закрываетесь" (are you closing),
            # nor a day ("can I come on a sunday to work on my stuff?"), nor a word the quote's
            # own list never says back ("quanto fica a cada um?" said "nothing about cada":
            # the sixty-fourth round)
            one = names and len(names.split()) == 1 and not is_time_word(names)
            if not said and one and names_a_thing(names.lower()) and not says_no_thing(names):
                said = [names]
            support = Support(lang=lang, quote=quote, unknown=said, person=self.ctx.offers_person)
            answer = base.model_copy(
                update={
                    "answer": compose(self.ontology, support),
                    "unknown": list(dict.fromkeys(unknown + missing)) or [names] * bool(names),
                    "evidence": evidence_ids,
                }
            )
            return Retrieved(answer, [], [], evidence_text, hits)

        seed_ids = list(dict.fromkeys([*sources, *(targets if literal else [])]))
        reach, sub_edges = reach_within_hops(
            sources,
            seed_ids,
            hops=cfg.hops,
            max_hops=self._max_hops,
            edges_from=store.edges_from,
            edges_to=store.edges_to,
        )
        kept = set(reach)
        s_vec = {n: cosine(n) for n in kept}
        nodes = sorted(kept)
        personal = {eid: max(s_vec.get(eid, 0.0), 0.0) for eid in sources}
        ppr = personalized_pagerank(nodes, sub_edges, personal, damping=cfg.ppr_damping)
        top = max(ppr.values(), default=0.0) or 1.0
        s_graph = graph_scores(reach, s_vec, alpha=cfg.alpha, gamma=cfg.gamma)
        score = {
            n: cfg.alpha * max(s_vec.get(n, 0.0), 0.0) + (1 - cfg.alpha) * ppr.get(n, 0.0) / top
            for n in nodes
        }
        scored = sorted(
            (
                ScoredEntity(
                    id=n,
                    name=store.entities[n].name,
                    kind=store.entities[n].kind,
                    s_vec=round(s_vec.get(n, 0.0), 4),
                    s_graph=round(s_graph.get(n, 0.0), 4),
                    ppr=round(ppr.get(n, 0.0), 4),
                    score=round(score[n], 4),
                )
                for n in nodes
                if n in store.entities
            ),
            key=lambda x: -x.score,
        )
        wanted = [c.predicate.name for c in clauses]
        path_edges = best_paths(reach, score, targets, set(sources), wanted)
        yes_no = yes_no_answer(
            store,
            question,
            clauses,
            worlds,
            lang,
            ontology=self.ontology,
            max_hops=self._max_hops,
            default_hops=cfg.hops,
        )
        if yes_no is not None:
            path_edges = [yes_no[1]] if yes_no[1] else []
        facts = select_facts(path_edges, sub_edges, score, cfg.max_facts)
        paths = [
            [store.entities[p[0].src].name, *(store.entities[e.dst].name for e in p)]
            for p in path_edges
        ]
        # messages whose facts about the question's entities a later one replaced: evidence
        # still (who said what, when), never quoted, and marked for a model
        outdated = store.outdated_sources(literal)
        evidence_ids, evidence_text, hits, near = self.evidence(
            store,
            question,
            q_emb,
            literal,
            [s for f in facts for s in f.sources],
            worlds,
            outdated=outdated,
            message_sims=ahead.get(),
        )
        seeds = [
            Seed(entity=store.entities[e].name, score=round(s_vec.get(e, 0.0), 4)) for e in sources
        ]
        # the nearest entities of the asked kind answer it; further ones are reached only
        # through them (checkout -> payments -> antifraud: antifraud is the one that requires)
        hops = {n: len(path_to(n, reach)) for n in targets if reach.get(n) is not None}
        if wanted:  # reached over what the question asks: "where does Ann work?" asks for
            # WORKS_AT's object, not the place Acme is in (answered "Place: Lisbon." before)
            hops = {
                n: h for n, h in hops.items() if (st := reach[n]) and st.edge.predicate in wanted
            }
        values = sorted(
            (n for n, h in hops.items() if h == min(hops.values())),
            key=lambda n: -score.get(n, 0.0),
        )
        group = asked.subkind() if asked else None
        if group is not None:  # an instance ("Go") answers "which language", not the category
            values = [n for n in values if not in_subkind(store.entities[n].name, group)]
            asked = asked if values else None  # the category alone: its fact or message says it
        direct = any(e.predicate in wanted for c in path_edges for e in c)
        quote = self.quote(
            store,
            question,
            q_emb,
            lang,
            hits,
            near,
            missing,
            # the names as the question writes them too: "Что ест Монти?" names Monty, and
            # "Монти", which no message holds, is no unknown name
            entity_names=[*(store.entities[e].name for e in literal), *mentions.phrases],
            outdated=outdated,
            worlds=worlds,
        )
        text = compose(
            self.ontology,
            Support(
                lang=lang,
                yes_no=yes_no[0] if yes_no else None,
                kind=asked,
                values=[store.entities[n].name for n in values],
                paths=paths,
                # a direct answer says what was asked ("where does Ann work?": her WORKS_AT,
                # not also where Acme is and who reports to her); the rest stays in `facts`
                facts=[f for f in facts if f.predicate in wanted] if direct else facts,
                direct_facts=direct,
                quote=quote,
                prefer_quote=is_when_question(question),
                describe=asks_what_it_is(question, mentions.phrases),
                unknown=missing,
                person=self.ctx.offers_person,
            ),
        )
        answer = base.model_copy(
            update={
                "answer": text,
                "seeds": seeds,
                "facts": facts,
                "paths": paths,
                "evidence": evidence_ids,
                "unknown": list(dict.fromkeys(unknown + missing)),
            }
        )
        return Retrieved(
            answer, scored[:50], [e.fact for e in sub_edges[:200]], evidence_text, hits
        )

    def quote(
        self,
        store: GraphStore,
        question: str,
        q_emb: Vector,
        lang: str,
        hits: list[Hit],
        near: list[Hit],
        missing: list[str],
        *,
        entity_names: Sequence[str] = (),
        outdated: Set[str] = frozenset(),
        worlds: Set[str] = frozenset(),
    ) -> Quote | None:
        """The sentence that answers (core/quote.py), with what this chat and model give it:
        its idf, its authors, the word bridge and the meaning score. Names the question
        writes that the chat never mentions are added to `missing`."""
        return pick_quote(
            question,
            hits,
            chat_words=store.recall,
            entity_names=entity_names,
            skip=self._predicate_names,
            outdated=outdated,
            bridge=partial(translations, self.ctx, lang),
            meaning=self._meaning(q_emb, store),
            nearest=near,
            unknown=missing,
            speaker=lambda n: bool(store.recall.speakers(n)),
            thread=thread_of(store.recall),
            home=self._of_worlds(store, worlds) if len(worlds) == 1 else None,
            restating=partial(_written_like, store.recall),
        )

    def _meaning(self, q_emb: Vector, store: GraphStore) -> Meaning | None:
        """What a quote's meaning score needs (core/quote.py); none with a model that does
        not separate topics in every language the bot serves (its calibration says which):
        the English MiniLM's cosines favoured English sentences over the Portuguese one that
        answered ("can I pay with PayPal?": lumio tune 1.000 -> 0.972, velo tune 0.300 ->
        0.267), and across languages they are noise."""
        cal = self.ctx.calibration
        if not set(cal.languages) >= set(LANGUAGES):
            return None
        # a one-sentence message's stored vector is its sentence's: read, not embedded
        # (bench.bulk's ask at 10k messages)
        return Meaning(
            q_emb,
            cal.cross,
            cal.same,
            self.ctx.vectors_of_sentences,
            store.message_vectors.vector,
            partial(kin_in, self.ctx),
        )

    @staticmethod
    def _of_worlds(store: GraphStore, worlds: Set[str]) -> Callable[[str], bool]:
        """Whether a message is of one of these worlds (the message index knows each one's,
        a merged world is followed to the one it joined)."""
        return lambda message_id: store.resolve_world(store.recall.world(message_id)) in worlds

    @staticmethod
    def _homonym(store: GraphStore, question: str) -> bool:
        """Does the question name (one or two words) an entity known in several worlds?"""
        keys = key_tokens(question)
        grams = {" ".join(keys[i : i + n]) for n in (1, 2) for i in range(len(keys))}
        return any(len(store.key_worlds.get(k, ())) > 1 for k in grams)

    def evidence(
        self,
        store: GraphStore,
        question: str,
        q_emb: Vector,
        literal: list[str],
        provenance: list[str],
        worlds: set[str] | None = None,
        *,
        outdated: Set[str] = frozenset(),
        message_sims: Vector | None = None,
    ) -> tuple[list[str], list[tuple[str, str]], list[Hit], list[Hit]]:
        """Evidence messages, most relevant first (hybrid recall, core/recall.py), searched
        chat-wide. When a question routed to one world with confidence names something its
        world knows, or a name two worlds both know (the pet python and Python the language),
        only that world's messages are shown, unless it has none among the hits. Otherwise the
        list stays chat-wide: scoping every question to its world cost recall on the recall
        fixture (0.833 against 0.847 at 10, bench/recall.py); scoping these costs nothing
        there. A name in another script is matched by its sound ("мой питон" = "my python",
        core/identity.py); known gap: another spelling in the same script ("píton" against
        "python") is not. `outdated`: messages whose facts a later message replaced, marked
        so that a model does not answer with them. Also returned: the messages nearest the
        question by meaning alone, which a quote looks at too (core/recall/fusion.py).
        `message_sims`: the question's cosine with each message vector, when already scanned."""
        cfg = self.config.recall
        entity_messages = list(dict.fromkeys(provenance))
        if literal:  # the question's entities: their facts' sources, then their mentions
            entity_messages += store.fact_sources(literal, cfg.depth)
            entity_messages += store.mentions_of(literal, cfg.depth)
        now = self.clock.now()
        if cfg.time_anchor == "latest":
            now = store.recall.latest() or now
        sims = store.message_vectors.scores(q_emb) if message_sims is None else message_sims
        hits = recall_rank(
            store.recall,
            store.message_vectors,
            sims,
            recall_query(question),
            entity_messages=entity_messages,
            now=now,
            cfg=cfg,
        )
        near = nearest(store.recall, store.message_vectors, sims, NEAREST, cfg)
        if (
            worlds is not None
            and len(worlds) == 1
            and hits
            and (self._homonym(store, question) or bool(literal))
        ):
            at_home = self._of_worlds(store, worlds)
            mine = [h for h in hits if at_home(h.id)]
            if mine:
                hits = mine
                near = [h for h in near if at_home(h.id)]
        shown = hits[:10]
        shown += [h for h in near if h.id not in {s.id for s in shown}]
        around = thread_of(store.recall)
        said = [
            (
                h.id,
                f"{h.author} ({h.ts:%Y-%m-%d}){replying(around(h.id)[0])}: {h.text}"
                + (REPLACED if h.id in outdated else ""),
            )
            for h in shown
        ]
        ids = [h.id for h in hits]
        return ids + [h.id for h in near if h.id not in ids], said, hits, near


def _written_like(index: MessageIndex, text: str) -> list[Written]:
    """The messages the word index finds by a quote's own words and their everyday
    equivalents (core/restated.py): "a aula avulsa passa a 38€" shares no word with "a single
    driving lesson is 35€" but "aula" is a lesson."""
    return [
        Written(index.ids[r], index.authors[r], index.ts(r), index.texts[r])
        for r in index.bm25(widened(text), RESTATING)
    ]
