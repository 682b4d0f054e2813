"""Messages that look like a real chat's (short, typos, en/pt/ru mixed) for the load benchmarks.

Statements name people, companies and services so the offline extractor finds facts in some of
them; the rest is chit-chat. Questions ask about names the chat used before. Deterministic for a
seed, so two runs compare the same traffic.
"""

from __future__ import annotations

import random

PEOPLE = ["Ana", "Bruno", "Carla", "Dmitri", "Olga", "Pedro", "Ivan", "Maria", "joao", "sveta"]
ORGS = ["Acme", "Globex", "Initech", "Yandex", "Nubank", "Stone", "Tinkoff", "Hooli"]
SERVICES = ["billing", "auth", "db2", "redis", "search", "payments", "gateway", "crm", "etl"]

STATEMENTS = [
    "{p} works at {o}",
    "{p} works for {o} now",
    "{s} depends on {s2}",
    "the {s} service depends on {s2}",
    "{p} trabalha na {o}",
    "o {s} depende do {s2}",
    "{p} работает в {o}",
    "{s} зависит от {s2}",
    "lunch at noon, anyone",
    "ok, thx",
    "deploy of {s} is done, pls check",
    "vou almoçar, volto já",
    "сегодня релиз {s} в 18:00",
    "{p} is on vacation until monday",
    "meeting moved to 3pm, sory",
    "{p} will call {o} tomorow",
]

QUESTIONS = [
    "where does {p} work?",
    "what does {s} depend on?",
    "who works at {o}?",
    "onde {p} trabalha?",
    "do que o {s} depende?",
    "где работает {p}?",
    "от чего зависит {s}?",
    "what do we know about {s}?",
]


def message(rng: random.Random, question: bool) -> str:
    template = rng.choice(QUESTIONS if question else STATEMENTS)
    s, s2 = rng.sample(SERVICES, 2)
    return template.format(p=rng.choice(PEOPLE), o=rng.choice(ORGS), s=s, s2=s2)


def stream(seed: int, n: int, question_every: int = 5) -> list[tuple[str, bool]]:
    """n (text, is_question) pairs; every question_every-th message is a question."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        q = question_every > 0 and i % question_every == question_every - 1
        out.append((message(rng, q), q))
    return out
