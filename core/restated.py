"""What a quote shows after it (core/quote.py): the newest later sentence that restates or
updates it ("the flexible desk costs 120 euros", then "from December it costs 130 euros").
Both are shown, dated; which one holds is the reader's call, as no rule here can tell an
update from a sibling by meaning ("the Basic plan is $19" / "the Business plan is $79" are as
alike as a price and its update, measured with USE)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from core.identity import sound_term
from core.index.words import ChatWords, index_tokens
from core.language import lemma, tokens
from core.quoted import Quote
from core.sentences import clip, sentences, shown_whole
from core.variant import other_kinds
from core.vocabulary import equivalents

# a sentence that says it replaces what was said: "update: transfer from airport is now 75€,
# not 65", "correção: o pack agora é 160€", "обновление: интенсив A1 теперь стоит 520€, а не 480"
UPDATE = re.compile(
    r"(?i)\b(?:updated?|correction|corrected|now|no longer|anymore|atualiza\w*|correção|"
    r"correcao|agora|passou a|passa a|passa para|passa de|mudança|mudanca|já não|ja nao|"
    r"preço antigo|old price|desde este mês|"
    # a value that moved: "a limpeza hidratante passou para 62€", "wash+dry goes up to 9,50€",
    # "a entrega mínima baixa para 12€"; and "afinal" ("a sala grande afinal é 50€/h")
    r"passou para|(?:sobe|subiu|baixa|baixou|desce|desceu) para|(?:goes|went|gone) (?:up|down) to|"
    r"afinal|"
    # from a day on: "a partir de hoje entregas só com mínimo 15 sacos", "from Monday wash+dry
    # 8kg ...", "с сегодняшнего дня перила из нерж. 165€" (not "a partir de 50€": a price)
    r"a partir (?:de hoje|de amanhã|de amanha|desta semana|da próxima semana|da proxima semana|"
    r"de segunda)|from (?:today|tomorrow|monday|next week|this week)|"
    r"с (?:сегодняшнего|завтрашнего|понедельника|этой недели|следующей недели)|"
    r"обновлени\w*|исправлени\w*|поправк\w*|"
    r"теперь|уже не|больше не)\b"
    # the value replaced: "now 30€, not 25", "а не 480", "сансет круиз с июня 40€, не 35",
    # "вторая сессия в 17:00, не в 16:00"
    r"|(?:\bnot|\bnão|\bnao|(?<!\w)а не|(?<!\w)не(?: до| в| за)?)\s+\d"
)


@dataclass(frozen=True)
class Said:
    """What the quote holds of the question: its asked words, its price words, its sentence
    as split (the key of `Nearness`), and the kinds of value the question asks (_KINDS'
    names: "money" and "percent" for a price, "duration" and "period" for how long, with the
    kinds of the values the question writes; none: any)."""

    asked: frozenset[str]
    priced: frozenset[str]
    sentence: str
    kinds: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Nearness:
    """The candidate sentences' cosines with the question and their vectors, and the
    model's calibrated same / cross-topic cosines (core/calibration.py)."""

    cosines: Mapping[str, float]
    vectors: Mapping[str, npt.NDArray[np.float32]]
    same: float
    cross: float
    floor_at: float  # the quote's meaning floor, as a share of the gap (quote.MIN_MEANING_AT)


def said_later(
    best: Quote,
    said: Said,
    held_asked: Sequence[tuple[Quote, frozenset[str], frozenset[str], str]],
    near: Nearness,
    *,
    asked_words: int,
) -> Quote | None:
    """The newest sentence of a later message on the same thing as the quote, among the
    candidates that hold what the question wants (`held_asked`: quote, asked words held,
    price words held, sentence), or None."""
    # a restatement is a gap closer than two messages of one topic: with USE, updates
    # 0.54-0.83 from what they update, later sentences on other things of the same
    # question 0.33-0.48 (bench.answers' tuning parts: 1 of 96 answers shows one)
    gap = near.same - near.cross
    restates = near.same + gap
    quoted = near.vectors[said.sentence]
    # a quote that holds no asked word was chosen by its meaning alone: a later
    # restatement of it must be about as near the question ("Os cacifos custam 10 euros
    # por mês" and "a mesa flexível passa a custar 130 euros por mês" are 0.52 alike, but
    # 0.34 and 0.24 from "Сколько стоит дневной абонемент?")
    as_near = near.cosines[said.sentence] - near.floor_at * gap
    kinds = value_kinds(said.sentence)
    same_thing = [
        (q, matched)
        for q, matched, priced, sentence in held_asked
        if _same_kind(kinds, sentence)
        and not other_kinds(said.sentence, sentence)
        and (
            (
                float(near.vectors[sentence] @ quoted) >= restates
                and (bool(said.asked) or near.cosines[sentence] >= as_near)
            )
            # or both hold every asked word, two or more, and the price words the quote
            # holds: "индивидуальное занятие стоит 2200" updates one item of a sentence that
            # priced two, 0.40 from it ("Лимит хранилища на тарифе Team 100 ГБ" is no price)
            or (q.holds_asked and best.holds_asked and asked_words > 1 and said.priced <= priced)
            or _updates(
                q, sentence, said, matched, float(near.vectors[sentence] @ quoted) >= near.same
            )
        )
    ]
    # marked in itself or in the label the quote shows with it ("поправка:" before "сансет
    # круиз с июня 40€, не 35": a sentence of its own)
    updates = {q.message_id for q, _, _, sentence in held_asked if _marked(q, sentence)}
    return _newest(best, said.asked, same_thing, updates)


_NUMBER = re.compile(r"(?<!\w)\d+(?:[.,]\d+)?")  # not the 1 of "A1"
# the value an update says it replaces: "now 30€, not 25", "agora 20€, não 18€", "а не 25",
# "до 16:00, не до 18"
_REPLACED = re.compile(
    r"(?i)(?:\bnot|\bnão|\bnao|(?<!\w)не|(?<!\w)вместо|\binstead of|\bem vez de)\s+"
    # "не до 18", "not until 6", "não até às 18h"
    r"(?:(?:до|until|till|at|até|ate|às|as)\s+)*(\d+(?:[.,]\d+)?)"
)
# a number written out ("group lessons are now max six riders"; not one, which is also "a":
# "um", "uma") and a weekday ("паста-воркшоп теперь по средам, не по четвергам") are values
# an update gives as a digit is
_SPELLED = {
    w: str(n)
    for n, words in enumerate(
        (
            "two dois duas два две",
            "three três tres три",
            "four quatro четыре",
            "five cinco пять",
            "six seis шесть",
            "seven sete семь",
            "eight oito восемь",
            "nine nove девять",
            "ten dez десять",
            "eleven onze одиннадцать",
            "twelve doze двенадцать",
        ),
        start=2,
    )
    for w in words.split()
}
_DAYS = {
    w: f"day{n}"
    for n, words in enumerate(
        (
            "monday mondays segunda segundas понедельник",
            "tuesday tuesdays terça terças terca tercas вторник",
            "wednesday wednesdays quarta quartas среда",
            "thursday thursdays quinta quintas четверг",
            "friday fridays sexta sextas пятница",
            "saturday saturdays sábado sábados sabado sabados суббота",
            "sunday sundays domingo domingos воскресенье",
        )
    )
    for w in words.split()
}


def _values(text: str) -> set[str]:
    """The values a sentence gives: its numbers, spelled or in digits, and its weekdays."""
    out = set(_NUMBER.findall(text))
    for w in tokens(text):
        value = _SPELLED.get(w) or _DAYS.get(w) or _DAYS.get(lemma(w))
        if value is not None:
            out.add(value)
    return out


# what a number counts (money, percent, clock, duration, period, weight), read from the word
# or sign beside it: an update replaces a value of its own kind ("sessão normal 40€" -> "passa
# a 45€"), and a sentence that only gives other kinds is no earlier value of it ("reembolso
# até 48h" is not what "o preço subiu para 70€" replaced; the trial chats, 2026-12-07)
_KINDS = (
    ("money", r"€|eur\w*|\$|usd|r\$|reais|real|₽|руб\w*|р\.|dollars?|libras?|pounds?|£"),
    ("percent", r"%|por ?cento|percent|процент\w*"),
    ("clock", r"h(?:\d\d)?\b|:\d\d"),  # "9h-19h", also a duration: "48h", "dura 2h"
    ("duration", r"min\w*|мин\w*|horas?|hours?|hrs?|час\w*"),
    # days to years: "válido 1 ano" -> "6 месяцев"
    (
        "period",
        r"dias?|days?|дн\w*|дня|день|сут\w*|semanas?|weeks?|недел\w*|"
        r"m[eê]s(?:es)?|months?|месяц\w*|anos?|years?|лет|год\w*",
    ),
    ("weight", r"kg|кг|g\b|gramas?|grams?|гр?\b"),
)
_KIND_AFTER = re.compile(
    r"(?i)(?<!\w)\d+(?:[.,]\d+)*\s*(?:(" + ")|(".join(p for _, p in _KINDS) + "))"
)
# a unit is no thing an update shares with the earlier sentence it updates: "euros" joined
# "whitening costs 250 euros" to "a partir de janeiro a limpeza passa para 50 euros" in a chat
# of 17 messages
_UNIT = re.compile(r"(?i)(?:" + "|".join(p for _, p in _KINDS) + ")")
_MONEY_BEFORE = re.compile(r"(?i)(?:€|\$|r\$|£|₽)\s*\d")
_FREE = re.compile(r"(?i)\b(?:grátis|gratis|gratuit[oa]s?|free|бесплатн\w*)\b")


def value_kinds(text: str) -> set[str]:
    """The kinds of value a sentence gives (_KINDS), "free" as money."""
    out = {_KINDS[i][0] for m in _KIND_AFTER.finditer(text) for i, g in enumerate(m.groups()) if g}
    if "clock" in out:
        out.add("duration")
    if _MONEY_BEFORE.search(text) or _FREE.search(text):
        out.add("money")
    return out


def _same_kind(kinds: Set[str], later: str) -> bool:
    """A later sentence gives a value of the quote's kinds (`kinds`, value_kinds of the quote), or
    one of them gives none: "correção: corte homem agora 17€ a partir de segunda" is no update
    of "ter-sáb 9h-19h, domingo e segunda fechado" (found by hand, 2026-12-07)."""
    said = value_kinds(later)
    return not (kinds and said) or bool(kinds & said)


def _marked(q: Quote, sentence: str) -> bool:
    """The sentence says it updates something, or the label shown with it does."""
    return bool(UPDATE.search(sentence) or UPDATE.search(q.sentence))


def _updates(q: Quote, sentence: str, said: Said, matched: frozenset[str], alike: bool) -> bool:
    """A sentence that says it is an update and holds two or more of the quote's asked words,
    all but perhaps one ("update: transfer from airport is now 75€" for "the transfer from
    Lisbon airport", 0.4 from "airport transfer from Lisbon airport is 65€" with USE, under a
    restatement's line), or one of them and the quote's own number beside a new one
    ("интенсив A1 теперь стоит 520€, а не 480" after "o curso intensivo A1 custa 480€"), or
    every one of them and a new number, as alike as two messages of one topic (`alike`: "a
    consulta inicial passa a 95€" after "consulta inicial (1h) custa 80€", 0.46 apart with
    USE, under a restatement's 0.49): it restates the quote whatever the model makes of the
    two."""
    if not _marked(q, sentence):
        return False
    shared = said.asked & matched
    if len(shared) >= max(2, len(said.asked) - 1):  # "lesson" alone: another lesson's price
        return True
    numbers, old = _values(sentence), _values(said.sentence)
    if not shared or not numbers - old:
        return False
    return bool(numbers & old) or (alike and shared == said.asked)


def _newest(
    best: Quote,
    best_asked: frozenset[str],
    same_thing: Sequence[tuple[Quote, frozenset[str]]],
    updates: Set[str],
) -> Quote | None:
    """The newest later sentence that holds every asked word the quote holds (and a number,
    when the question asks an amount: `held_asked` holds only those). A sibling that lacks
    one of the quote's asked words ("Basic") is not shown, unless it says it is an update."""
    newer = [
        (q, best_asked <= matched)
        for q, matched in same_thing
        if q.message_id != best.message_id
        and q.ts > best.ts
        and (best_asked <= matched or q.message_id in updates)
    ]
    # one that holds every asked word the quote holds before one that only says it is an
    # update: "a carrinha pequena passa a 38€/hora" before the newer "the minimum for the
    # large van is now 4 hours" under the small van's price (the movers' trial chat, once a
    # van was "carrinha")
    whole = [q for q, holds in newer if holds] or [q for q, _ in newer]
    return max(whole, key=lambda q: (q.ts, q.score)) if whole else None


# a negation is no word an update shares with what it updates: "без глютена не делаем" and
# "поправка: кейтеринг заказывать минимум за 7 дней, не за 5" (the seventeenth round)
_NEGATIONS = frozenset("not no não nao nem не ни нет".split())


@dataclass(frozen=True)
class Written:
    """A later message the word index found by the quote's own words."""

    message_id: str
    author: str
    ts: datetime
    text: str


def later_of(
    best: Quote,
    said: Said,
    held_asked: Sequence[tuple[Quote, frozenset[str], frozenset[str], str]],
    near: Nearness,
    asked_words: int,
    vectors: Callable[[list[str], Mapping[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]],
    restating: Callable[[str], Sequence[Written]] | None,
    words: ChatWords,
) -> Quote | None:
    """What the team said later on the quote's thing, shown under it: the newest later
    candidate sentence that restates it (said_later), else the newest later message that says
    it updates it, found by the quote's own words (`restating`, _newest_related); `vectors`: the
    sentences' vectors (Meaning.vectors); `words`: the chat's word statistics."""
    later = said_later(best, said, held_asked, near, asked_words=asked_words)
    if later is not None or restating is None:
        return later
    # a label ("caução:") with what it labels: alone it is like no update of it
    sentence = said.sentence
    whole = best.sentence if sentence.endswith(":") else sentence
    got = _related(best, whole, sentence, near, vectors, restating, words, later=True)
    # of the value the question asks, when it asks one: "how long is the bootcamp?" quoted
    # "lasts 12 weeks and costs $1,900", and "the bootcamp now costs $2,100" updates the price
    if got is not None and said.kinds and not _same_kind(said.kinds, got.sentence):
        return None
    return got


def updated_by(
    best: Quote,
    said: Said,
    near: Nearness,
    vectors: Callable[[list[str], Mapping[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]],
    restating: Callable[[str], Sequence[Written]] | None,
    words: ChatWords,
) -> Quote | None:
    """For a quote that says it updates something, the earlier sentence it updates
    (_newest_related), shown above it as a quote is above its update; None when the quote is no
    update or nothing earlier is found."""
    sentence = said.sentence
    # the update as shown: its mark and its value may be in another sentence of it ("...
    # passa a 10 anos. sem exceções")
    whole = best.sentence
    if restating is None or not _marked(best, sentence) or not _values(whole):
        return None
    return _related(best, whole, sentence, near, vectors, restating, words, later=False)


def _related(
    best: Quote,
    whole: str,
    sentence: str,
    near: Nearness,
    vectors: Callable[[list[str], Mapping[str, npt.NDArray[np.float32]]], npt.NDArray[np.float32]],
    restating: Callable[[str], Sequence[Written]],
    words: ChatWords,
    *,
    later: bool,
) -> Quote | None:
    """The sentence _newest_related finds for the quote `whole` (`sentence`: the part of it
    that was scored), later or earlier, as a quote to show with it."""
    vector = vectors([whole], {})[0] if whole != sentence else near.vectors[whole]
    found, line = restating(whole), (near.same + near.cross) / 2

    def embed(texts: list[str]) -> npt.NDArray[np.float32]:
        return vectors(texts, {})

    got = _newest_related(
        whole, vector, found, embed, line, words, best.ts, later=later, same=near.same
    )
    if got is None:
        return None
    w, shown = got
    return Quote(w.message_id, w.author, w.ts, clip(shown_whole(w.text, shown)), 0.0, False)


def _newest_related(
    sentence: str,
    vector: npt.NDArray[np.float32],
    found: Sequence[Written],
    embed: Callable[[list[str]], npt.NDArray[np.float32]],
    line: float,
    words: ChatWords,
    when: datetime,
    *,
    later: bool,
    same: float,
) -> tuple[Written, str] | None:
    """The newest sentence of `found` written after `when` that says it updates `sentence`
    (later), or written before it that `sentence` updates (not later; `same`: the likeness a
    pair sharing one word needs).

    Later: the newest later sentence that says it updates the quote (`sentence`, its `vector`,
    written `when`), found by the quote's own words rather than the question's (`found`: the
    word index searched with the quote): "correction: keratin now 95€" was never a candidate
    for "сколько стоит кератиновое выпрямление волос?", which the quote "Keratin treatment is
    90€" answered by meaning. It shares a word with the quote that few messages hold
    (ChatWords.rare: "euros" joined "Day pass is 15 euros" to "a mesa flexível passa a
    custar 130 euros", 0.52 alike), gives a number the quote does not (when the quote gives
    one), and is as alike as a message that joins a topic is to it (`line`: halfway from the
    model's cross-topic to its same-topic pair cosine, where routing joins a world; at the
    same-topic mean itself half of one topic's pairs fall short: "correção: a caução subiu
    para 500€" was 0.311 from "caução: 300€ bloqueados no cartão de crédito", the mean
    0.313). Only update-marked messages are embedded: most questions embed nothing more.

    Earlier: the later rule the other way round: for a quote that says it updates something
    ("a partir de janeiro a limpeza passa para 50 euros"), the newest earlier sentence it updates
    ("consulta de avaliação 60 euros, limpeza 45 euros"), found by stricter rules: no
    question; a value of the kind the quote gives, which the quote does not, and the value
    the quote says it replaces when it names one ("not 22h"); two of the quote's rare words
    (units aside), or one beside the value named, or one and as alike as one topic's
    messages (`same`, the model's same-topic pair cosine: 0.49 here, 0.24 for "латте-арт
    курс 70€" and "o curso de espresso passa para 95€"); else as the later rule. The quote
    alone told a client the price from January but not the price today (found by hand in
    the console, 2026-12-07)."""
    own = {
        t
        for t in index_tokens(sentence)
        if not _NUMBER.fullmatch(t)
        and t not in _NEGATIONS
        and (later or not _UNIT.fullmatch(t))  # a later update may share its unit only:
        and words.rare(t)  # "coberto 8€/dia" -> "с 1 марта 9€/день" (the trials)
    }
    # or its everyday equivalent: "a aula avulsa passa a 38€" updates "a single driving lesson
    # is 35€" (lesson / aula)
    own |= {e for e in equivalents(own) if words.idf(e) > 0}
    # or its sound in the other script: "паста-воркшоп" updates "the pasta workshop"
    heard = {t for w in own if (t := sound_term(w, other=True)) is not None}
    quoted, kinds = _values(sentence), value_kinds(sentence)
    # (message, sentence, shown, weak: alike from `same` on, not `line`)
    parts: list[tuple[Written, str, str, bool]] = []
    for w in found:
        if (w.ts <= when or not UPDATE.search(w.text)) if later else w.ts >= when:
            continue
        pieces = sentences(w.text)
        for i, part in enumerate(pieces):
            if not later and part.rstrip().endswith("?"):
                continue  # a question states no value an update replaces
            shown = f"{pieces[i - 1]} {part}" if i and pieces[i - 1].endswith(":") else part
            # the update gives a value the sentence it updates does not (any, when it gives none)
            old, new = (quoted, _values(part)) if later else (_values(part), quoted)
            if later and not UPDATE.search(shown):
                continue
            if (later and old and not new - old) or (not later and new and not old - new):
                continue
            # with its label: "поправка по цене воркшопа:" names the thing, "теперь 320€ с
            # марта" gives the value (the trial chats' wrong answers read together, 2026-12-06)
            toks = set(index_tokens(shown))
            # by dictionary form and as written ("garantia", read as the verb "garantir")
            sounds = {sound_term(t) for t in toks} | {sound_term(w) for w in tokens(shown)}
            # or the quote's own number as the one replaced, in any language: "поправка:
            # срочный выезд теперь 30€, а не 25" shares no word with "urgências no mesmo dia:
            # mais 25€ de taxa" (the fourteenth round of the client trials)
            named = {m.group(1) for m in _REPLACED.finditer(shown if later else sentence)}
            if later:
                if not _same_kind(kinds, part):
                    continue
                if own & toks or heard & sounds or named & old:
                    parts.append((w, part, shown, False))
                continue
            # the earlier sentence an update updates: a value of the kind the update gives
            # (the value it names as replaced, when it names one), and two of its rare words,
            # or one beside the value named. One shared word paired "o curso de espresso
            # passa para 95€" with "латте-арт курс 70€", the value alone "day pass is now 18€,
            # not 15€" with "шкафчики 15€ в месяц" (the trial chats, 2026-12-07)
            if (named and not named & old) or not kinds & value_kinds(part):
                continue
            shared = max(len(own & toks), len(heard & sounds))
            if shared >= 2 or (shared and named):
                parts.append((w, part, shown, False))
            elif shared:  # one word: only as alike as one topic's messages are
                parts.append((w, part, shown, True))
    if not parts:
        return None
    # alone or with its label, whichever is nearer ("update:" says nothing of the thing)
    texts = list(dict.fromkeys(t for _, part, shown, _ in parts for t in (part, shown)))
    near = dict(zip(texts, embed(texts) @ vector, strict=True))
    alike = [
        (w, shown, weak)
        for w, part, shown, weak in parts
        if max(near[part], near[shown]) >= (same if weak else line)
    ]
    # the newest, of those sharing more than a word first: a newer sentence sharing one word
    # ("Sessão retrato em estúdio: 1h, 80€") is no earlier value of "fotos tipo passe agora
    # 14€" when "Fotos tipo passe: 12€" is there
    best = max(alike, key=lambda x: (not x[2], x[0].ts), default=None)
    return None if best is None else (best[0], best[1])
