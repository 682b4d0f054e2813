"""Every string the Slack front-end shows to people, in English, Portuguese and Russian.

Answers and renderings come from the core in the user's language; these are only the
front-end's own words (help, confirmations, apologies). Slack payloads carry no locale, so the
language is guessed from what the user typed and English is the fallback.
"""

from __future__ import annotations

_TEXTS: dict[str, dict[str, str]] = {
    "help": {
        "en": (
            "*I remember what this channel tells me and answer from it.*\n"
            "`{cmd} ask <question>` answer from memory, with the path of facts used\n"
            "`{cmd} remember <statement>` remember a fact\n"
            "`{cmd} why [trace id]` how the last answer was found\n"
            "`{cmd} worlds` the topics I keep apart\n"
            "`{cmd} facts [entity]` what I know (about an entity)\n"
            "`{cmd} forget <entity|all>` erase an entity, or everything here\n"
            "`{cmd} review` approve or reject facts I was unsure about\n"
            "You can also mention me in a channel or write to me directly."
        ),
        "pt": (
            "*Eu lembro o que este canal me diz e respondo a partir disso.*\n"
            "`{cmd} ask <pergunta>` responder com o caminho de fatos usado\n"
            "`{cmd} remember <afirmação>` lembrar um fato\n"
            "`{cmd} why [id do rastro]` como a última resposta foi encontrada\n"
            "`{cmd} worlds` os assuntos que mantenho separados\n"
            "`{cmd} facts [entidade]` o que eu sei (sobre uma entidade)\n"
            "`{cmd} forget <entidade|all>` apagar uma entidade, ou tudo aqui\n"
            "`{cmd} review` aprovar ou rejeitar fatos incertos\n"
            "Você também pode me mencionar num canal ou me escrever diretamente."
        ),
        "ru": (
            "*Я запоминаю, что говорят в этом канале, и отвечаю по этой памяти.*\n"
            "`{cmd} ask <вопрос>` ответ с цепочкой использованных фактов\n"
            "`{cmd} remember <утверждение>` запомнить факт\n"
            "`{cmd} why [id трассы]` как был найден последний ответ\n"
            "`{cmd} worlds` темы, которые я держу раздельно\n"
            "`{cmd} facts [сущность]` что я знаю (о сущности)\n"
            "`{cmd} forget <сущность|all>` стереть сущность или всё здесь\n"
            "`{cmd} review` подтвердить или отклонить сомнительные факты\n"
            "Меня также можно упомянуть в канале или написать мне в личку."
        ),
    },
    "unknown_subcommand": {
        "en": "I don't know `{sub}`.",
        "pt": "Não conheço `{sub}`.",
        "ru": "Я не знаю команды `{sub}`.",
    },
    "usage_ask": {
        "en": "Ask me something: `{cmd} ask which policy applies to checkout?`",
        "pt": "Pergunte algo: `{cmd} ask qual política se aplica ao checkout?`",
        "ru": "Задайте вопрос: `{cmd} ask какая политика применяется к checkout?`",
    },
    "usage_remember": {
        "en": "Tell me a fact: `{cmd} remember checkout depends on payments`\n"
        "or `{cmd} remember subject | kind | PREDICATE | object | kind`",
        "pt": "Diga um fato: `{cmd} remember checkout depende de pagamentos`\n"
        "ou `{cmd} remember sujeito | tipo | PREDICADO | objeto | tipo`",
        "ru": "Сообщите факт: `{cmd} remember checkout зависит от платежей`\n"
        "или `{cmd} remember субъект | тип | ПРЕДИКАТ | объект | тип`",
    },
    "usage_forget": {
        "en": "Say what to forget: `{cmd} forget <entity>` or `{cmd} forget all`",
        "pt": "Diga o que esquecer: `{cmd} forget <entidade>` ou `{cmd} forget all`",
        "ru": "Укажите, что забыть: `{cmd} forget <сущность>` или `{cmd} forget all`",
    },
    "working": {
        "en": ":hourglass_flowing_sand: Working on it…",
        "pt": ":hourglass_flowing_sand: Estou trabalhando nisso…",
        "ru": ":hourglass_flowing_sand: Работаю над этим…",
    },
    "asked_by": {
        "en": "<@{user}> asked: {question}",
        "pt": "<@{user}> perguntou: {question}",
        "ru": "<@{user}> спросил(а): {question}",
    },
    "told_by": {
        "en": "<@{user}> told me: {statement}",
        "pt": "<@{user}> me disse: {statement}",
        "ru": "<@{user}> сообщил(а): {statement}",
    },
    "path": {"en": "Path", "pt": "Caminho", "ru": "Путь"},
    "trace_hint": {
        "en": "trace `{trace}` · `{cmd} why {trace}` explains this answer",
        "pt": "rastro `{trace}` · `{cmd} why {trace}` explica esta resposta",
        "ru": "трасса `{trace}` · `{cmd} why {trace}` объясняет этот ответ",
    },
    "no_trace": {
        "en": "I have not answered anything here yet.",
        "pt": "Ainda não respondi nada aqui.",
        "ru": "Я здесь ещё ничего не отвечал.",
    },
    "unknown_trace": {
        "en": "I have no trace `{trace}` in this conversation.",
        "pt": "Não tenho o rastro `{trace}` nesta conversa.",
        "ru": "В этой беседе нет трассы `{trace}`.",
    },
    "forget_confirm_entity": {
        "en": "Forget all I know about *{name}* in this conversation? This cannot be undone.",
        "pt": "Esquecer tudo o que sei sobre *{name}* nesta conversa? Não há como desfazer.",
        "ru": "Забыть всё, что я знаю о *{name}* в этой беседе? Отменить будет нельзя.",
    },
    "forget_confirm_all": {
        "en": "Forget *everything* I remember from this conversation? This cannot be undone.",
        "pt": "Esquecer *tudo* o que lembro desta conversa? Não há como desfazer.",
        "ru": "Забыть *всё*, что я помню из этой беседы? Отменить будет нельзя.",
    },
    "forget_button": {"en": "Forget", "pt": "Esquecer", "ru": "Забыть"},
    "cancel_button": {"en": "Cancel", "pt": "Cancelar", "ru": "Отмена"},
    "forgot_entity": {
        "en": "<@{user}> erased *{name}* ({count} facts).",
        "pt": "<@{user}> apagou *{name}* ({count} fatos).",
        "ru": "<@{user}> стёр(ла) *{name}* (фактов: {count}).",
    },
    "forgot_all": {
        "en": "<@{user}> erased everything I remembered from this conversation.",
        "pt": "<@{user}> apagou tudo o que eu lembrava desta conversa.",
        "ru": "<@{user}> стёр(ла) всё, что я помнил из этой беседы.",
    },
    "no_facts_about": {
        "en": "I have no facts about *{name}* here.",
        "pt": "Não tenho fatos sobre *{name}* aqui.",
        "ru": "У меня нет фактов о *{name}* здесь.",
    },
    "forget_cancelled": {
        "en": "Nothing was forgotten.",
        "pt": "Nada foi esquecido.",
        "ru": "Ничего не забыто.",
    },
    "review_header": {
        "en": "*Facts waiting for review* (I was not sure enough to remember them):",
        "pt": "*Fatos aguardando revisão* (não tive certeza suficiente para lembrá-los):",
        "ru": "*Факты на проверке* (я не был достаточно уверен, чтобы их запомнить):",
    },
    "review_empty": {
        "en": "Nothing is waiting for review.",
        "pt": "Nada aguardando revisão.",
        "ru": "Нет фактов на проверке.",
    },
    "review_more": {
        "en": "…and {count} more; review these first.",
        "pt": "…e mais {count}; revise estes primeiro.",
        "ru": "…и ещё {count}; сначала проверьте эти.",
    },
    "approve_button": {"en": "Approve", "pt": "Aprovar", "ru": "Подтвердить"},
    "reject_button": {"en": "Reject", "pt": "Rejeitar", "ru": "Отклонить"},
    "approved": {
        "en": "<@{user}> approved: {fact}",
        "pt": "<@{user}> aprovou: {fact}",
        "ru": "<@{user}> подтвердил(а): {fact}",
    },
    "rejected": {
        "en": "<@{user}> rejected a pending fact.",
        "pt": "<@{user}> rejeitou um fato pendente.",
        "ru": "<@{user}> отклонил(а) факт на проверке.",
    },
    "review_gone": {
        "en": "That fact was already reviewed.",
        "pt": "Esse fato já foi revisado.",
        "ru": "Этот факт уже проверен.",
    },
    "empty_mention": {
        "en": "Tell me a fact or ask me a question. `{cmd} help` lists what I can do.",
        "pt": "Diga um fato ou faça uma pergunta. `{cmd} help` mostra o que sei fazer.",
        "ru": "Сообщите факт или задайте вопрос. `{cmd} help` покажет, что я умею.",
    },
    "apology": {
        "en": "Sorry, something went wrong on my side. Please try again in a moment.",
        "pt": "Desculpe, algo deu errado do meu lado. Tente de novo daqui a pouco.",
        "ru": "Извините, у меня что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
    "invalid_input": {
        "en": "Sorry, I can't use that: {reason}",
        "pt": "Desculpe, não consigo usar isso: {reason}",
        "ru": "Извините, я не могу это использовать: {reason}",
    },
    "not_found": {
        "en": "Sorry, I could not find that here.",
        "pt": "Desculpe, não encontrei isso aqui.",
        "ru": "Извините, я не нашёл этого здесь.",
    },
}

LANGUAGES = ("en", "pt", "ru")


def t(key: str, lang: str = "en", **values: object) -> str:
    """The text `key` in `lang` (English when missing), with `values` filled in."""
    variants = _TEXTS[key]
    return variants.get(lang, variants["en"]).format(**values)
