"""What a reply says about a person taking the conversation, beside what core.handoff does.

With no manager configured (no hand-off), a client who asks for a person ("quero falar com uma
pessoa", "can someone call me?") is told there is no one to pass them to; before, a statement
got "Anotado (nenhum fato reconhecido)" and a question "I could not find anything about that
..., or ask for a person and someone will follow up": a promise nobody would keep (found in the
console, 2026-12-07 late). With a hand-off raised, the front-end's follow-up line
(bot/conversation.with_follow_up) says it all where the reply itself had nothing to say: "Noted
(no facts recognised)" and "I could not find anything ... Or ask for a person" came before "A
person from our team will follow up with you shortly"."""

from __future__ import annotations

from core.answering import not_found
from core.handoff.intent import rules_intent
from core.models import Reply
from core.texts import t


def asks_for_person(text: str) -> bool:
    """The message asks for a person (the hand-off's rules, en/pt/ru)."""
    intent = rules_intent(text)
    return intent is not None and "person" in intent.wants


def said_nothing(reply: Reply, lang: str, *, person: bool) -> bool:
    """The reply only says that nothing was found or recognised."""
    if reply.answer is not None:
        return reply.answer.answer == not_found(lang, person)
    ingest = reply.ingest
    return ingest is not None and not (ingest.stored or ingest.pending or ingest.rejected)


def no_person(reply: Reply, lang: str) -> Reply:
    """The reply to a request for a person where no manager is configured: that there is no
    one, after the answer when there is one."""
    alone = t("no_person", lang)
    if said_nothing(reply, lang, person=False):
        return _saying(reply, alone)
    return _saying(reply, f"{reply.text}\n\n{alone}")


def left_to_follow_up(reply: Reply, lang: str) -> Reply:
    """A reply that raised a hand-off and had nothing to say: empty, for the follow-up line."""
    if reply.handoff is None or not said_nothing(reply, lang, person=True):
        return reply
    return _saying(reply, "")


def _saying(reply: Reply, text: str) -> Reply:
    """The reply with this text, in its answer too (what Slack renders)."""
    update: dict[str, object] = {"text": text}
    if reply.answer is not None:
        update["answer"] = reply.answer.model_copy(update={"answer": text})
    return reply.model_copy(update=update)
