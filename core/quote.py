"""The sentence of an evidence message that answers a question (offline, extractive).

Much of what a company tells the bot never becomes a fact ("the Pro plan is $49 per seat per
month"), so an answer often is a sentence of a message. The sentence is chosen by the signals
that ranked the message (core/recall.py), applied to each sentence: the question's words that
it holds, weighted by how rare they are in the chat (BM25's idf), the question's entities that
it names, and, for a question asking for an amount ("how much", "quanto", "сколько"), a number.
The message's own rank breaks ties and lets a strong message win over a weak one.

A client often asks in another language than the one the team told the answer in ("do you
deliver to Moscow?" against "Доставка в Москву не осуществляется"). Shared words cannot match
these, and the short list of everyday equivalents (core/vocabulary.py) covers few; so the words
of an evidence message written in another language than the question's count as the question's
when the embedding model puts one of the question's words within a word and its translation
(`bridge`, core/pipeline/retrieve.py: SAME_CONCEPT, the line offline world names use for the
same purpose: delivery / доставка 0.92, devolver / returns 0.79, CEO / gerente 0.58, with USE).

Words alone still missed most questions of a company the bot was never tuned on (bench/answers.py
`--set velo`, tuning part: 0.433 right with the bridge): clients paraphrase ("can I leave my
suitcase?" against "luggage storage is 4 € a day"). So each candidate sentence, embedded alone,
also scores its cosine with the question: MEANING_WEIGHT per calibrated gap above the model's
mean cross-topic cosine (core/calibration.py, no per-model constant), and a sentence at least
as close as two messages of one topic (`same`) may be quoted though it shares no word.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from core.asked import (
    ADDRESS,
    ADDRESS_ASKED,
    AGE_RULE,
    AGE_TOLD,
    AT_THE_PLACE,
    CLOCK_ASKED,
    CONTACT_ASKED,
    CONTACT_NUMBER,
    EMAIL_ASKED,
    HANDLE_ASKED,
    HOW_LONG,
    HOW_MUCH,
    MONEY,
    OPENING,
    PHONE_ASKED,
    PREMISES,
    PRICE_ASKED,
    PRICE_VERBS,
    QUESTION_FILLER,
    TIME,
    TIME_UNITS,
    WHERE,
    YOU_PLACE,
    after_who,
    asks_address,
    asks_amount,
    asks_contact,
    asks_which,
    holds_short_duration,
    paying_with,
    question_words,
    without_times,
    words_asking_it,
    writes_schedule,
)
from core.hedged import Picked, Read, settle
from core.index.words import ChatWords
from core.language import (
    STOPWORDS,
    key_tokens,
    lemma,
    name_key,
    tokens,
)
from core.quoted import Meaning, Quote
from core.recall import Hit, index_tokens, is_when_question
from core.replies import Thread, answers_nothing, confirms, with_replies
from core.restated import UPDATE, Nearness, Said, Written, value_kinds
from core.sentences import banter, clip, label_of, lead_in_question, sentences, shown_whole
from core.unknown import (
    NAME,
    refuses,
    said_somewhere,
)
from core.vocabulary import answered_about, equivalents

log = logging.getLogger(__name__)

# how an evidence message that a later one replaced is marked for a model (core/llm/prompts.py)
REPLACED = " [replaced by a later message]"
MIN_RELEVANCE = 1.0  # words + entities below this: better to say nothing was found
ENTITY_WEIGHT = 1.5
# a shared word counts at least this much: in a new chat of a few messages every word is
# "common" by idf, yet "free trial" in the question and the message still means something
MIN_IDF = 0.5
AMOUNT_WEIGHT = 1.0
# a price question ("how much", "скок стоит", "quanto custa") and a sentence with money in it
# (a currency sign, code or word, MONEY) rather than any number: "скок стоит торт?" quoted "We
# bake gluten-free cakes on request, +20% to the price" over "Торт на заказ от 2500 руб за кг".
# Tuning parts of bench.answers, USE: patinhas 0.600 -> 0.633 at 2-3, 0.667 at 4-6, 0.700 at
# 8, the other sets unchanged throughout (MiniLM velo 0.367 -> 0.400 at 5): the smallest weight
# of the plateau
MONEY_WEIGHT = 4.0
# a question asking when and a sentence writing a time or a day ("забрать можно в пятницу
# после обеда" over "машина опять стучит спереди справа" for "когда можно забрать машину?");
# not swept: the tuning parts of bench.answers answer the same with it
TIME_WEIGHT = 2.0
AGE_WEIGHT = 4.0  # a person's age told, a sentence writing an age rule (asked.AGE_TOLD)
# A reply is as near the client's question as the chat question it answers, less this share of
# the calibrated gap (core/replies.py). Tuning parts of bench.answers, USE: with none, the
# reply "confirmo, +6 € pelo segundo cão" took five of patinhas' dog questions (right 0.667,
# says it does not know 0.400 -> 0.333); 0.25: right 0.700, 0.333; 0.5 and 0.75: 0.700, 0.400;
# the other sets the same throughout. 0.5: the client trials of 2026-12-04 answered "сколько
# стоит ремонт машины?" with the reply "диагностика 2500" (0.75: a parking price; since a
# message asks by any sentence, WORLD_WEIGHT below decides that one)
REPLY_DISCOUNT = 0.5
# A question routed to one world (its topic is clear) and a sentence of a message of that
# world: "сколько стоит ремонт машины?", routed to the car's world, quoted the hotel's "yes,
# parking is 15 euros a night" (the client trials of 2026-12-04). Tuning parts of
# bench.answers, USE: 1 as 0; 2 the trial; 4 and 6 also patinhas 0.700 -> 0.733; the other
# sets unchanged throughout. Only with the meaning score, as ASKED_WEIGHT: the English MiniLM
# routes Portuguese and Russian by language, not topic, and lost 1-3 answers in every set
WORLD_WEIGHT = 4.0
RANK_WEIGHT = 1.0  # the best-ranked message's bonus; later ones get less

# fewer content words than this is chit-chat (as evidence ranking counts it, RecallConfig
# .min_tokens): "?" was answered by quoting "ok", whose meaning is near any short message
CHITCHAT_TOKENS = 3
# a greeting that opens a sentence ("Bom dia equipa!"): with fewer than CHITCHAT_TOKENS words
# after it, the sentence answers only a question all of whose asked words it holds ("vocês têm
# veterinário na equipa?" quoted "Bom dia equipa!" through "equipa")
_GREETING = re.compile(
    r"^\W*(?:hi|hello|hey|good (?:morning|afternoon|evening)|morning|bom dia|boa tarde|"
    r"boa noite|olá|ola|oi|привет|здравствуйте|доброе утро|добрый (?:день|вечер))\b",
    re.IGNORECASE,
)
MIN_WORDS = 5  # a shorter sentence ("PayPal ainda não.") is quoted with the one before it
_DIGIT = re.compile(r"\d")


# Chosen on the tuning parts of both companies of bench/answers.py (lumio tune stayed 1.000
# throughout; velo tune, by weight with 5 / 8 candidates: 0 -> 0.367 / 0.433, 1 -> 0.400 /
# 0.467, 2 -> 0.433 / 0.500, 4 -> 0.567 / 0.667, 6 to 12 -> 0.667 / 0.667; 10 or 12
# candidates no better): the smallest weight on the plateau, so shared words still count.
MEANING_WEIGHT = 4.0  # per calibrated gap of cosine above `cross`
CANDIDATES = 8  # evidence messages whose sentences compete
# A sentence below cross + this share of the gap is about something else, whatever words it
# shares. Chosen on the tuning parts with the questions no message answers (bench/answers.py,
# tests/fixtures/answers_unanswerable): said it does not know, lumio 0.400 -> 0.533 at 0.2 with
# no answerable question lost; from 0.4, one lost ("Как можно оплатить?", 0.175).
MIN_MEANING_AT = 0.2
# A sentence holding every word the question asks with, names aside ("eat" in "what does Monty
# eat?"), in any of the three languages: USE puts that question 0.55 from "Monty is a ball
# python" and 0.36 from "my ball python Monty eats one mouse a week", and the meaning score
# followed it. 4 to 8 leave both tuning parts as they were (2 was not enough there); 4 was
# not enough for the Portuguese "O que o Monty come?" (0.57 against 0.30), 6 is.
# Only with the meaning score, which it balances: without it (the English MiniLM) words already
# decide, and the bonus cost MiniLM two of lumio's tuning questions.
ASKED_WEIGHT = 6.0


# (the question's content words as written, the texts of the messages that may be quoted) ->
# for each text, its words (index tokens) that translate one of the question's words, each with
# the word it translates
Bridge = Callable[[Sequence[str], Sequence[str]], list[dict[str, str]]]


def pick_quote(
    question: str,
    hits: Sequence[Hit],
    *,
    chat_words: ChatWords,
    entity_names: Sequence[str] = (),
    skip: frozenset[str] = frozenset(),
    outdated: Set[str] = frozenset(),
    bridge: Bridge | None = None,
    meaning: Meaning | None = None,
    nearest: Sequence[Hit] = (),
    unknown: list[str] | None = None,
    speaker: Callable[[str], bool] = lambda _: False,
    thread: Thread | None = None,
    home: Callable[[str], bool] | None = None,
    restating: Callable[[str], Sequence[Written]] | None = None,
) -> Quote | None:
    """The best sentence among the first evidence messages, or None when none answers.
    `skip`: words that mark a stored explicit fact (the ontology's predicate names);
    `outdated`: messages whose facts about the question's entities a later message replaced
    ("Ann works at Acme" once "Ann works at Globex" came): quoted, they would answer with
    what no longer holds, so they do not compete. `bridge`: the words of a message in another
    language that translate one of the question's words (none: shared words only);
    `meaning`: what the sentences' meaning score needs (none: words only); `nearest`: the
    messages nearest the question by meaning alone, candidates too (with no rank bonus).
    A question that names something the chat never mentions gets no quote; the names are
    added to `unknown` (the answer then says it has nothing about them). With `meaning`, the
    quote carries in `later` the newest later sentence that restates it (core/restated.py).
    `thread`: the chat question a message replies to and the reply it got (core/replies.py);
    `home`: whether a message is of the one world the question was routed to (None: several);
    `chat_words`: the chat's word statistics (its idf, which words are rare)."""
    idf = chat_words.idf
    # (a stop word as written is none of them whatever its lemma: the lemmatiser reads "uma"
    # as the verb "umar", "pelo" as "pelar", "suas" as "suar", so "quanto custa uma limpeza
    # para crianças?" asked for "umar", which no sentence holds, and the sentence that held
    # "limpeza" and "crianças" did not hold what it asked: found in the console, 2026-12-07)
    grammar = {lemma(w) for w in tokens(question) if w in STOPWORDS}
    own = frozenset(index_tokens(question)) - QUESTION_FILLER - grammar
    terms = (own | equivalents(own)) - QUESTION_FILLER  # a sentence in another language too
    written = question_words(question)
    # the question's entities and the names it writes capitalised ("SSO", "Starter")
    capitalised = NAME.findall(question)
    names = list(dict.fromkeys(k for k in map(name_key, [*entity_names, *capitalised]) if k))
    called = {w for n in capitalised for w in n.split()}  # names as written
    amount = asks_amount(question)
    # the question's words, the names of its entities aside (a capitalised word that names
    # none, "CTO" or "PayPal", is asked about)
    # (and as the index reads them: "Монти" is lemmatised as a verb, "монтить")
    asked = own - {t for n in entity_names for t in (*name_key(n).split(), *index_tokens(n))}
    asked -= {t for m in CLOCK_ASKED.finditer(question) for t in index_tokens(m.group())}
    if amount:  # held by a number, not by the words
        asked -= HOW_MUCH | HOW_LONG
    if PRICE_ASKED.search(question):
        asked -= PRICE_VERBS
    duration = bool(own & HOW_LONG)
    timed_q = is_when_question(question)  # "во сколько" asks a time, not a price
    priced_q = bool(own & HOW_MUCH or PRICE_ASKED.search(question)) and not duration and not timed_q
    place = asks_address(question)
    contact = None if place else asks_contact(question)
    # "my son is 10, can he come?": whether that age may, held by an age rule (asked.AGE_TOLD)
    asks_else = amount or timed_q or duration or place or contact is not None
    aged_q = bool(AGE_TOLD.search(question)) and not asks_else
    if (place or contact is not None) and (by := words_asking_it(question, place)) is not None:
        asked &= by
    if contact is not None:  # held by a phone number, an e-mail address or a handle
        asked -= PHONE_ASKED | EMAIL_ASKED | HANDLE_ASKED | CONTACT_ASKED | CONTACT_NUMBER
        asked -= YOU_PLACE | {"e"}
    if place:  # held by an address; what the chat never says is the company ("lavandaria")
        asked -= WHERE | YOU_PLACE | ADDRESS_ASKED | PREMISES
        asked = frozenset(a for a in asked if said_somewhere(a, idf))
        if own & AT_THE_PLACE:  # where an order is picked up or classes take place: the
            asked = frozenset()  # address answers, whatever was ordered
    if asked - (verbs := after_who(question) | paying_with(question)):  # the thing asked is
        # what a sentence must hold
        asked -= verbs
    # the asked words some message holds in some language: a sentence holding them all is
    # kept, however far by meaning, when the question also names what no message holds ("do
    # you deliver to Matosinhos?" beside "Entregas só no centro do Porto"; _nearest)
    present = frozenset(a for a in asked if said_somewhere(a, idf))
    partial = bool(present) and present != asked
    best: Quote | None = None
    candidates = [h for h in hits if h.id not in outdated][:CANDIDATES]
    taken = {h.id for h in candidates}
    candidates += [h for h in nearest if h.id not in outdated and h.id not in taken]
    written_by = ADDRESS if place else contact
    if written_by is not None:  # the message that writes it may rank below the first few
        taken = {h.id for h in candidates}
        candidates += [
            h
            for h in hits
            if h.id not in taken and h.id not in outdated and written_by.search(h.text)
        ]
    candidates, asked_by = with_replies(candidates, thread, set(outdated))
    top = max((h.score for h in candidates), default=0.0) or 1.0
    cosines: dict[str, float] = {}
    vectors: dict[str, npt.NDArray[np.float32]] = {}
    split = {h.id: sentences(h.text) for h in candidates}  # each candidate split once
    if meaning is not None:
        texts = list(dict.fromkeys(s for parts in split.values() for s in parts))
        texts += [a.text for a in asked_by.values() if a.text not in texts]
        known = {
            parts[0]: vec
            for mid, parts in split.items()
            if len(parts) == 1 and (vec := meaning.stored(mid)) is not None
        }
        if texts:
            matrix = meaning.vectors(texts, known)
            sims = matrix @ meaning.vector
            cosines = {t: float(c) for t, c in zip(texts, sims, strict=True)}
            vectors = dict(zip(texts, matrix, strict=True))
    covered: set[str] = set()  # the question's words a message in another language translates
    # each sentence that may be quoted, with the asked words and the price words it holds
    held_asked: list[tuple[Quote, frozenset[str], frozenset[str], str]] = []
    best_asked: frozenset[str] = frozenset()
    best_priced: frozenset[str] = frozenset()
    best_sentence = ""
    askings = {}
    translations: dict[str, dict[str, str]] = {}  # by message: its words' question words
    for h in candidates:
        asking = asked_by.get(h.id)  # a reply is read with the chat question it answers,
        if asking is not None and is_when_question(asking.text) != timed_q:
            asking = None  # when it asks as this one does ("во сколько" is not "сколько стоит")
        askings[h.id] = asking
    contexts = [f"{h.text}\n{a.text}" if (a := askings[h.id]) else h.text for h in candidates]
    # all at once: the words it has not seen are embedded in one call, not one per message
    bridges = bridge(written, contexts) if bridge is not None and written else []
    for i, h in enumerate(candidates):
        asking = askings[h.id]
        bridged = bridges[i] if bridges else {}
        asked_held = set(index_tokens(asking.text)) if asking else set()
        covered.update(bridged.values())
        found = terms | set(bridged)
        # the question's words each of this message's words translates
        translates = {theirs: lemma(mine.lower()) for theirs, mine in bridged.items()}
        translations[h.id] = translates
        parts = split[h.id]
        label = set(index_tokens(label_of(parts)))
        for i, sentence in enumerate(parts):
            if skip and any(w in skip for w in sentence.split()):
                continue  # an explicit fact stored as "A PREDICATE B": not a person's words
            if answers_nothing(parts, i):
                continue  # a question (someone else's, overheard in a group), or who asked it
            # a question its writer answers at once is read with the answer: "moving house?
            # transfer is free if the new address is in our coverage" (an internet provider's
            # chat; the second sentence alone says nothing about moving)
            own_q = parts[i - 1] if i and lead_in_question(parts[i - 1]) else ""
            key = " ".join(key_tokens(f"{own_q} {sentence}"))
            held = set(index_tokens(sentence)) | set(index_tokens(own_q)) | (label if i else set())
            meant = held | answered_about(held)  # what it says, in any of the three languages
            if writes_schedule(sentence):  # "Sat 9:00-14:00" says whether it is open
                meant |= OPENING
            greeting = _GREETING.match(sentence)
            short = greeting and len(index_tokens(sentence[greeting.end() :])) < CHITCHAT_TOKENS
            if short and not (asked and asked <= meant):
                continue  # "Bom dia equipa!" answers nothing about the team
            if len(held) < CHITCHAT_TOKENS and not found & held and not sentence.endswith(":"):
                continue  # "hi", "ok": chit-chat answers only what it shares a word with
            if banter(sentence) and not UPDATE.search(sentence):
                continue  # the team joking: no client's answer (a correction is one)
            words = sum(max(idf(t), MIN_IDF) for t in found & (held | asked_held))
            entities = ENTITY_WEIGHT * sum(f" {n} " in f" {key} " for n in names)
            score = words + entities
            said = meant | {translates[w] for w in held | asked_held if w in translates}
            said |= asked_held | equivalents(asked_held)
            # an asked word the sentence holds as one of its kind, not by its words: "on what
            # days?" by "quartas e quintas" (the on-call dentist's line, which held "dentist",
            # had scored more than the implants' days)
            hit = found & (held | asked_held)
            explained = hit | {translates[w] for w in hit if w in translates} | equivalents(hit)
            score += sum(max(idf(a), MIN_IDF) for a in (asked & said) - explained)
            shown = sentence
            if asking is not None and not i and confirms(sentence):
                shown = f"{asking.text} — {sentence}"  # what the yes says yes to
            elif own_q:
                shown = f"{own_q} {sentence}"
            elif sentence.endswith(":") and i + 1 < len(parts):
                shown = f"{sentence} {parts[i + 1]}"  # a lead-in says nothing alone
            elif i and (len(sentence.split()) < MIN_WORDS or parts[i - 1].endswith(":")):
                # and what a lead-in introduces keeps it: "R$ 250 por mês de manutenção" was
                # quoted without "Aparelho ortodôntico fixo:" before it
                shown = f"{parts[i - 1]} {sentence}"
            elif not i and len(parts) > 1 and len(sentence.split()) < MIN_WORDS:
                # a short first one, with the one after it: "Bolo vegano também fazemos!" was
                # quoted without "mesmo preço do normal" (sabor's tuning part)
                shown = f"{sentence} {parts[1]}"
            # what the quote shows holds the number, address or contact: "WhatsApp для
            # клиентов:" is quoted with the number that follows it
            lead = shown if sentence.endswith(":") else sentence
            # a price is no clock time: "Sintra day tour includes hotel pickup at 8:30" held
            # the number "how much is the Sintra tour?" asked for ("... — 85 евро" did)
            number = bool(_DIGIT.search(without_times(lead) if priced_q else lead))
            timed = timed_q and bool(TIME.search(lead))
            ruled = aged_q and bool(AGE_RULE.search(lead))  # an age rule for an age told
            wanted = (
                (number or not amount)
                and (timed or not timed_q)
                and (not duration or bool(TIME_UNITS & held) or holds_short_duration(lead))
                and (not place or bool(ADDRESS.search(lead)))
                and (contact is None or bool(contact.search(lead)))
                and (ruled or not aged_q)
            )
            holds_asked = (bool(asked) or place or contact is not None) and asked <= said and wanted
            near = 0.0
            if meaning is not None:
                cos = cosines[sentence]
                gap = meaning.same - meaning.cross
                if asking is not None:  # as near as the chat question, less a share (its
                    # own cosine stays in `cosines`: what the question asks that no message
                    # holds is still said back, below)
                    cos = max(cos, cosines[asking.text] - REPLY_DISCOUNT * gap)
                if own_q:  # and so is the answer to its writer's own question
                    cos = max(cos, cosines[own_q] - REPLY_DISCOUNT * gap)
                near = max(cos - meaning.cross, 0.0) / max(meaning.same - meaning.cross, 1e-3)
                if cos >= meaning.relevant:
                    score = max(score, MIN_RELEVANCE)
                floor = meaning.cross + MIN_MEANING_AT * (meaning.same - meaning.cross)
                # (an update of something asked stays, shown after what it updates: "интенсив A1
                # теперь стоит 520€, а не 480", 0.10 from "how much is the intensive course?")
                update = bool(asked & said) and bool(UPDATE.search(shown))
                # or a name the question writes, in the other script ("Вы выезжаете в
                # Эшпинью?" and "Valongo e Espinho só c/ marcação", far apart by meaning)
                named = any(bridged.get(w) in called for w in held)
                if (
                    cos < floor
                    and not holds_asked
                    and not (partial and present <= said)
                    and not update
                    and not named
                    and not ruled
                ):
                    # about something else, whatever words it shares; unless it holds every
                    # word asked: "who's your ceo" is 0.15 from "Our CTO is Marcus Lee, CEO
                    # is Dana Whitfield" with USE ("who is your CEO?": above the floor)
                    continue
            if score < MIN_RELEVANCE and not holds_asked and not ruled:
                continue  # shares (almost) nothing with the question: it answers nothing
            score += MEANING_WEIGHT * near
            if meaning is not None and holds_asked:
                score += ASKED_WEIGHT  # a counterweight to the meaning score: with it only
            if amount and number:
                score += AMOUNT_WEIGHT
                if priced_q and MONEY.search(lead):
                    score += MONEY_WEIGHT
            if timed:
                score += TIME_WEIGHT
            if ruled:
                score += AGE_WEIGHT
            if meaning is not None and home is not None and home(h.id):
                score += WORLD_WEIGHT
            score += RANK_WEIGHT * h.score / top
            refused = refuses(sentence, held, asked, translates)
            quote = Quote(h.id, h.author, h.ts, clip(shown), score, holds_asked, refuses=refused)
            if log.isEnabledFor(logging.DEBUG):  # why a sentence won (GRAPHMEM_LOG_LEVEL=DEBUG)
                log.debug(  # ids, not the chat's words
                    "quote candidate %.2f near=%.2f holds_asked=%s %s sentence %d",
                    score,
                    near,
                    holds_asked,
                    h.id,
                    i,
                )
            matched = frozenset(asked & said)
            priced = frozenset(own & HOW_MUCH & said)  # "custa": it says a price
            if wanted:
                held_asked.append((quote, matched, priced, sentence))
            if best is None or score > best.score:
                best, best_asked, best_priced, best_sentence = quote, matched, priced, sentence
    if (place or contact is not None) and best is not None and not best.holds_asked:
        # an address or a contact answers over a sentence near by meaning alone: "Где находится
        # ваш магазин?" quoted "@Bruno fico eu ate as 14h" over "we're at Rua Ferreira Borges 88"
        holding = [row for row in held_asked if row[0].holds_asked]
        if not holding and contact is not None and asks_which(question):
            # or, for a contact, the best sentence that writes one: "Qual é o telefone para
            # marcar o PCR?" quoted "PCR needs an appointment" over "телефон для записи: 22
            # 123 4567", which does not say "PCR" (the sixteenth round of the client trials);
            # not when it only names a phone ("вы чините экраны телефонов?", "posso ligar no
            # sábado?")
            holding = held_asked
        if holding:
            best, best_asked, best_priced, best_sentence = max(holding, key=lambda r: r[0].score)
    if best is None:
        return None
    nearness = None
    if meaning is not None:
        nearness = Nearness(cosines, vectors, meaning.same, meaning.cross, MIN_MEANING_AT)
    # the kinds of value the question asks, a price (or a share of one: "+40%") or a
    # duration, and those it writes itself, its conditions ("we play on tuesday at 17:30,
    # which price is that?"); not a when, which a date answers ("o prazo passa para dia 10")
    kinds = {"money", "percent"} if priced_q else {"duration", "period"} if duration else set()
    kinds |= value_kinds(question) if kinds else set()
    best_said = Said(best_asked, best_priced, best_sentence, frozenset(kinds))
    picked = Picked(best, best_said, held_asked, translations.get(best.message_id, {}))
    read = Read(question, asked, aged_q, chat_words, covered, entity_names, speaker)
    said_in = {h.id: h.text for h in candidates}
    return _whole(settle(picked, read, meaning, nearness, unknown, restating), said_in)


def _whole(quote: Quote | None, texts: Mapping[str, str]) -> Quote | None:
    """The quote, and what was said later under it, each shown whole when its message is
    short (core.sentences.shown_whole): only once the quote is settled, which reads sentences."""
    if quote is None:
        return None
    text = texts.get(quote.message_id)
    shown = quote.sentence if text is None else shown_whole(text, quote.sentence)
    return replace(quote, sentence=shown, later=_whole(quote.later, texts))
