"""A chat's question and the reply that answers it, as the quote reads them (core/quote.py).

Teams ask each other what clients later ask the bot: "Ana: сколько они сказали будет
стоить?" / "Igor: диагностика 2500", "Tom: who approves that?" / "Rui: a Joana aprova". The
reply alone shares no word with "сколько стоит ремонт машины?" and is far from it by meaning
(0.24 with USE, against 0.29 for "yes, parking is 15 euros a night" of another topic); the
question it answers is near (0.50). So a reply is read with the question before it: its
sentences count that question's words as their own, are as near the client's question as
that question less half the calibrated gap (core/quote.py, REPLY_DISCOUNT), and a chat
question among the evidence brings its reply along.

A reply is the message a front-end says replies to one that asks (a Telegram reply, a Slack
thread: in a busy group the answer is rarely the next message), otherwise the next message of
the chat, by another author, within REPLY_S of a message with a sentence that asks (ends with
"?").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from core.index.words import MessageIndex, index_tokens
from core.language import key_tokens
from core.recall import Hit
from core.sentences import lead_in_question

REPLY_S = 600.0
_ASKS = re.compile(r"\?(?:\s|$)")
# a question reported for a client, without a question mark: "a mãe de uma cliente perguntou se
# temos sem glúten" (answered by the next message, "без глютена не делаем"), "a guy asked if we
# sell machines", "клиент спрашивал, есть ли парковка", "ppl keep asking on insta if we're open
# on mondays lol" (the twenty-eighth round)
_REPORTED = re.compile(
    r"(?i)\b(?:asked|asks|asking)\s+(?:\w+\s+){0,3}?(?:if|whether|about)\b"
    r"|\bpergunt\w*\s+(?:\w+\s+){0,3}?(?:se|sobre|por)\b"
    r"|(?<!\w)спр(?:ашива|оси)\w*"
)


# who asked, counted: "2 ppl asked me about watch batteries today" answers nothing (the
# thirtieth round read the "2" as an answer)
_ASKERS = re.compile(
    r"(?i)\b\d+\s+(?:ppl|people|persons|guys|clients?|customers?|pessoas|clientes|"
    r"человек\w*|клиент\w*)"
)


# a reply that says yes to the chat question before it: what it confirms is in that question
# ("Kate: 30 min solo jet ski is 70€, 1h is 120€ right?" / "Rui: sim, e passageiro extra +15€
# por volta": the thirty-ninth round quoted the reply alone for "quanto custa meia hora de
# mota de água?")
_CONFIRMS = re.compile(
    r"(?i)^\W*(?:yes|yep|yeah|yup|correct|exactly|right|confirmed|sim|certo|exato|exacto|isso|"
    r"confirmo|confirmado|да|ага|верно|точно|подтверждаю)(?!\w)"
)


def confirms(sentence: str) -> bool:
    """The sentence opens by saying yes ("sim, e ...", "yes, ...", "да, ...")."""
    return bool(_CONFIRMS.match(sentence))


def reports_question(sentence: str) -> bool:
    """The sentence reports what someone asked ("perguntou se temos sem glúten"): a question
    for the team, not an answer to a client."""
    return bool(_REPORTED.search(sentence))


# (a message's id) -> (the chat question it replies to, the reply it got), either None
Thread = Callable[[str], tuple[Hit | None, Hit | None]]


def replying(asked: Hit | None) -> str:
    """How an evidence message that replies to a team question says so to a model: "диагностика
    2500" alone does not say what costs 2500."""
    return f', replying to {asked.author}: "{asked.text}"' if asked is not None else ""


def asks(text: str) -> bool:
    """A sentence of it asks: "noted. and what payment methods do we take? the bank client
    asked" is answered by the next message ("transferência bancária, MB Way ou cartão")."""
    return bool(_ASKS.search(text) or _REPORTED.search(text))


def thread_of(index: MessageIndex) -> Thread:
    """The chat's questions and replies around a message, read off the message index."""

    def hit(row: int) -> Hit:
        return Hit(
            index.ids[row], 0.0, ("reply",), index.ts(row), index.authors[row], index.texts[row]
        )

    def pair(before: int, after: int) -> bool:
        return (
            before >= 0
            and after < len(index)
            and asks(index.texts[before])
            and index.authors[before] != index.authors[after]
            # a message a front-end says answers another is no reply to the one before it
            and index.replied_to.get(index.ids[after], index.ids[before]) == index.ids[before]
            and (index.ts(after) - index.ts(before)).total_seconds() <= REPLY_S
        )

    def linked(message_id: str | None) -> int | None:
        return index.row_of.get(message_id) if message_id is not None else None

    def around(message_id: str) -> tuple[Hit | None, Hit | None]:
        row = index.row_of.get(message_id)
        if row is None:
            return None, None
        if (parent := linked(index.replied_to.get(message_id))) is not None:
            asked = hit(parent) if asks(index.texts[parent]) else None
        else:
            asked = hit(row - 1) if pair(row - 1, row) else None
        if (child := linked(index.first_reply.get(message_id))) is not None:
            reply = hit(child) if asks(index.texts[row]) else None
        else:
            reply = hit(row + 1) if pair(row, row + 1) else None
        return asked, reply

    return around


def with_replies(
    candidates: list[Hit], thread: Thread | None, skip: set[str]
) -> tuple[list[Hit], dict[str, Hit]]:
    """The candidates with the reply of each chat question among them (ranked as the
    question), and each candidate's question it replies to."""
    if thread is None:
        return candidates, {}
    out = list(candidates)
    taken = {h.id for h in out} | skip
    asked_by: dict[str, Hit] = {}
    for h in candidates:
        before, after = thread(h.id)
        if before is not None:
            asked_by[h.id] = before
        if after is not None and after.id not in taken:
            out.append(replace(after, score=h.score))
            taken.add(after.id)
            asked_by[after.id] = h
    return out, asked_by


# what a reported question may hold of its answer: "опять спрашивали про MTB — мы НЕ делаем
# маунтинбайк" (a negation, a number)
_ANSWERS = re.compile(
    r"(?i)\d|\b(?:not|não|nao|nem|never|don'?t|doesn'?t|won'?t|can'?t)\b|(?<!\w)(?:не|ни|нет)(?!\w)"
    # "no" as an answer, not the Portuguese "in the" ("uma senhora perguntou se podemos espalhar
    # as cinzas no rio": the thirty-second round)
    r"|(?i:\bno\b(?=\s*(?:[,.!;:—-]|$)))"
)
# a reported question and its answer after a dash: "туристы спрашивают про собак — маленькие
# собаки можно, если на руках", "cliente perguntou se passamos fatura com NIF — sim, sempre"
# (not "— what do we tell them?", "— Marta?", "— пишу им:")
_DASH = re.compile(r"\s[—–-]\s")


def _answered_after(sentence: str) -> bool:
    parts = _DASH.split(sentence, maxsplit=1)
    if len(parts) < 2:
        return False
    after = parts[1].strip()
    return len(after.split()) >= 2 and not after.endswith(("?", ":"))


# a sentence that only says who asked the question before it ("e Amex? um cliente perguntou")
_ASKED_ONLY = frozenset(
    key_tokens(
        "ask asked client clients customer someone guy people cliente clientes alguém pessoal "
        "perguntar perguntou perguntaram клиент клиенты кто-то спросить спрашивать"
    )
)


def answers_nothing(parts: list[str], i: int) -> bool:
    """Whether sentence i of a message answers nothing a client asks: a question (someone
    else's, overheard in a group), a question reported without its answer ("a mãe de uma
    cliente perguntou se temos sem glúten"), or who asked the question before it ("e Amex? um
    cliente perguntou": read as its writer's answer, it was quoted for "American Express?")."""
    sentence = parts[i]
    if sentence.endswith("?"):
        return True
    if (
        reports_question(sentence)
        and not _ANSWERS.search(_ASKERS.sub("", sentence))
        and not _answered_after(sentence)
    ):
        return True
    return bool(
        i and lead_in_question(parts[i - 1]) and _ASKED_ONLY.issuperset(index_tokens(sentence))
    )
