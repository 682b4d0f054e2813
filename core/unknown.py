"""What a question names or asks with that the chat never mentions, in any language: the
answer then says so first ("I have nothing about french"), and shows the nearest sentence
only after it (core/quote.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set
from typing import Protocol, TypeVar

from core.asked import HOW_MUCH
from core.identity import cognate_term
from core.language import (
    english_not_a_thing,
    is_portuguese_verb,
    is_time_word,
    key_tokens,
    lemma,
    name_key,
    names_a_thing,
    tokens,
    written_tokens,
)
from core.phrases import phrases_in
from core.recall import index_tokens
from core.vocabulary import equivalents, instances

# names the question writes capitalised inside a sentence ("Lumio Billing", "SSO"): a
# sentence that holds one whole is about it; one that holds only "Lumio" is not. A Portuguese
# place joins its parts with "de" / "do" / "da": "do you come to Vila Nova de Gaia?" said it had
# nothing about "Vila Nova" beside "we cover Porto, Matosinhos, Gaia and Maia". A capital after
# the end of a sentence starts the next one ("Где вы находитесь? Адрес?" had nothing about
# "Адрес")
NAME = re.compile(
    r"(?<=[^\s.!?…]\s)[A-ZА-ЯЁ][\w-]*(?:\s+(?:(?:de|do|da|dos|das)\s+)?[A-ZА-ЯЁ0-9][\w-]*)*"
    r"|\b[A-ZА-ЯЁ]{2,}\b"
)


# where the client is ("I live in Faro, could you post a costume down to me?", "ele mora em
# Odivelas. quanto custa?", "coming from Palmela by car"): their situation, said back as a
# thing the chat lacks before the answer (five of the twenty-first round's questions); and
# where they travel or whose place it is ("лечу домой в Ригу", "у мамы в Мадриде", "I'm
# flying back to Berlin", "vou para o Porto": the twenty-fifth round)
_SITUATED = re.compile(
    # (and as the question is read, its contractions written out: "we're" is "we are")
    r"(?i)(?:\b(?:live|lives|living|based|staying|i'?m|im|i\s+am|we'?re|we\s+are)\s+"
    r"(?:only\s+|just\s+|now\s+)?"
    r"(?:in|at|near)"
    r"|\b(?:coming|come|comes|i'?m|im|we'?re|are)\s+from"
    # "we're coming with a coach bus from Lisbon" (the thirtieth round)
    r"|\b(?:coming|come)\s+(?:\w+\s+){1,4}from"
    r"|\b(?:flying|fly|going|travell?ing|moving|driving|heading)\s+(?:home\s+|back\s+)?to"
    r"|\b(?:moro|mora|moramos|moram|vivo|vive|vivemos|vivem|estou|estamos)\s+"
    r"(?:em|no|na|nos|nas|num|numa)"
    r"|\b(?:sou|somos)\s+(?:de|do|da)|\bcomprei\s+(?:em|no|na)"
    r"|\b(?:vou|vamos|volto|voltamos|viajo|viajamos)\s+(?:\w+\s+){0,2}(?:para|pra|pro|a|ao|à)"
    r"(?:\s+[oa]s?)?"
    r"|(?<!\w)(?:живу|живёт|живет|живём|живем|живут|нахожусь|находимся|я|мы)\s+в"
    # a student or a pensioner somewhere ("я студентка в Лиссабоне", "sou estudante em
    # Lisboa": the twenty-ninth round)
    r"|(?<!\w)(?:я|мы)\s+(?:студент\w*|пенсионер\w*|турист\w*)\s+(?:в|из)"
    r"|\b(?:sou|somos)\s+(?:estudantes?|reformad[oa]s?|turistas?)\s+(?:em|no|na)"
    r"|(?<!\w)(?:лечу|летим|еду|едем|улетаю|уезжаю|уезжаем|возвращаюсь)\s+(?:\w+\s+){0,2}в"
    # where they come from, study, or keep what they own ("мы будем ехать из Лиссабона",
    # "os pais da minha mulher vêm de Angola", "sou estudante da FEUP", "у меня Golf 2016",
    # "у нас двушка 75 м² в Гайе": the twenty-sixth round)
    r"|\b(?:driving|flying|travell?ing|arriving)\s+(?:in\s+)?from"
    # where the home they buy, sell or own is (the forty-seventh round: "we're buying a two
    # storey villa near Lagos", "it's a 3 bed villa in Silves", "a casa é em Mértola")
    r"|\b(?:buying|bought|selling|sold|renting|rented)\s+(?:\w+\s+){1,5}(?:in|near|at)"
    r"|\b(?:villa|flat|house|apartment|airbnb|hotel)\s+(?:is\s+)?(?:in|near)"
    r"|\b(?:a\s+casa|a\s+moradia|o\s+apartamento|o\s+prédio)\s+(?:é|fica)\s+(?:em|no|na|perto\s+de)"
    r"|\b(?:vêm|vem|venho|vimos|vindo|vindos|chegamos|chego)\s+(?:de|do|da)"
    r"|\b(?:sou|somos)\s+\w+\s+(?:de|do|da|na|no)|\b(?:student|studying|study)\s+(?:at|in)"
    r"|\b(?:i|we)\s+(?:have|own|drive|'ve\s+got|have\s+got)\s+(?:an?\s+|the\s+)?"
    r"|\b(?:tenho|temos)\s+(?:um|uma)\s+"
    # where their own business is ("tenho um café em Belém", "we run a bar in Braga": the
    # thirty-first round)
    r"|\b(?:tenho|temos)\s+(?:um|uma)\s+(?:\w+\s+){1,3}(?:em|no|na)"
    r"|\b(?:i|we)\s+(?:have|own|run)\s+(?:an?\s+)?(?:\w+\s+){1,3}(?:in|at)"
    r"|(?<!\w)(?:ехать|едем|еду|поедем|приедем|приезжаем|прилетаем|прилетим|летим|отвезти\s+нас|"
    r"забрать\s+нас)\s+из|(?<!\w)учусь\s+в"
    r"|(?<!\w)у\s+(?:меня|нас)(?:\s+\w+)?|(?<!\w)у\s+(?:меня|нас)\b[^.?!]{0,30}\s(?:в|на)"
    # and where the people they bring are from ("моя подруга из Мадрида", "my friend from
    # Lyon", "a minha amiga é de Madrid": the twenty-seventh round; "we're 3 friends from
    # Moscow": the thirty-third; "we're 14 from my daughter's school class": the
    # thirty-eighth)
    r"|\b(?:my|our)\s+\w+\s+(?:is\s+|are\s+)?from"
    r"|\bwe(?:'?re|\s+are)\s+(?:\w+\s+){1,3}from(?:\s+(?:my|our)\s+(?:[\w']+\s+){0,3})?"
    r"|\b(?:minha|meu|minhas|meus)\s+\w+\s+(?:é\s+|são\s+)?(?:de|do|da)"
    r"|(?<!\w)(?:мо[яйи]|наш[аи]?)\s+\w+\s+из"
    # where they work (the thirty-third round: "i work at a gym reception")
    r"|\b(?:i|we)\s+work\s+(?:at|in|for)(?:\s+\w+){0,3}"
    # what the client is, and where they live with words between (the thirty-seventh and
    # thirty-eighth rounds: "we're a small law office", "we live about 10km away near Santiago
    # do Escoural")
    r"|\b(?:we'?re|we\s+are|i'?m|i\s+am)\s+an?\s+(?:\w+\s+){0,3}"
    r"|\b(?:somos|sou)\s+uma?\s+(?:\w+\s+){0,3}"
    # and what they are and where, without an article (the forty-fourth round: "sou
    # professora numa escola em Lagos")
    r"|\b(?:sou|somos)\s+\w+\s+(?:\w+\s+){0,3}(?:em|no|na|num|numa)"
    # how many they are, and of what ("we're 5 families", "we're 4 people", "somos 4 casais":
    # the thirty-ninth round)
    r"|\b(?:we'?re|we\s+are|somos)\s+\d+\s+(?:\w+\s+){0,2}|(?<!\w)нас\s+\d+\s+(?:\w+\s+){0,2}"
    r"|\b(?:live|lives|living)\s+(?:\S+\s+){1,4}(?:in|at|near)"
    # and with words between in Russian (the fifty-second round: "я живу примерно в 30 км от
    # Голегана")
    r"|(?<!\w)(?:живу|живём|живем|живут)\s+(?:\S+\s+){1,4}(?:от|в|на)"
    r"|(?<!\w)у\s+(?:\w+\s+)?(?:мамы|папы|сестры|брата|бабушки|дедушки|друга|подруги|сына|"
    r"дочки|дочери|родителей|мужа|жены)\s+в"
    # where what they order is sent: the place is the client's, the delivery rule answers
    # ("can u send a bottle to my friend in Funchal?", "o envio de 2 garrafas para Braga",
    # "Можно отправить посылку в Германию?": the fifty-seventh round)
    r"|\b(?:send|sending|ship|shipping|deliver|delivering|delivery|post|mail)\b"
    r"(?:\s+\S+){0,6}?\s+(?:to|in)"
    r"|\b(?:envia\w*|envie\w*|enviar|envio|entreg\w*|manda\w*|despach\w*)"
    r"(?:\s+\S+){0,6}?\s+(?:para|pra|p/|em|na|no|nas|nos|ao|à)"
    r"|(?<!\w)(?:отправ\w*|достав\w*|пошл\w*|выслат\w*|вышл\w*|пересла\w*|пересыл\w*)"
    r"(?:\s+\S+){0,6}?\s+(?:в|во|на|до)"
    # and where they come from ("Я из Техаса", "somos 12 amigos de Lisboa")
    r"|(?<!\w)(?:я|мы)\s+из"
    r"|\b(?:amig[oa]s|pessoas|colegas|friends|people|colleagues)\s+(?:de|da|do|from))\s*$"
)


def situated(question: str, name: str, at: int | None = None) -> bool:
    """Whether the question writes the name (at `at`, else where it first stands) as where the
    client is ("I live in Faro")."""
    at = question.find(name) if at is None else at
    return at > 0 and bool(_SITUATED.search(question[:at]))


def unknown_names(
    question: str,
    idf: Callable[[str], float],
    covered: Set[str],
    known: Sequence[str] = (),
    speaker: Callable[[str], bool] = lambda _: False,
) -> list[str]:
    """The names the question writes (capitalised inside it: "the Premium plan") that no
    message of the chat holds, in any of its words, nor translates (`covered`: the question's
    words a message in another language translates), and that is no one who wrote in it
    (`speaker`: "When did Rafael start?"). On the tuning parts of the questions no
    message answers: lumio 0.133 -> 0.400 said it does not know, velo 0.000 -> 0.067, no
    answerable question lost."""
    keys = {name_key(k) for k in known}
    out = []
    for m in NAME.finditer(question):
        name = m.group()
        toks = index_tokens(name)
        if not toks or name_key(name) in keys or speaker(name):
            continue
        if situated(question, name, m.start()):
            continue  # where the client lives or comes from, not what is asked
        if all(is_time_word(w) for w in written_tokens(name)):
            continue  # "a double room in December": when, not what
        # held, or an everyday equivalent is ("my ID" and "без документа"), or a cognate
        if any(said_somewhere(t, idf) for t in toks) or any(
            w in covered for w in written_tokens(name)
        ):
            continue
        out.append(name)
    return out


# a word after these is a verb ("do you sell gift cards?", "who handles electrical
# problems?"): what is asked is the thing
_BEFORE_VERB = frozenset(
    "you guys i we they to can could will would please who what which pode podem posso vocês você "
    "vcs quem вы я мы можно кто "
    # "i wanna keep the chair", "can someone come remove the arch", "just shoot for a bit" (the
    # forty-third and forty-fourth rounds)
    "wanna gonna gotta come just".split()
)
_INFINITIVE = ("ar", "er", "ir")
# before a Portuguese word that is a verb and a noun, these make it the noun ("o jantar")
_PT_ARTICLES = frozenset(
    "o a os as um uma uns umas do da dos das no na nos nas ao aos pelo pela meu minha seu sua "
    "teu tua nosso nossa esse essa este esta".split()
)
# words that name no thing of their own: "nothing about problems" says nothing
_VAGUE = frozenset(
    "problem problems issue issues thing things question questions help stuff option options "
    "problema problemas coisa coisas questão dúvida ajuda opção проблема проблемы вопрос "
    "вопросы вещь помощь вариант period periods kind type way período tipo jeito forma "
    "период срок тип вид способ "
    # when a thing starts or ends is asked about the thing: "what time does spinning start?"
    # said "nothing about start" before quoting the class times
    "start starts begin begins end ends finish finishes começa começam termina terminam "
    "acaba acabam начинается начинаются заканчивается заканчиваются "
    # what a client needs to do or bring, and the policy on a thing: the thing is asked
    # ("preciso de levar o meu tapete?" said "nothing about Preciso, levar" before quoting
    # "коврики даём бесплатно"; "whats ur cancelation policy?" "nothing about policy")
    "need needs bring preciso precisa precisamos levar trazer нужно надо взять принести "
    "нужный "  # нужен / нужна / нужны: "какой депозит нужен?" said "nothing about нужен"
    # whether a thing is accepted or paid, and which program: the thing is asked ("aceitam
    # pagamento em dinheiro?" said "nothing about aceitam", "первая встреча платная?"
    # "nothing about платная", "какой программой вы подключаетесь?" "nothing about программой")
    "accept accepts aceitar aceitam aceitamos принимать принимаете платный pago "
    "program programa программа "
    # knowing how to, and the usual kind of a thing ("preciso saber nadar bem?" said "nothing
    # about saber", "сколько времени занимает обычная подгонка брюк?" "nothing about обычная")
    "know knows saber sabe знать уметь usual regular обычный "
    "policy policies rule rules política políticas regra regras политика правило правила "
    "number número numero количество "  # "the minimum number of hours": the hours
    # a person left unnamed: "há alguém que fale russo?" asks about Russian
    "anyone someone anybody somebody alguém alguem ninguém ninguem кто-нибудь кто-то "
    # the time of day asked: "С какого времени вы открыты по будням?" said "nothing about
    # времени" before quoting "abrimos às 7h30 de seg a sex"
    "time hour hours hora horas время час часа "
    # nothing, anything, here and until name no thing ("posso cancelar sem pagar nada?" said
    # "nothing about nada", "how long till u get here?" "nothing about till, here")
    "nada nothing anything algo ничего что-нибудь till until here aqui lá тут здесь там "
    # a verb's particle: "can u cut down a big pine tree?" said "nothing about down"
    "down off away "
    # all of it, and "pelo" (by the), read as the verb "pelar": "do I pay everything
    # upfront?" said "nothing about everything", "há caução pelo equipamento?" "... pelo"
    "everything tudo всё pelo pela pelar "
    # when they finish: "posso pagar com mbway ao tecnico quando ele acabar?" said "nothing
    # about tecnico, acabar" beside "card, MB Way or cash"
    "acabar terminar "
    # how long a thing takes: "how long does the brewery tour take?" (as "do you take cards?"
    # is accepting them)
    "take takes "
    # how precisely, and "such" / "one" ("what does framing cost roughly?", "вы берёте таких
    # маленьких?", "привезти один медовик?" said they had nothing about roughly, таких, один)
    "roughly approximately around aproximadamente cerca примерно около "
    "такой такая такое такие таких один одна одно "
    # how late, and a filler "like": "what's the latest i can pick up my daughter?", "a phone
    # booth for like half an hour?" said they had nothing about latest, like
    "latest earliest like "
    # a count written out, and being able: "um quarto só para nós dois?", "a minha mãe não
    # consegue sair de casa" said they had nothing about dois, consegue (the nineteenth round)
    "two three four five six seven eight nine ten dois duas três tres quatro cinco seis "
    "sete oito nove dez два две три четыре пять шесть семь восемь девять десять "
    "third terceiro terceira третий третья "
    "conseguir consegue consigo conseguem "
    # wanting, and after / before ("o meu filho quer experimentar", "dá para tomar banho depois
    # de treinar?" said they had nothing about quer, depois: the twentieth round)
    "want wants querer quer quero queria queremos gostava gostaria хочу хочет хотим хотел "
    "after before depois antes após после "
    # "that" and "it" ("... ou vocês tratam disso?" said it had nothing about disso)
    "isso isto aquilo disso disto daquilo nisso nisto "
    # coming, leaving, "really", "through", "some", "less" (the twenty-first round: "can
    # someone come to her?", "can't really leave the house", "book through insta", "umas 3
    # horas ... mais ou menos")
    "come comes coming leave leaves really through umas uns algumas alguns menos "
    # another one, a huge one, under it ("o meu aparelho é de outra marca", "há um ninho
    # enorme debaixo do telhado")
    "other another outro outra outros outras другой другая другое enorme huge огромный "
    "debaixo under под "
    # one's own, something, happening, those, behind (the twenty-second round: "a minha propria
    # prancha", "fazem algum desconto?", "when's the next course happening?", "aquelas
    # películas ... de trás")
    "own próprio própria propria proprio собственный свой something algum alguma algo "
    "что-то happen happens happening acontecer aquele aquela aqueles aquelas trás tras "
    "look looks "
    # back, giving, while, all, "in a" (the twenty-third round: "how long till i get my mug
    # back", "give a quote", "enquanto trabalho", "o dia todo", "numa casa pequena")
    "back give gives enquanto todo toda todos todas numa num nuns numas "
    # from, very, worth, staying and watching (the twenty-fourth round: "a partir de quanto",
    # "muito vento", "300€ worth of shirts", "can parents stay and watch?")
    "partir muito muita muitos muitas very worth stay watch".split()
)
# Words a question asks with that are no thing missing from the chat when it never says them,
# though a sentence can refuse them ("we do not take children under 6" answers "do you take
# children on the boat tour from Faro?"): who serves the client, a coach, "more" and "extra"
# of a price, how far ahead, and the family a client asks for ("posso pagar com mbway ao
# tecnico?", "сколько стоит индивидуальное занятие с тренером?", "quanto custa a mais ...?",
# "com quanto tempo de antecedência tenho de marcar?", "do u charge extra to come?", "my
# husband's steel watch" said they had nothing about tecnico, тренером, mais, antecedência,
# extra, husband). Only `unknown_words` reads them; `refuses` reads `_VAGUE` alone.
_UNSAID_THINGS = _VAGUE | frozenset(
    "technician técnico tecnico courier estafeta курьер мастер driver motorista водитель "
    "coach trainer treinador тренер mais more больше antecedência antecedencia advance заранее "
    "extra "
    "husband wife son daughter mother mom mum father dad grandma grandpa kid kids child "
    "children baby marido mulher esposa filho filha filhos criança crianças bebé bebê mãe "
    "mae pai avó avô miúdo miúda miúdos miúdas муж жена сын дочь дочка мама мать папа отец "
    "бабушка дедушка ребёнок "
    "ребенок дети малыш бабушкин дедушкин мамин папин "
    # how old the client's thing is ("нужно вскрыть старый бабушкин сейф" said it had nothing
    # about старый, бабушкин)
    "old older new velho velha antigo antiga novo nova старый старая новый новая "
    "big large grande grandes большой большая small pequeno pequena маленький маленькая "
    "adult adults adulto adultos взрослый взрослые notice "
    # more of the client's people, their age in years, the money a refund gives back, the
    # account a handle is of ("my grandmother in Palmela", "12 friends for a stag party", "o
    # meu filho de 7 anos", "devolvem o dinheiro?", "whats the account")
    "grandmother grandfather granny grandparents friend friends amigo amigos amiga amigas "
    "друг друзья подруга colleague colleagues colega colegas коллега коллеги cousin primo "
    "prima брат сестра brother sister irmão irmã sogro sogra sogros in-laws свекровь тёща "
    "year years ano anos год года лет month months mês meses месяц месяца "
    "money dinheiro деньги account conta аккаунт home casa дом team equipa команда "
    # only ("можно взять кроватку всего на 2 дня?" said "nothing about всего": the
    # twenty-fifth round; "can we rent a van just for 2 nights?", "just": the thirty-fifth)
    "only just apenas somente всего весь "
    # a partner, "probably", "normal", flying (the twenty-sixth round: "a minha namorada é
    # vegetariana", "we'll probably get there around 4:15pm", "flying into faro ... bigger
    # than a normal car")
    "girlfriend boyfriend partner namorada namorado probably provavelmente наверное normal flying "
    "normais each cada каждый каждая каждое super "
    # an order or an amount, not a thing (the sixty-third and sixty-fourth rounds: "where do
    # we meet? it's our first class" said it had nothing about "first"; "a couple of weeks",
    # "do I pay less tax")
    "first primeiro primeira primeiros primeiras первый первая первое первые couple less "
    "fewer "
    # possible, ready, a gift (the twenty-eighth round: "framed by friday ... possible?",
    # "пока рамка будет готова", "выгравировать имя ... это подарок")
    "possible possível possivel ready pronto pronta готовый готов готова подарок "
    # "right now", "how fast", where they live (the twenty-ninth round: "water is coming
    # through my ceiling right now!! how fast can someone come", "moro no Feijó")
    "right fast moro "
    # broken, and work (the thirtieth round: "the zipper on my leather jacket is broken", "somos
    # 10 colegas do trabalho")
    "broken partido partida avariado avariada сломан сломана сломался сломалась work trabalho "
    "работа "
    # money and a drop-off (the thirty-second round: "umas canetas de 7 euros" said it had
    # nothing about "euros", "when he drops the bottle off" nothing about "drops")
    "euro euros евро dollar dollars drops dropped dropping "
    # speaking, the shortest, a spot (the thirty-third round: "a russian speaking group", "the
    # shortest booking", "o lugar coberto")
    "speaking speak shortest longest lugar "
    # why the client misses a class (the thirty-fifth round: "I'll miss one class bc of a trip",
    # "я пропущу одно занятие, командировка")
    "trip командировка viajo viajamos flight voo рейс "
    # a personal one (the thirty-seventh round: "can you make me a personal tea mix?")
    "personal pessoal личный "
    # part of, the client's place and its rooms (the forty-first and forty-second rounds:
    # "aceitam como parte do pagamento?", "how long will the technician be in my place? its a
    # 2 bedroom apartment")
    "parte place bedroom "
    # near (the fiftieth round: "we have a villa near Sagres" said it had nothing about "near")
    "near nearby perto "
    # words of grammar the question stop words leave out: prepositions, conjunctions and
    # possessive pronouns name nothing ("ours has gone all yellow", "during the tour", "while
    # we wait" were said back as things the chat lacks, 2026-12-07; Russian ones are read by
    # their part of speech, names_a_thing)
    "above across after against along among around before behind below beneath beside "
    "besides between beyond despite during except inside onto outside past since through "
    "throughout till toward towards underneath until upon within without although whereas "
    "unless whether though while ours yours theirs hers ourselves yourselves themselves "
    "myself yourself himself herself itself whichever whatever whoever either neither "
    "durante enquanto embora através dentro fora "
    # and the periods between the hour and the month above, which were missing ("can we keep
    # the van for a week?" said it had nothing about "week")
    "week weeks semana semanas неделя недели неделю недель day days dia dias день дня дней "
    "часов "
    # how good or dear the client wants it: a wish, no thing ("com o melhor motor que
    # tiverem", "some cheap lunch deal": 2026-12-07 late)
    "best better cheap cheaper cheapest melhor melhores barato barata baratos baratas "
    "лучший лучшая лучшее дешёвый дешевый дешёвая дешевая".split()
)


def said_somewhere(key: str, idf: Callable[[str], float]) -> bool:
    """Whether a message of the chat holds the word (a lemma), an everyday equivalent, a
    thing that is one of it (a weekday for "em que dias?"), or a word of the same sound in
    the same script (a cognate: "apostille" in "apostilas de Haia: NÃO tratamos")."""
    if any(idf(e) > 0 for e in (key, *equivalents({key}), *instances(key))):
        return True
    term = cognate_term(key)
    return term is not None and idf(f"~{term}") > 0


def says_no_thing(word: str) -> bool:
    """A word never said back as a thing the chat lacks: of the client's situation, grammar
    or a period (_UNSAID_THINGS), by the word or its lemma."""
    low = word.lower()
    if low in _UNSAID_THINGS or lemma(low) in _UNSAID_THINGS:
        return True
    # nor a word that asks for a number ("quanto custa?" in a chat whose prices are written in
    # English or Russian said it had nothing about "custa": found in the console, 2026-12-07)
    keys = key_tokens(low)
    return low in HOW_MUCH or (bool(keys) and all(k in HOW_MUCH for k in keys))


def unknown_words(
    question: str, asked: Set[str], idf: Callable[[str], float], covered: Set[str]
) -> list[str]:
    """The question's words that name a thing no message of the chat holds, in any language:
    not itself, nor an everyday equivalent, nor a word a candidate message translates
    (`covered`). Short words, numbers, dates and verbs are left out."""
    words = written_tokens(question)
    out = []
    for k, w in enumerate(words):
        key = lemma(w.lower())
        if key not in asked or len(w) < 4 or not w.isalpha() or is_time_word(w):
            continue
        if said_somewhere(key, idf) or w in covered:
            continue
        if says_no_thing(w):
            continue
        if k and words[k - 1].lower() in _BEFORE_VERB:
            continue  # "do you sell": a verb
        if k and words[k - 1].lower() == "que" and key != w.lower() and key.endswith(_INFINITIVE):
            continue  # "alguém que fale russo?": a verb form ("que dias": a noun, kept)
        if is_portuguese_verb(w.lower()) and not (k and words[k - 1].lower() in _PT_ARTICLES):
            continue  # "quanto custa entrar só um dia para experimentar?": verbs ("o jantar":
            # dinner, a thing)
        if not names_a_thing(w.lower()) or english_not_a_thing(w.lower()) or situated(question, w):
            continue
        out.append(w)
    # a phrase read as one word, said back as written ("do you sell gift cards?")
    for word, written in phrases_in(question):
        # (not a weekend: "para o fim de semana" is when, not what)
        absent = not said_somewhere(word, idf) and word not in covered
        if word in asked and absent and not is_time_word(word):
            out.append(written)
    # each word once, as first written ("the whole thing ... for the whole class" said it had
    # nothing about "whole, whole, class": the forty-ninth round)
    once: dict[str, str] = {}
    for w in out:
        once.setdefault(w.lower(), w)
    return list(once.values())


class _Scored(Protocol):
    @property
    def score(self) -> float: ...


Q = TypeVar("Q", bound=_Scored)


def holding_the_rest(
    asked: frozenset[str], missing: Sequence[str], held: Sequence[tuple[Q, frozenset[str]]]
) -> Q | None:
    """For a question that names what the chat never mentions: the best sentence (of `held`:
    a quote and the asked words it holds) holding every other word it asks with, which the
    answer shows after saying it has nothing about the names. "Есть ли скидка для студентов
    из России?" got only "nothing about России", where "Students from Brazil and Portugal get
    a 15% discount" tells the client what there is. None when the question asks nothing
    else."""
    rest = asked - {t for name in missing for t in index_tokens(name)}
    if not rest:
        return None
    holding = [q for q, matched in held if rest <= matched]
    return max(holding, key=lambda q: q.score) if holding else None


# a refusal: "мы НЕ делаем кейтеринг", "we DON'T have outdoor climbing trips", "no shipping of
# finished pieces", "não aceitamos animais"
_REFUSAL = re.compile(
    r"(?i)(?<!\w)(?:no|not|never|don'?t|doesn'?t|isn'?t|aren'?t|won'?t|não|nao|nunca|нет|не)"
    r"(?!\w)"
)


def refuses(sentence: str, held: Set[str], asked: Set[str], translates: Mapping[str, str]) -> bool:
    """Whether the sentence refuses a thing the question asks about: a negation followed,
    within three words, by one of its words (`held`, lemmas) that stands for an `asked` one,
    as written, translated (`translates`: the word bridge) or an everyday equivalent, and
    names a thing. It answers the question whatever else the question names: "vcs fazem catering p/
    festas?" said "nothing about festas" before "мы НЕ делаем кейтеринг", and "do u ship the
    pieces to Lisbon?" "nothing about Lisbon" before "no shipping of finished pieces". (Not a
    vague word: "we don't accept cash" refuses nothing "do you accept Revolut?" asks about.)"""
    negations = list(_REFUSAL.finditer(sentence))
    if not negations:  # most sentences: nothing more to read
        return False
    standing = {w for w in held if {w, translates.get(w), *equivalents({w})} & asked}
    for m in negations:
        # the three words after it ("без глютена": one word, glutenfree); not those before:
        # "по понедельникам туры не проводим" refuses no tour in Spanish
        for low in tokens(sentence[m.end() :])[:3]:
            key = lemma(low)
            if key in standing and low not in _VAGUE and key not in _VAGUE and names_a_thing(low):
                return True
    return False
