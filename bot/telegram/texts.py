"""What the bot says on its own (not the core's replies), in English, Portuguese and Russian.

Every text here is plain text: the send path escapes it for HTML like any other text, so a
translator can write < or & freely. Placeholders use str.format names.
"""

from __future__ import annotations

LANGUAGES = ("en", "pt", "ru")

# (command, description) per language, registered with setMyCommands and listed by /help.
COMMANDS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("ask", "ask a question about what was said here"),
        ("remember", "remember a fact: words or subject | kind | PREDICATE | object | kind"),
        ("why", "why the last answer: seeds, path, scores"),
        ("worlds", "topics this chat talks about"),
        ("facts", "known facts, optionally about one entity"),
        ("forget", "forget an entity, or all (asks first)"),
        ("review", "approve or reject uncertain facts"),
        ("export", "this chat's graph as a JSON file"),
        ("help", "how to use the bot"),
    ],
    "pt": [
        ("ask", "pergunte algo sobre o que foi dito aqui"),
        ("remember", "lembrar um fato: texto ou sujeito | tipo | PREDICADO | objeto | tipo"),
        ("why", "por que a última resposta: sementes, caminho, pontuações"),
        ("worlds", "assuntos deste chat"),
        ("facts", "fatos conhecidos, opcionalmente sobre uma entidade"),
        ("forget", "esquecer uma entidade, ou tudo (pede confirmação)"),
        ("review", "aprovar ou rejeitar fatos incertos"),
        ("export", "o grafo deste chat como arquivo JSON"),
        ("help", "como usar o bot"),
    ],
    "ru": [
        ("ask", "задать вопрос о том, что здесь говорили"),
        ("remember", "запомнить факт: словами или субъект | тип | ПРЕДИКАТ | объект | тип"),
        ("why", "почему такой ответ: опорные узлы, путь, оценки"),
        ("worlds", "темы этого чата"),
        ("facts", "известные факты, можно об одной сущности"),
        ("forget", "забыть сущность или всё (с подтверждением)"),
        ("review", "одобрить или отклонить сомнительные факты"),
        ("export", "граф этого чата в файле JSON"),
        ("help", "как пользоваться ботом"),
    ],
}

_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "start": "Hi! I remember what is said in this chat as a knowledge graph and answer "
        "questions from it, showing the path I followed.",
        "help_intro": 'In a private chat, tell me facts ("checkout depends on payments") and '
        'ask questions ("which policy applies to checkout?"). In a group I listen to '
        "everything and answer when mentioned, replied to, or given a command.",
        "help_commands": "Commands:",
        "ask_usage": "Usage: /ask <question>",
        "remember_usage": "Usage: /remember <fact in words>\n"
        "or /remember subject | kind | PREDICATE | object | kind",
        "forget_usage": "Usage: /forget <entity> or /forget all",
        "forget_confirm_entity": 'Forget "{name}" and every fact about it in this chat?',
        "forget_confirm_all": "Forget everything this chat has taught me? This cannot be undone.",
        "forget_done_entity": 'Forgotten: "{name}" ({count} facts).',
        "forget_done_all": "Done: this chat's memory is empty.",
        "forget_cancelled": "Cancelled: nothing was forgotten.",
        "admins_only": "Only chat admins can make me forget everything.",
        "not_yours": "Only the person who asked can confirm this.",
        "expired": "This button has expired.",
        "yes_forget": "Yes, forget",
        "cancel": "Cancel",
        "approve": "Approve",
        "reject": "Reject",
        "nothing_pending": "Nothing waiting for review.",
        "more_pending": "{count} more waiting: /review again after these.",
        "approved": "Approved by {name}.",
        "rejected": "Rejected by {name}.",
        "already_reviewed": "Already reviewed.",
        "no_trace": "I have not answered anything in this chat yet.",
        "no_facts": "I know no facts here yet.",
        "no_facts_about": 'I know nothing about "{name}" here.',
        "no_worlds": "No topics yet: tell me something first.",
        "export_caption": "This chat's knowledge graph.",
        "rate_limited": "You are asking faster than I can keep up. "
        "Please try again in {seconds} s.",
        "apology": "Sorry, something went wrong on my side. Please try again in a moment.",
        "invalid_input": "I can't use that: {detail}",
        "not_found": "I don't know that in this chat: {detail}",
    },
    "pt": {
        "start": "Olá! Eu lembro o que é dito neste chat como um grafo de conhecimento e "
        "respondo perguntas com base nele, mostrando o caminho que segui.",
        "help_intro": 'Num chat privado, conte-me fatos ("checkout depende de payments") e '
        "faça perguntas. Num grupo eu ouço tudo e respondo quando sou mencionado, quando "
        "respondem a uma mensagem minha ou com um comando.",
        "help_commands": "Comandos:",
        "ask_usage": "Uso: /ask <pergunta>",
        "remember_usage": "Uso: /remember <fato em palavras>\n"
        "ou /remember sujeito | tipo | PREDICADO | objeto | tipo",
        "forget_usage": "Uso: /forget <entidade> ou /forget all",
        "forget_confirm_entity": 'Esquecer "{name}" e todos os fatos sobre isso neste chat?',
        "forget_confirm_all": "Esquecer tudo o que este chat me ensinou? Não dá para desfazer.",
        "forget_done_entity": 'Esquecido: "{name}" ({count} fatos).',
        "forget_done_all": "Pronto: a memória deste chat está vazia.",
        "forget_cancelled": "Cancelado: nada foi esquecido.",
        "admins_only": "Só administradores do chat podem me fazer esquecer tudo.",
        "not_yours": "Só quem pediu pode confirmar isto.",
        "expired": "Este botão expirou.",
        "yes_forget": "Sim, esquecer",
        "cancel": "Cancelar",
        "approve": "Aprovar",
        "reject": "Rejeitar",
        "nothing_pending": "Nada aguardando revisão.",
        "more_pending": "Mais {count} aguardando: use /review de novo depois destes.",
        "approved": "Aprovado por {name}.",
        "rejected": "Rejeitado por {name}.",
        "already_reviewed": "Já revisado.",
        "no_trace": "Ainda não respondi nada neste chat.",
        "no_facts": "Ainda não conheço fatos aqui.",
        "no_facts_about": 'Não sei nada sobre "{name}" aqui.',
        "no_worlds": "Nenhum assunto ainda: conte-me algo primeiro.",
        "export_caption": "O grafo de conhecimento deste chat.",
        "rate_limited": "Você está perguntando rápido demais. Tente de novo em {seconds} s.",
        "apology": "Desculpe, algo deu errado do meu lado. Tente de novo daqui a pouco.",
        "invalid_input": "Não consigo usar isso: {detail}",
        "not_found": "Não conheço isso neste chat: {detail}",
    },
    "ru": {
        "start": "Привет! Я запоминаю, что говорят в этом чате, в виде графа знаний и "
        "отвечаю на вопросы по нему, показывая путь, по которому прошёл.",
        "help_intro": 'В личном чате сообщайте факты ("checkout зависит от payments") и '
        "задавайте вопросы. В группе я слушаю всё и отвечаю, когда меня упоминают, "
        "отвечают на моё сообщение или дают команду.",
        "help_commands": "Команды:",
        "ask_usage": "Использование: /ask <вопрос>",
        "remember_usage": "Использование: /remember <факт словами>\n"
        "или /remember субъект | тип | ПРЕДИКАТ | объект | тип",
        "forget_usage": "Использование: /forget <сущность> или /forget all",
        "forget_confirm_entity": "Забыть «{name}» и все факты о ней в этом чате?",
        "forget_confirm_all": "Забыть всё, чему меня научил этот чат? Отменить будет нельзя.",
        "forget_done_entity": "Забыто: «{name}» (фактов: {count}).",
        "forget_done_all": "Готово: память этого чата пуста.",
        "forget_cancelled": "Отменено: ничего не забыто.",
        "admins_only": "Только администраторы чата могут заставить меня забыть всё.",
        "not_yours": "Подтвердить может только тот, кто попросил.",
        "expired": "Срок действия кнопки истёк.",
        "yes_forget": "Да, забыть",
        "cancel": "Отмена",
        "approve": "Одобрить",
        "reject": "Отклонить",
        "nothing_pending": "Нечего проверять.",
        "more_pending": "Ещё {count} ждут: вызовите /review снова после этих.",
        "approved": "Одобрено: {name}.",
        "rejected": "Отклонено: {name}.",
        "already_reviewed": "Уже проверено.",
        "no_trace": "Я ещё ничего не отвечал в этом чате.",
        "no_facts": "Я пока не знаю здесь фактов.",
        "no_facts_about": "Я ничего не знаю здесь о «{name}».",
        "no_worlds": "Тем пока нет: сначала расскажите мне что-нибудь.",
        "export_caption": "Граф знаний этого чата.",
        "rate_limited": "Вы спрашиваете быстрее, чем я успеваю. "
        "Попробуйте снова через {seconds} с.",
        "apology": "Извините, у меня что-то пошло не так. Попробуйте ещё раз чуть позже.",
        "invalid_input": "Не могу это использовать: {detail}",
        "not_found": "Я этого не знаю в этом чате: {detail}",
    },
}


def language_of(code: str | None) -> str:
    """Telegram's IETF tag ("pt-br", "ru", None) -> one of LANGUAGES, English by default."""
    base = (code or "").lower().split("-")[0]
    return base if base in LANGUAGES else "en"


def t(lang: str, key: str, **values: object) -> str:
    table = _TEXTS.get(lang, _TEXTS["en"])
    return table.get(key, _TEXTS["en"][key]).format(**values)


def help_text(lang: str) -> str:
    lines = [t(lang, "help_intro"), "", t(lang, "help_commands")]
    lines += [f"/{name} - {description}" for name, description in COMMANDS[lang]]
    return "\n".join(lines)
