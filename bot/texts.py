"""Everything the front-ends say on their own, in English, Portuguese and Russian: one table,
one `t(key, lang, **values)`.

Keys are "<where>.<what>": `telegram.*` and `slack.*` for one platform's words (Slack's are
mrkdwn, Telegram's plain text the send path escapes), `lead.*` for the hand-off both share
(`lead.slack.*` where Slack says it differently). A text missing in a language falls back to
English. Placeholders use str.format names. Answers and renderings come from the core in the
user's language (core/texts.py); these are only the front-ends' own words.
"""

from __future__ import annotations

LANGUAGES = ("en", "pt", "ru")

_TEXTS: dict[str, dict[str, str]] = {
    # ---------------------------------------------------------------- Telegram (plain text; escaped when sent)
    "telegram.start": {
        "en": "Hi! I remember what is said in this chat as a knowledge graph and answer questions from it, showing the path I followed.",
        "pt": "Olá! Eu lembro o que é dito neste chat como um grafo de conhecimento e respondo perguntas com base nele, mostrando o caminho que segui.",
        "ru": "Привет! Я запоминаю, что говорят в этом чате, в виде графа знаний и отвечаю на вопросы по нему, показывая путь, по которому прошёл.",
    },
    "telegram.help_intro": {
        "en": 'In a private chat, tell me facts ("checkout depends on payments") and ask questions ("which policy applies to checkout?"). In a group I listen to everything and answer when mentioned, replied to, or given a command.',
        "pt": 'Num chat privado, conte-me fatos ("checkout depende de payments") e faça perguntas. Num grupo eu ouço tudo e respondo quando sou mencionado, quando respondem a uma mensagem minha ou com um comando.',
        "ru": 'В личном чате сообщайте факты ("checkout зависит от payments") и задавайте вопросы. В группе я слушаю всё и отвечаю, когда меня упоминают, отвечают на моё сообщение или дают команду.',
    },
    "telegram.help_commands": {"en": "Commands:", "pt": "Comandos:", "ru": "Команды:"},
    "telegram.ask_usage": {
        "en": "Usage: /ask <question>",
        "pt": "Uso: /ask <pergunta>",
        "ru": "Использование: /ask <вопрос>",
    },
    "telegram.remember_usage": {
        "en": "Usage: /remember <fact in words>\nor /remember subject | kind | PREDICATE | object | kind",
        "pt": "Uso: /remember <fato em palavras>\nou /remember sujeito | tipo | PREDICADO | objeto | tipo",
        "ru": "Использование: /remember <факт словами>\nили /remember субъект | тип | ПРЕДИКАТ | объект | тип",
    },
    "telegram.forget_usage": {
        "en": "Usage: /forget <entity> or /forget all",
        "pt": "Uso: /forget <entidade> ou /forget all",
        "ru": "Использование: /forget <сущность> или /forget all",
    },
    "telegram.forget_confirm_entity": {
        "en": 'Forget "{name}" and every fact about it in this chat?',
        "pt": 'Esquecer "{name}" e todos os fatos sobre isso neste chat?',
        "ru": "Забыть «{name}» и все факты о ней в этом чате?",
    },
    "telegram.forget_confirm_all": {
        "en": "Forget everything this chat has taught me? This cannot be undone.",
        "pt": "Esquecer tudo o que este chat me ensinou? Não dá para desfazer.",
        "ru": "Забыть всё, чему меня научил этот чат? Отменить будет нельзя.",
    },
    "telegram.forget_done_entity": {
        "en": 'Forgotten: "{name}" ({count} facts).',
        "pt": 'Esquecido: "{name}" ({count} fatos).',
        "ru": "Забыто: «{name}» (фактов: {count}).",
    },
    "telegram.forget_done_all": {
        "en": "Done: this chat's memory is empty.",
        "pt": "Pronto: a memória deste chat está vazia.",
        "ru": "Готово: память этого чата пуста.",
    },
    "telegram.forget_cancelled": {
        "en": "Cancelled: nothing was forgotten.",
        "pt": "Cancelado: nada foi esquecido.",
        "ru": "Отменено: ничего не забыто.",
    },
    "telegram.admins_only": {
        "en": "Only chat admins can make me forget everything.",
        "pt": "Só administradores do chat podem me fazer esquecer tudo.",
        "ru": "Только администраторы чата могут заставить меня забыть всё.",
    },
    "telegram.not_yours": {
        "en": "Only the person who asked can confirm this.",
        "pt": "Só quem pediu pode confirmar isto.",
        "ru": "Подтвердить может только тот, кто попросил.",
    },
    "telegram.expired": {
        "en": "This button has expired.",
        "pt": "Este botão expirou.",
        "ru": "Срок действия кнопки истёк.",
    },
    "telegram.yes_forget": {"en": "Yes, forget", "pt": "Sim, esquecer", "ru": "Да, забыть"},
    "telegram.cancel": {"en": "Cancel", "pt": "Cancelar", "ru": "Отмена"},
    "telegram.approve": {"en": "Approve", "pt": "Aprovar", "ru": "Одобрить"},
    "telegram.reject": {"en": "Reject", "pt": "Rejeitar", "ru": "Отклонить"},
    "telegram.nothing_pending": {
        "en": "Nothing waiting for review.",
        "pt": "Nada aguardando revisão.",
        "ru": "Нечего проверять.",
    },
    "telegram.more_pending": {
        "en": "{count} more waiting: /review again after these.",
        "pt": "Mais {count} aguardando: use /review de novo depois destes.",
        "ru": "Ещё {count} ждут: вызовите /review снова после этих.",
    },
    "telegram.approved": {
        "en": "Approved by {name}.",
        "pt": "Aprovado por {name}.",
        "ru": "Одобрено: {name}.",
    },
    "telegram.rejected": {
        "en": "Rejected by {name}.",
        "pt": "Rejeitado por {name}.",
        "ru": "Отклонено: {name}.",
    },
    "telegram.already_reviewed": {
        "en": "Already reviewed.",
        "pt": "Já revisado.",
        "ru": "Уже проверено.",
    },
    "telegram.no_trace": {
        "en": "I have not answered anything in this chat yet.",
        "pt": "Ainda não respondi nada neste chat.",
        "ru": "Я ещё ничего не отвечал в этом чате.",
    },
    "telegram.no_facts": {
        "en": "I know no facts here yet.",
        "pt": "Ainda não conheço fatos aqui.",
        "ru": "Я пока не знаю здесь фактов.",
    },
    "telegram.no_facts_about": {
        "en": 'I know nothing about "{name}" here.',
        "pt": 'Não sei nada sobre "{name}" aqui.',
        "ru": "Я ничего не знаю здесь о «{name}».",
    },
    "telegram.no_worlds": {
        "en": "No topics yet: tell me something first.",
        "pt": "Nenhum assunto ainda: conte-me algo primeiro.",
        "ru": "Тем пока нет: сначала расскажите мне что-нибудь.",
    },
    "telegram.export_caption": {
        "en": "This chat's knowledge graph.",
        "pt": "O grafo de conhecimento deste chat.",
        "ru": "Граф знаний этого чата.",
    },
    "telegram.rate_limited": {
        "en": "You are asking faster than I can keep up. Please try again in {seconds} s.",
        "pt": "Você está perguntando rápido demais. Tente de novo em {seconds} s.",
        "ru": "Вы спрашиваете быстрее, чем я успеваю. Попробуйте снова через {seconds} с.",
    },
    "telegram.apology": {
        "en": "Sorry, something went wrong on my side. Please try again in a moment.",
        "pt": "Desculpe, algo deu errado do meu lado. Tente de novo daqui a pouco.",
        "ru": "Извините, у меня что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
    "telegram.invalid_input": {
        "en": "I can't use that: {detail}",
        "pt": "Não consigo usar isso: {detail}",
        "ru": "Не могу это использовать: {detail}",
    },
    "telegram.not_found": {
        "en": "I don't know that in this chat: {detail}",
        "pt": "Não conheço isso neste chat: {detail}",
        "ru": "Я этого не знаю в этом чате: {detail}",
    },
    "telegram.command.ask": {
        "en": "ask a question about what was said here",
        "pt": "pergunte algo sobre o que foi dito aqui",
        "ru": "задать вопрос о том, что здесь говорили",
    },
    "telegram.command.remember": {
        "en": "remember a fact: words or subject | kind | PREDICATE | object | kind",
        "pt": "lembrar um fato: texto ou sujeito | tipo | PREDICADO | objeto | tipo",
        "ru": "запомнить факт: словами или субъект | тип | ПРЕДИКАТ | объект | тип",
    },
    "telegram.command.why": {
        "en": "why the last answer: seeds, path, scores",
        "pt": "por que a última resposta: sementes, caminho, pontuações",
        "ru": "почему такой ответ: опорные узлы, путь, оценки",
    },
    "telegram.command.worlds": {
        "en": "topics this chat talks about",
        "pt": "assuntos deste chat",
        "ru": "темы этого чата",
    },
    "telegram.command.facts": {
        "en": "known facts, optionally about one entity",
        "pt": "fatos conhecidos, opcionalmente sobre uma entidade",
        "ru": "известные факты, можно об одной сущности",
    },
    "telegram.command.forget": {
        "en": "forget an entity, or all (asks first)",
        "pt": "esquecer uma entidade, ou tudo (pede confirmação)",
        "ru": "забыть сущность или всё (с подтверждением)",
    },
    "telegram.command.review": {
        "en": "approve or reject uncertain facts",
        "pt": "aprovar ou rejeitar fatos incertos",
        "ru": "одобрить или отклонить сомнительные факты",
    },
    "telegram.command.export": {
        "en": "this chat's graph as a JSON file",
        "pt": "o grafo deste chat como arquivo JSON",
        "ru": "граф этого чата в файле JSON",
    },
    "telegram.command.help": {
        "en": "how to use the bot",
        "pt": "como usar o bot",
        "ru": "как пользоваться ботом",
    },
    # ---------------------------------------------------------------- Slack (mrkdwn)
    "slack.help": {
        "en": "*I remember what this channel tells me and answer from it.*\n`{cmd} ask <question>` answer from memory, with the path of facts used\n`{cmd} remember <statement>` remember a fact\n`{cmd} why [trace id]` how the last answer was found\n`{cmd} worlds` the topics I keep apart\n`{cmd} facts [entity]` what I know (about an entity)\n`{cmd} forget <entity|all>` erase an entity, or everything here\n`{cmd} review` approve or reject facts I was unsure about\nYou can also mention me in a channel or write to me directly.",
        "pt": "*Eu lembro o que este canal me diz e respondo a partir disso.*\n`{cmd} ask <pergunta>` responder com o caminho de fatos usado\n`{cmd} remember <afirmação>` lembrar um fato\n`{cmd} why [id do rastro]` como a última resposta foi encontrada\n`{cmd} worlds` os assuntos que mantenho separados\n`{cmd} facts [entidade]` o que eu sei (sobre uma entidade)\n`{cmd} forget <entidade|all>` apagar uma entidade, ou tudo aqui\n`{cmd} review` aprovar ou rejeitar fatos incertos\nVocê também pode me mencionar num canal ou me escrever diretamente.",
        "ru": "*Я запоминаю, что говорят в этом канале, и отвечаю по этой памяти.*\n`{cmd} ask <вопрос>` ответ с цепочкой использованных фактов\n`{cmd} remember <утверждение>` запомнить факт\n`{cmd} why [id трассы]` как был найден последний ответ\n`{cmd} worlds` темы, которые я держу раздельно\n`{cmd} facts [сущность]` что я знаю (о сущности)\n`{cmd} forget <сущность|all>` стереть сущность или всё здесь\n`{cmd} review` подтвердить или отклонить сомнительные факты\nМеня также можно упомянуть в канале или написать мне в личку.",
    },
    "slack.unknown_subcommand": {
        "en": "I don't know `{sub}`.",
        "pt": "Não conheço `{sub}`.",
        "ru": "Я не знаю команды `{sub}`.",
    },
    "slack.usage_ask": {
        "en": "Ask me something: `{cmd} ask which policy applies to checkout?`",
        "pt": "Pergunte algo: `{cmd} ask qual política se aplica ao checkout?`",
        "ru": "Задайте вопрос: `{cmd} ask какая политика применяется к checkout?`",
    },
    "slack.usage_remember": {
        "en": "Tell me a fact: `{cmd} remember checkout depends on payments`\nor `{cmd} remember subject | kind | PREDICATE | object | kind`",
        "pt": "Diga um fato: `{cmd} remember checkout depende de pagamentos`\nou `{cmd} remember sujeito | tipo | PREDICADO | objeto | tipo`",
        "ru": "Сообщите факт: `{cmd} remember checkout зависит от платежей`\nили `{cmd} remember субъект | тип | ПРЕДИКАТ | объект | тип`",
    },
    "slack.usage_forget": {
        "en": "Say what to forget: `{cmd} forget <entity>` or `{cmd} forget all`",
        "pt": "Diga o que esquecer: `{cmd} forget <entidade>` ou `{cmd} forget all`",
        "ru": "Укажите, что забыть: `{cmd} forget <сущность>` или `{cmd} forget all`",
    },
    "slack.working": {
        "en": ":hourglass_flowing_sand: Working on it…",
        "pt": ":hourglass_flowing_sand: Estou trabalhando nisso…",
        "ru": ":hourglass_flowing_sand: Работаю над этим…",
    },
    "slack.asked_by": {
        "en": "<@{user}> asked: {question}",
        "pt": "<@{user}> perguntou: {question}",
        "ru": "<@{user}> спросил(а): {question}",
    },
    "slack.told_by": {
        "en": "<@{user}> told me: {statement}",
        "pt": "<@{user}> me disse: {statement}",
        "ru": "<@{user}> сообщил(а): {statement}",
    },
    "slack.path": {"en": "Path", "pt": "Caminho", "ru": "Путь"},
    "slack.trace_hint": {
        "en": "trace `{trace}` · `{cmd} why {trace}` explains this answer",
        "pt": "rastro `{trace}` · `{cmd} why {trace}` explica esta resposta",
        "ru": "трасса `{trace}` · `{cmd} why {trace}` объясняет этот ответ",
    },
    "slack.no_trace": {
        "en": "I have not answered anything here yet.",
        "pt": "Ainda não respondi nada aqui.",
        "ru": "Я здесь ещё ничего не отвечал.",
    },
    "slack.unknown_trace": {
        "en": "I have no trace `{trace}` in this conversation.",
        "pt": "Não tenho o rastro `{trace}` nesta conversa.",
        "ru": "В этой беседе нет трассы `{trace}`.",
    },
    "slack.forget_confirm_entity": {
        "en": "Forget all I know about *{name}* in this conversation? This cannot be undone.",
        "pt": "Esquecer tudo o que sei sobre *{name}* nesta conversa? Não há como desfazer.",
        "ru": "Забыть всё, что я знаю о *{name}* в этой беседе? Отменить будет нельзя.",
    },
    "slack.forget_confirm_all": {
        "en": "Forget *everything* I remember from this conversation? This cannot be undone.",
        "pt": "Esquecer *tudo* o que lembro desta conversa? Não há como desfazer.",
        "ru": "Забыть *всё*, что я помню из этой беседы? Отменить будет нельзя.",
    },
    "slack.forget_button": {"en": "Forget", "pt": "Esquecer", "ru": "Забыть"},
    "slack.cancel_button": {"en": "Cancel", "pt": "Cancelar", "ru": "Отмена"},
    "slack.forgot_entity": {
        "en": "<@{user}> erased *{name}* ({count} facts).",
        "pt": "<@{user}> apagou *{name}* ({count} fatos).",
        "ru": "<@{user}> стёр(ла) *{name}* (фактов: {count}).",
    },
    "slack.forgot_all": {
        "en": "<@{user}> erased everything I remembered from this conversation.",
        "pt": "<@{user}> apagou tudo o que eu lembrava desta conversa.",
        "ru": "<@{user}> стёр(ла) всё, что я помнил из этой беседы.",
    },
    "slack.no_facts_about": {
        "en": "I have no facts about *{name}* here.",
        "pt": "Não tenho fatos sobre *{name}* aqui.",
        "ru": "У меня нет фактов о *{name}* здесь.",
    },
    "slack.forget_cancelled": {
        "en": "Nothing was forgotten.",
        "pt": "Nada foi esquecido.",
        "ru": "Ничего не забыто.",
    },
    "slack.review_header": {
        "en": "*Facts waiting for review* (I was not sure enough to remember them):",
        "pt": "*Fatos aguardando revisão* (não tive certeza suficiente para lembrá-los):",
        "ru": "*Факты на проверке* (я не был достаточно уверен, чтобы их запомнить):",
    },
    "slack.review_empty": {
        "en": "Nothing is waiting for review.",
        "pt": "Nada aguardando revisão.",
        "ru": "Нет фактов на проверке.",
    },
    "slack.review_more": {
        "en": "…and {count} more; review these first.",
        "pt": "…e mais {count}; revise estes primeiro.",
        "ru": "…и ещё {count}; сначала проверьте эти.",
    },
    "slack.approve_button": {"en": "Approve", "pt": "Aprovar", "ru": "Подтвердить"},
    "slack.reject_button": {"en": "Reject", "pt": "Rejeitar", "ru": "Отклонить"},
    "slack.approved": {
        "en": "<@{user}> approved: {fact}",
        "pt": "<@{user}> aprovou: {fact}",
        "ru": "<@{user}> подтвердил(а): {fact}",
    },
    "slack.rejected": {
        "en": "<@{user}> rejected a pending fact.",
        "pt": "<@{user}> rejeitou um fato pendente.",
        "ru": "<@{user}> отклонил(а) факт на проверке.",
    },
    "slack.review_gone": {
        "en": "That fact was already reviewed.",
        "pt": "Esse fato já foi revisado.",
        "ru": "Этот факт уже проверен.",
    },
    "slack.empty_mention": {
        "en": "Tell me a fact or ask me a question. `{cmd} help` lists what I can do.",
        "pt": "Diga um fato ou faça uma pergunta. `{cmd} help` mostra o que sei fazer.",
        "ru": "Сообщите факт или задайте вопрос. `{cmd} help` покажет, что я умею.",
    },
    "slack.apology": {
        "en": "Sorry, something went wrong on my side. Please try again in a moment.",
        "pt": "Desculpe, algo deu errado do meu lado. Tente de novo daqui a pouco.",
        "ru": "Извините, у меня что-то пошло не так. Попробуйте ещё раз чуть позже.",
    },
    "slack.invalid_input": {
        "en": "Sorry, I can't use that: {reason}",
        "pt": "Desculpe, não consigo usar isso: {reason}",
        "ru": "Извините, я не могу это использовать: {reason}",
    },
    "slack.not_found": {
        "en": "Sorry, I could not find that here.",
        "pt": "Desculpe, não encontrei isso aqui.",
        "ru": "Извините, я не нашёл этого здесь.",
    },
    # ---------------------------------------------------------------- hand-off leads, both front-ends
    # cards and the leads list (bot/leads.py), in each manager's language
    "lead.card_lead": {
        "en": "Lead {id}: {client}",
        "pt": "Lead {id}: {client}",
        "ru": "Лид {id}: {client}",
    },
    "lead.card_chat": {"en": "Chat: {link}", "pt": "Conversa: {link}", "ru": "Чат: {link}"},
    "lead.card_company": {"en": "Company: {v}", "pt": "Empresa: {v}", "ru": "Компания: {v}"},
    "lead.card_role": {"en": "Role: {v}", "pt": "Cargo: {v}", "ru": "Должность: {v}"},
    "lead.card_wants": {
        "en": "Wants: {want} (confidence {c})",
        "pt": "Quer: {want} (confiança {c})",
        "ru": "Хочет: {want} (уверенность {c})",
    },
    "lead.card_why": {"en": "Why: {v}", "pt": "Motivo: {v}", "ru": "Почему: {v}"},
    "lead.card_facts": {"en": "Facts:", "pt": "Fatos:", "ru": "Факты:"},
    "lead.card_last": {
        "en": "Last messages:",
        "pt": "Últimas mensagens:",
        "ru": "Последние сообщения:",
    },
    "lead.card_signals": {
        "en": "Signals: {n} (last {ts} UTC)",
        "pt": "Sinais: {n} (último {ts} UTC)",
        "ru": "Сигналов: {n} (последний {ts} UTC)",
    },
    "lead.status_taken": {
        "en": "Status: taken by {who}",
        "pt": "Status: assumido por {who}",
        "ru": "Статус: взял {who}",
    },
    "lead.status_closed": {
        "en": "Status: closed",
        "pt": "Status: encerrado",
        "ru": "Статус: закрыт",
    },
    "lead.status_closed_by": {
        "en": "Status: closed by {who}",
        "pt": "Status: encerrado por {who}",
        "ru": "Статус: закрыл {who}",
    },
    "lead.status_open": {"en": "Status: open", "pt": "Status: aberto", "ru": "Статус: открыт"},
    "lead.status_reminder": {
        "en": "Status: open (reminder {n})",
        "pt": "Status: aberto (lembrete {n})",
        "ru": "Статус: открыт (напоминание {n})",
    },
    "lead.card_taken_by": {"en": "Taken by {who}", "pt": "Assumido por {who}", "ru": "Взял {who}"},
    "lead.card_closed_by": {
        "en": "Closed by {who}",
        "pt": "Encerrado por {who}",
        "ru": "Закрыл {who}",
    },
    "lead.no_leads": {"en": "No leads.", "pt": "Nenhum lead.", "ru": "Лидов нет."},
    "lead.state_open": {"en": "open", "pt": "aberto", "ru": "открыт"},
    "lead.state_taken": {"en": "taken", "pt": "assumido", "ru": "взят"},
    "lead.state_closed": {"en": "closed", "pt": "encerrado", "ru": "закрыт"},
    "lead.want_price": {"en": "price", "pt": "preço", "ru": "цена"},
    "lead.want_demo": {"en": "demo", "pt": "demonstração", "ru": "демо"},
    "lead.want_contract": {"en": "contract", "pt": "contrato", "ru": "договор"},
    "lead.want_invoice": {"en": "invoice", "pt": "fatura", "ru": "счёт"},
    "lead.want_buy": {"en": "buy", "pt": "comprar", "ru": "покупка"},
    "lead.want_person": {"en": "a person", "pt": "uma pessoa", "ru": "сотрудник"},
    "lead.want_interest": {"en": "interest", "pt": "interesse", "ru": "интерес"},
    "lead.follow_up": {  # added to a client's reply that raised a hand-off
        "en": "A person from our team will follow up with you shortly.",
        "pt": "Uma pessoa da nossa equipe vai entrar em contato com você em breve.",
        "ru": "С вами скоро свяжется сотрудник нашей команды.",
    },
    "lead.take": {"en": "Take", "pt": "Assumir", "ru": "Взять"},
    "lead.close": {"en": "Close", "pt": "Encerrar", "ru": "Закрыть"},
    "lead.closed_ok": {
        "en": "Lead {id} closed.",
        "pt": "Lead {id} encerrado.",
        "ru": "Лид {id} закрыт.",
    },
    "lead.already_closed": {
        "en": "This lead is already closed.",
        "pt": "Este lead já está encerrado.",
        "ru": "Этот лид уже закрыт.",
    },
    "lead.close_usage": {
        "en": "Usage: /close <lead id> (the ids are in /leads).",
        "pt": "Uso: /close <id do lead> (os ids estão em /leads).",
        "ru": "Использование: /close <id лида> (id есть в /leads).",
    },
    "lead.slack.close_usage": {
        "en": "Say which lead: `{cmd} close <lead id>` (the ids are in /leads).",
    },
    "lead.taken_ok": {"en": "The lead is yours.", "pt": "O lead é seu.", "ru": "Лид ваш."},
    "lead.already_taken": {
        "en": "Sorry, {name} already took this lead.",
        "pt": "Desculpe, {name} já assumiu este lead.",
        "ru": "Извините, этот лид уже взял(а) {name}.",
    },
    "lead.closed": {
        "en": "This lead is closed.",
        "pt": "Este lead está encerrado.",
        "ru": "Этот лид закрыт.",
    },
    "lead.not_found": {
        "en": "This lead no longer exists.",
        "pt": "Este lead não existe mais.",
        "ru": "Этого лида больше нет.",
    },
    "lead.managers_only": {
        "en": "Sorry, leads are for managers only.",
        "pt": "Desculpe, leads são só para gerentes.",
        "ru": "Извините, лиды доступны только менеджерам.",
    },
    "lead.slack.managers_only": {
        "en": "Sorry, leads are for managers only (members of the leads channel).",
    },
    "lead.private_only": {
        "en": "Please manage leads in a private chat with me.",
        "pt": "Gerencie os leads num chat privado comigo, por favor.",
        "ru": "Пожалуйста, работайте с лидами в личном чате со мной.",
    },
    "lead.slack.leads_hint": {"en": "Close a lead with `{cmd} close <lead id>`."},
}


def has_text(key: str) -> bool:
    return key in _TEXTS


QUOTE_CHARS = 300  # user text quoted in a reply ("/forget <5,000 characters>" hit the limits)


def quoted(value: object) -> object:
    """A value for a template: user text is cut to QUOTE_CHARS characters, so no reply that
    quotes it outgrows Telegram's 4,096 or Slack's limits (issue 12)."""
    if isinstance(value, str) and len(value) > QUOTE_CHARS:
        return value[: QUOTE_CHARS - 1] + "…"
    return value


def t(key: str, lang: str = "en", **values: object) -> str:
    """The text `key` in `lang` (English when missing), with `values` filled in."""
    variants = _TEXTS[key]
    filled = {k: quoted(v) for k, v in values.items()}
    return variants.get(lang, variants["en"]).format(**filled)


def language_of(code: str | None) -> str:
    """An IETF tag ("pt-br", "ru", None) -> one of LANGUAGES, English by default."""
    base = (code or "").lower().split("-")[0]
    return base if base in LANGUAGES else "en"
