"""User-facing strings of the core, in English, Portuguese and Russian."""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "nothing_found": {
        "en": "I could not find anything about that in what I have been told. Ask me about "
        "what the team has shared here.",
        "pt": "Não encontrei nada sobre isso no que me contaram. Pergunte sobre o que a equipe "
        "compartilhou aqui.",
        "ru": "Я не нашёл ничего об этом в том, что мне рассказали. Спросите о том, чем "
        "поделилась команда.",
    },
    "nothing_about": {
        "en": "I have nothing about {names} yet. Ask me about what the team has shared here.",
        "pt": "Ainda não tenho nada sobre {names}. Pergunte sobre o que a equipe compartilhou "
        "aqui.",
        "ru": "Пока у меня нет ничего про «{names}». Спросите о том, чем поделилась команда.",
    },
    # after the two above, only where a hand-off reaches a manager (core.handoff): a bot with
    # no manager configured promised a follow-up nobody would see
    "ask_person": {
        "en": "Or ask for a person and someone will follow up.",
        "pt": "Ou peça para falar com uma pessoa e alguém vai te responder.",
        "ru": "Или попросите связать вас с сотрудником.",
    },
    # a client asking for a person where no manager is configured
    "no_person": {
        "en": "There is no one here I can pass you to. Ask me about what the team has shared here.",
        "pt": "Não há aqui ninguém a quem eu possa passar a conversa. Pergunte sobre o que a "
        "equipe compartilhou aqui.",
        "ru": "Здесь некому передать ваш запрос. Спросите о том, чем поделилась команда.",
    },
    "not_direct": {
        "en": "I have no direct answer to that. What I know:",
        "pt": "Não tenho uma resposta direta para isso. O que eu sei:",
        "ru": "Прямого ответа на это у меня нет. Вот что я знаю:",
    },
    "yes_fact": {"en": "Yes, {fact}.", "pt": "Sim, {fact}.", "ru": "Да, {fact}."},
    "no_fact": {
        "en": "No, I have no fact that {fact}.",
        "pt": "Não, não tenho fato de que {fact}.",
        "ru": "Нет, у меня нет факта, что {fact}.",
    },
    "no_longer": {
        "en": "No, not any more.",
        "pt": "Não, não mais.",
        "ru": "Нет, уже нет.",
    },
    "instead": {
        "en": "What holds now: {fact}.",
        "pt": "O que vale agora: {fact}.",
        "ru": "Сейчас верно: {fact}.",
    },
    "reverse": {
        "en": "The other way round is known: {path}.",
        "pt": "O contrário é conhecido: {path}.",
        "ru": "Известно обратное: {path}.",
    },
    "said_later": {"en": "Later:", "pt": "Depois:", "ru": "Позже:"},
    "waits_review": {
        "en": "A message says so, but it is waiting for review.",
        "pt": "Uma mensagem diz isso, mas ela aguarda revisão.",
        "ru": "Об этом есть сообщение, но оно ждёт проверки.",
    },
    "nearest": {
        "en": "The nearest I have:",
        "pt": "O mais próximo que tenho:",
        "ru": "Ближайшее, что у меня есть:",
    },
    "quote_from": {
        "en": "(from a message by {author} on {date})",
        "pt": "(de uma mensagem de {author} em {date})",
        "ru": "(из сообщения {author} от {date})",
    },
    "ambiguous": {
        "en": "“{name}” could mean more than one: {options}. Which one do you mean?",
        "pt": "“{name}” pode ser mais de um: {options}. Qual deles você quer dizer?",
        "ru": "«{name}» может означать несколько: {options}. Кого из них вы имеете в виду?",
    },
    "paths": {"en": "Path", "pt": "Caminho", "ru": "Путь"},
    "remembered": {
        "en": "Remembered {n} fact(s).",
        "pt": "Memorizei {n} fato(s).",
        "ru": "Запомнил фактов: {n}.",
    },
    "pending": {
        "en": "{n} low-confidence fact(s) wait in /review.",
        "pt": "{n} fato(s) de baixa confiança aguardam em /review.",
        "ru": "Фактов с низкой уверенностью на проверке (/review): {n}.",
    },
    "rejected": {
        "en": "Refused {n}: {reasons}.",
        "pt": "Recusei {n}: {reasons}.",
        "ru": "Отклонено {n}: {reasons}.",
    },
    "closed": {
        "en": "{n} earlier fact(s) marked as no longer true.",
        "pt": "{n} fato(s) anterior(es) marcado(s) como não mais válido(s).",
        "ru": "Фактов отмечено как неактуальные: {n}.",
    },
    "noted": {
        "en": "Noted (no facts recognised).",
        "pt": "Anotado (nenhum fato reconhecido).",
        "ru": "Записал (фактов не распознано).",
    },
    "duplicate": {
        "en": "Already stored.",
        "pt": "Já armazenado.",
        "ru": "Уже сохранено.",
    },
    "thanks": {"en": "You're welcome!", "pt": "De nada!", "ru": "Пожалуйста!"},
    "greeting": {
        "en": "Hello! Ask me anything about what the team has shared here.",
        "pt": "Olá! Pergunte-me o que quiser sobre o que a equipe compartilhou aqui.",
        "ru": "Здравствуйте! Спросите меня о том, чем поделилась команда.",
    },
    "empty": {
        "en": "Please send some text.",
        "pt": "Envie algum texto, por favor.",
        "ru": "Пожалуйста, отправьте текст.",
    },
    "too_long": {
        "en": "That message is too long ({n} characters, limit {limit}).",
        "pt": "Essa mensagem é longa demais ({n} caracteres, limite {limit}).",
        "ru": "Сообщение слишком длинное ({n} символов, предел {limit}).",
    },
}


def t(key: str, lang: str, **kwargs: object) -> str:
    table = _TEXTS[key]
    return table.get(lang, table["en"]).format(**kwargs)
