"""Words written as several: each phrase of PHRASES is read as one word by `tokens()`
(core/language.py), so that the word index, the quote and the vocabulary see one word."""

from __future__ import annotations

import functools
import re

# a word written as several: "fim de semana" is the weekend, not "fim", "de" and "semana" ("what
# time do you open on saturday?" did not find "fim de semana 8h-14h"); "no mesmo dia" is done
# today ("I need my thesis bound today" did not find "capa dura no mesmo dia +10€"). Each
# with what it must contain (lower-cased), tested before its pattern: a substring test costs
# a tenth of a pattern's search, and tokens() runs on every sentence a question's quote
# weighs (35 -> 8 us a sentence with the twelve phrases)
PHRASES: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (
        re.compile(r"\b(?:fim|fins)[\s-]+de[\s-]+semana\b", re.IGNORECASE),
        "weekend",
        ("fim", "fins"),
    ),
    (
        re.compile(
            r"\b(?:(?:no|o|nesse|neste)\s+(?:mesmo|próprio|proprio)\s+dia|(?:the\s+)?same[\s-]+day|"
            r"в\s+(?:тот\s+же|этот\s+же|день\s+обращения)\s*(?:день)?)(?!\w)",
            re.IGNORECASE,
        ),
        "sameday",
        ("mesmo", "próprio", "proprio", "same", "тот", "обращения"),
    ),
    # "check-in" is arriving, not "check" and "in" ("what time can we check in?" said it had
    # nothing about "check" beside "заезд с 15:00, выезд до 11:00")
    (re.compile(r"\bcheck[\s-]?in\b", re.IGNORECASE), "checkin", ("check",)),
    # (not "check out": "check out our new flyers" is no leaving)
    (re.compile(r"\bcheck-?out\b", re.IGNORECASE), "checkout", ("check",)),
    # a class paid one at a time, coming without booking, and collecting: one word each
    # ("how much for a single drop-in class?" beside "разовое занятие теперь 14€", "можно
    # прийти без записи?" beside "walk-ins only on Fridays", "pick up cars" / "buscar")
    (re.compile(r"\bdrop[\s-]?ins?\b", re.IGNORECASE), "dropin", ("drop",)),
    (re.compile(r"\bwalk[\s-]?ins?\b", re.IGNORECASE), "walkin", ("walk",)),
    (re.compile(r"\bsem\s+marca[çc](?:ão|ao)\b", re.IGNORECASE), "semmarcação", ("marca",)),
    (
        re.compile(r"(?<!\w)без\s+(?:предварительной\s+)?записи(?!\w)", re.IGNORECASE),
        "беззаписи",
        ("записи",),
    ),
    (re.compile(r"\bpick(?:s|ed|ing)?[\s-]?up\b", re.IGNORECASE), "pickup", ("pick",)),
    # outdoors and a day's entry: "vocês fazem escalada ao ar livre?" said "nothing about
    # livre" beside "we DON'T have outdoor climbing trips"; "how much is a day pass?" had
    # nothing beside "entrada diária 13€"
    (
        re.compile(
            r"\boutdoors?\b|\bao\s+ar\s+livre\b|(?<!\w)на\s+открытом\s+воздухе(?!\w)",
            re.IGNORECASE,
        ),
        "outdoor",
        ("outdoor", "livre", "воздухе"),
    ),
    (
        re.compile(
            r"\bday[\s-]?pass(?:es)?\b|\b(?:entradas?|passes?)\s+di[áa]ri[ao]s?\b|"
            r"(?<!\w)(?:дневной|однодневный)\s+(?:абонемент|пропуск|билет)(?!\w)",
            re.IGNORECASE,
        ),
        "daypass",
        ("day", "diári", "diari", "дневн"),
    ),
    # a driving licence: "can i leave my driving licence as deposit?" beside "водительские
    # права не берём"
    (
        re.compile(
            r"\bdriv(?:ing|er'?s)[\s-]+licen[cs]es?\b|\bcartas?\s+de\s+condu[çc][ãa]o\b|"
            r"(?<!\w)водительск\w*\s+прав\w*",
            re.IGNORECASE,
        ),
        "drivinglicence",
        ("licen", "carta", "водительск"),
    ),
    # "gluten-free", "sem glúten", "без глютена": one word ("do you have gluten free cakes?"
    # beside "мы НЕ делаем ничего без глютена")
    (
        re.compile(
            r"\bgluten[\s-]?free\b|\bsem\s+gl[úu]ten\b|(?<!\w)без\s+глютена(?!\w)", re.IGNORECASE
        ),
        "glutenfree",
        ("gluten", "glúten", "глютен"),
    ),
    # Portugal's phone payment, written "MB Way", "MBWay" or "mbway" ("posso pagar com mbway?"
    # said it had nothing beside "card, MB Way or cash"); American Express is Amex
    (re.compile(r"\bmb[\s-]?way\b", re.IGNORECASE), "mbway", ("mb",)),
    (
        re.compile(
            r"\bamerican[\s-]+express\b|(?<!\w)американ\w*[\s-]+экспресс\w*|(?<!\w)амекс\w*",
            re.IGNORECASE,
        ),
        "amex",
        ("american", "американ", "амекс"),
    ),
    # "15% off" is a discount, turning up without booking a walk-in, a grand piano one word,
    # "б/у" used, a windscreen "para-brisas" (the twenty-second round: "somos 12 amigos, fazem
    # algum desconto?" beside "groups of 10+ get 15% off", "can we just turn up on saturday
    # without booking?" beside "we don't take walk-ins", "сколько стоит настроить рояль?"
    # beside "piano de cauda 110€", "any used pianos?" beside "б/у пианино")
    (re.compile(r"(\d\s*%)\s*off\b", re.IGNORECASE), r"\1 discount", ("off",)),
    (
        re.compile(r"\bwithout\s+(?:a\s+)?(?:booking|reservation|appointment)\b", re.IGNORECASE),
        "walkin",
        ("without",),
    ),
    (
        re.compile(r"\bgrand\s+pianos?\b|\bpianos?\s+de\s+cauda\b", re.IGNORECASE),
        "grandpiano",
        ("grand", "cauda"),
    ),
    (re.compile(r"(?<!\w)б/у(?!\w)", re.IGNORECASE), "used", ("б/у",)),
    # "сколько по времени" asks how long, not a time of day ("время")
    (re.compile(r"(?<!\w)по\s+времени(?!\w)", re.IGNORECASE), "долго", ("времени",)),
    (re.compile(r"\bpara[\s-]brisas?\b", re.IGNORECASE), "windscreen", ("brisa",)),
    # an e-bike, a video call, leaving the car (parking): "can you pick up my ebike?" beside
    # "bicicletas elétricas", "onde é que posso deixar o carro?" beside "Camões garage" (the
    # twenty-third round)
    (
        re.compile(r"\be-?bikes?\b|\bbicicletas?\s+el[ée]tricas?\b", re.IGNORECASE),
        "ebike",
        ("bike", "bicicleta"),
    ),
    (re.compile(r"\bvideo[\s-]?calls?\b", re.IGNORECASE), "videocall", ("video",)),
    # free, one on one, sunset, a t-shirt (the twenty-fourth round: "a partir de quanto é que o
    # envio fica de graça?", "a one on one lesson", "прогулка на закате" beside "sunset")
    (re.compile(r"\bde\s+gra[çc]a\b", re.IGNORECASE), "grátis", ("gra",)),
    (re.compile(r"\bone[\s-]+on[\s-]+one\b", re.IGNORECASE), "private", ("one",)),
    (re.compile(r"\bp[ôo]r[\s-]+do[\s-]+sol\b", re.IGNORECASE), "pordosol", ("sol",)),
    (re.compile(r"\bt[\s-]?shirts?\b", re.IGNORECASE), "tshirt", ("shirt",)),
    (
        re.compile(
            r"\bmeeting\s+rooms?\b|\bsalas?\s+de\s+reuni(?:ões|oes|ão|ao)\b|(?<!\w)переговор[нк]\w*",
            re.IGNORECASE,
        ),
        "meetingroom",
        ("meeting", "reuni", "переговор"),
    ),
    (
        re.compile(
            r"\bdeixar\s+o\s+carro\b|\bleave\s+(?:my|the|our)\s+car\b|(?<!\w)оставить\s+машину(?!\w)",
            re.IGNORECASE,
        ),
        "parking",
        ("carro", "car", "машину"),
    ),
    # a weekday written whole ("o taproom abre à segunda-feira?" asked "feira" too, which no
    # schedule holds), a travel fee
    (
        re.compile(r"\b(segunda|terça|terca|quarta|quinta|sexta)[\s-]feiras?\b", re.IGNORECASE),
        r"\1",
        ("feira",),
    ),
    # half an hour is 30 minutes ("a phone booth for like half an hour?" beside "4€ por 30
    # min"), a summer camp one word ("campo de férias", "летний лагерь")
    (
        re.compile(
            r"\bhalf\s+an\s+hour\b|\bmeia[\s-]hora\b|(?<!\w)пол\s?часа(?!\w)", re.IGNORECASE
        ),
        "30 min",
        ("half", "meia", "пол"),
    ),
    # and an hour is 60 minutes ("how much for 1hr of jumping" beside "sessão de 60 min custa
    # 12€": the thirty-sixth round); not a clock time ("à uma hora", "в 1 час"), nor an hour
    # and more ("1 hora e meia", "1 hour 30")
    (
        re.compile(
            r"(?:\b(?:1|one|an)\s?-?\s?(?:hr|hour)\b|(?<!à\s)(?<!às\s)\b(?:1|uma)\s+hora\b|"
            r"(?<!в\s)(?<!\w)(?:1|один)\s+час(?!\w))"
            r"(?!\s*(?:e|and|с)?\s*(?:meia|a\s+half|половин|\d))",
            re.IGNORECASE,
        ),
        "60 min",
        ("hr", "hour", "hora", "час"),
    ),
    (
        re.compile(
            r"\bsummer\s+camps?\b|\bcampos?\s+de\s+f[ée]rias\b|(?<!\w)летн\w+\s+лагер\w*",
            re.IGNORECASE,
        ),
        "summercamp",
        ("summer", "férias", "ferias", "летн"),
    ),
    (
        re.compile(r"\btravel(?:ling)?\s+(?:fee|charge|cost)s?\b", re.IGNORECASE),
        "travelfee",
        ("travel",),
    ),
    # breakfast, and aqua aerobics: one word each ("Até que horas servem o pequeno-almoço?"
    # said it had nothing about "almoço", lunch)
    (re.compile(r"\bpequenos?[\s-]+almo[çc]os?\b", re.IGNORECASE), "pequenoalmoço", ("pequen",)),
    # a touch-up, a thing made to measure, a gift card, midnight and noon: one word each ("если
    # татуировка облезла, подправите?" beside "touch-ups grátis nos primeiros 3 meses",
    # "костюм на заказ" beside "fato feito por medida", "do you sell gift cards?" beside
    # "cartões sim, todos menos Amex", "é meia-noite, quanto custa?" had nothing about "meia")
    (re.compile(r"\btouch[\s-]?ups?\b", re.IGNORECASE), "touchup", ("touch",)),
    (
        re.compile(
            r"\bmade[\s-]+to[\s-]+(?:measure|order)\b|\b(?:feit[oa]s?\s+)?(?:por|sob)\s+medida\b|"
            r"(?<!\w)(?:на|под)\s+заказ(?!\w)",
            re.IGNORECASE,
        ),
        "bespoke",
        ("made", "medida", "заказ"),
    ),
    (
        re.compile(
            r"\bgift[\s-]?(?:cards?|vouchers?|certificates?)\b|"
            r"\b(?:vales?|cart(?:ão|ao|ões|oes)|vouchers?)[\s-]+(?:de\s+)?(?:oferta|presente)\b|"
            r"(?<!\w)подарочн\w*\s+(?:сертификат|карт)\w*",
            re.IGNORECASE,
        ),
        "giftcard",
        ("gift", "oferta", "presente", "подарочн"),
    ),
    (re.compile(r"\bmeia[\s-]noite\b", re.IGNORECASE), "midnight", ("noite",)),
    # after lunch is the afternoon ("можно вам позвонить в субботу после обеда?" had nothing
    # about "обеда" beside "sáb 9h-13h")
    (
        re.compile(
            r"\bafter\s+lunch\b|\bdepois\s+do\s+almo[çc]o\b|(?<!\w)после\s+обеда(?!\w)",
            re.IGNORECASE,
        ),
        "afternoon",
        ("lunch", "almo", "обеда"),
    ),
    (re.compile(r"\bmeio[\s-]dia\b", re.IGNORECASE), "noon", ("meio",)),
    # a toilet, paying upfront, a windbreak (the twenty-seventh round: "tem casa de banho?"
    # said it had nothing about "banho", "tenho de pagar tudo à cabeça?" nothing about
    # "cabeça", "windbreakers" missed "Para-vento também alugamos")
    (re.compile(r"\bcasas?\s+de\s+banho\b", re.IGNORECASE), "toilet", ("banho",)),
    (re.compile(r"(?<!\w)à\s+cabeça\b", re.IGNORECASE), "upfront", ("cabeça",)),
    (re.compile(r"\bp[aá]ra[\s-]ventos?\b", re.IGNORECASE), "windbreak", ("vento",)),
    (
        re.compile(r"\baqua[\s-]?aer[oó]bics?\b|(?<!\w)аква[\s-]?аэробик\w*", re.IGNORECASE),
        "aquaaerobics",
        ("aqua", "аква"),
    ),
    # a public holiday is a holiday ("are you open on public holidays?" said it had nothing
    # about "public" beside "Feriados das 9h às 20h": the twenty-ninth round)
    (re.compile(r"\b(?:public|bank)\s+holidays?\b", re.IGNORECASE), "holiday", ("holiday",)),
    # changing clothes is changing ("há balneários para mudar de roupa depois?" had nothing
    # about "roupa": the thirtieth round)
    (
        re.compile(
            r"\b(?:mudar|trocar|muda|troca)\s+de\s+roupa\b|\bchange\s+clothes\b",
            re.IGNORECASE,
        ),
        "changing",
        ("roupa", "clothes"),
    ),
    # included in the price is included, no price asked ("Ужин входит в стоимость?" quoted
    # the ticket prices over "also no food included": the thirtieth round)
    (
        re.compile(
            r"(?<!\w)(?:входит|входят|включен\w*|включён\w*)\s+в\s+(?:стоимость|цену)(?!\w)|"
            r"\binclu[íi]d[oa]s?\s+no\s+pre[çc]o\b|\bincluded\s+in\s+the\s+price\b",
            re.IGNORECASE,
        ),
        "included",
        ("входит", "входят", "включ", "inclu"),
    ),
    # a wheelchair in three languages ("нам кресло-коляска нужна только на одну неделю" had
    # nothing about "коляска" beside "cadeira de rodas": the thirty-fourth round)
    (
        re.compile(
            r"\bcadeiras?\s+de\s+rodas\b|(?<!\w)кресл\w*-коляск\w*|(?<!\w)инвалидн\w+\s+коляск\w*"
            r"|(?<!\w)коляск\w*\s+инвалидн\w*",
            re.IGNORECASE,
        ),
        "wheelchair",
        ("rodas", "коляск"),
    ),
)


def _may_hold(text: str) -> list[tuple[re.Pattern[str], str]]:
    """The phrases whose keys the text contains: most texts hold no phrase."""
    low = text.lower()
    return [(phrase, word) for phrase, word, keys in PHRASES if any(k in low for k in keys)]


# texts up to CACHED_CHARS long are cached, CACHED of them: at most ~10 MB however long the
# chat's messages (a Telegram message may hold 4,096 characters, two bytes each in Cyrillic)
CACHED, CACHED_CHARS = 4096, 512


def one_word(text: str) -> str:
    """The text with each phrase written as its one word. Cached: a question's quote weighs
    the same chat sentences as the questions before it, and the phrases' keys, tested on each
    (`_may_hold`), had grown to a sixth of the ask path's time beyond its floor (py-spy, 600
    questions at 10k facts + 10k messages)."""
    return _one_word(text) if len(text) <= CACHED_CHARS else _written_as_one(text)


def _written_as_one(text: str) -> str:
    for phrase, word in _may_hold(text):
        text = phrase.sub(word, text)
    return text


_one_word = functools.lru_cache(maxsize=CACHED)(_written_as_one)


def phrases_in(text: str) -> list[tuple[str, str]]:
    """The phrases the text writes that are one word: (the word, the phrase as written)."""
    return [
        (word, m.group())
        for phrase, word in _may_hold(text)
        if word.isalpha()
        for m in phrase.finditer(text)
    ]
