"""Question detection and the name key used to match entities (language detection: core/langid.py).

Russian and Portuguese inflect ("платежи" / "платежей", "pagamento" / "pagamentos"): names are
matched through a lemmatiser per script (pymorphy3 for Cyrillic, simplemma for Latin text in
English and Portuguese), while the name shown to users stays as first written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from core.dictionaries import holding, latin_dictionaries
from core.langid import detect_language as detect_language  # re-exported for front-ends
from core.phrases import one_word

_WORD = re.compile(r"[\w@.+-]+", re.UNICODE)
_TOKEN = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_QUOTES = str.maketrans(dict.fromkeys("\"'`«»“”„‘’‹›", " "))

QUESTION_WORDS = frozenset(
    """what which who whom whose where when why how does do did is are was were can could
    should would will whats que qual quais quem onde quando porque por como quanto quanta
    quantos quantas o a é será existe что какой какая какие каких какое кто где когда почему
    зачем как сколько чем ли разве""".split()
)

_PERSONS = frozenset("i you u we they he she it".split())

# (possessives in the three languages: "a minha sogra" asks about a mother-in-law, not about
# "meu", which was said back as unknown, twice)
STOPWORDS = frozenset(
    """the a an of to is are was were be been what which who whom whose where when why how
    does do did for with on in at by and or it its this that these those there any some all
    about me us our we you your they their i my tell show list please know can could should
    would will from into reach reaches reached apply applies applied affect affects subject
    de do da dos das o a os as um uma que qual quais quem onde quando como para com no na
    nos nas em é são ao à se por pelo pela sobre isso me nos diga mostre há tem
    и в во на с со к ко по о об от до из за для что какой какая какие каких какое кто где
    когда почему как ли это этот эта эти мне нам про есть у же ты вы мы он она они
    if если
    meu minha meus minhas teu tua teus tuas seu sua seus suas nosso nossa nossos nossas
    dele dela deles delas comigo contigo conosco connosco мой моя моё мое мои твой твоя твои наш наша наше наши ваш ваша
    ваше ваши свой своя свои его её ее их""".split()
)


# months, weekdays and the words that make a date ("next", "сегодня"): when, not what; with
# "воскресение", the lemma pymorphy gives "воскресеньям" ("по воскресеньям открываемся в
# 10:00" named a bike rental's world "воскресеньям bicicleta devolvido", found in the console)
TIME_WORDS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday weekday weekdays weekend weekends
    next last this today tomorrow morning afternoon evening tonight
    yesterday now janeiro fevereiro março marco abril maio junho julho agosto setembro outubro
    novembro dezembro segunda terça terca quarta quinta sexta sábado sabado domingo segundas
    terças quartas quintas sextas sábados domingos próximo
    proximo próxima proxima hoje amanhã amanha ontem agora manhã manha tarde noite январь февраль март апрель май июнь
    июль август сентябрь октябрь ноябрь декабрь понедельник вторник среда четверг пятница
    суббота воскресенье воскресение выходные выходной будни будний следующий прошлый этот сегодня завтра
    вчера завтрашний завтрашнее завтрашняя сегодняшний утро утром днём днем вечер вечером ночью
    midnight noon полночь полдень summer winter spring autumn verão verao inverno primavera
    outono лето летом зима зимой весна весной осень осенью lunchtime обеденный""".split()
)


def is_time_word(word: str) -> bool:
    """A month, a weekday or a word of a date, as written or by its lemma ("понедельникам")."""
    low = word.lower()
    return low in TIME_WORDS or lemma(low) in TIME_WORDS


def is_question(text: str) -> bool:
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.endswith("?") or stripped.startswith("¿"):
        return True
    words = [w.lower() for w in _TOKEN.findall(stripped)[:2]]
    if not words:
        return False
    # "does Ann work at Acme" without its "?" was remembered as a fact about "does Ann";
    # "do" asks only before a person ("do you deliver"; "do the backup tonight" tells), and
    # the Portuguese "o", "a", "é" start statements too
    if words[0] == "do":
        return len(words) > 1 and words[1] in _PERSONS
    return words[0] in QUESTION_WORDS - {"o", "a", "é"} or (len(words) > 1 and words[1] == "ли")


# a request to be told about something ("tell me about Ana", "fale sobre o plano Pro",
# "расскажи про доставку"): in a message addressed to the bot it asks, it is not remembered
# ("tell me about Ana" was "Noted (no facts recognised)": found in the console, 2026-12-07).
# Core.handle_message reads it so; an overheard or imported message stays a statement
_TELL_ME = re.compile(
    r"(?i)^\s*(?:please\s+|pls\s+|por\s+favor,?\s+|пожалуйста,?\s+)?(?:"
    r"tell\s+(?:me|us)\s+(?:more\s+)?about|describe|explain"
    r"|(?:me\s+)?(?:fale|fala|conte|conta|explique|descreva)(?:-me)?(?:\s+(?:mais|um\s+pouco))?"
    r"\s+(?:sobre|do|da|dos|das|de)"
    r"|(?:расскажи|расскажите)(?:\s+(?:мне|нам))?(?:\s+подробнее)?\s+(?:про|о|об|обо)"
    r"|опиши|опишите|объясни|объясните)(?!\w)"
)


def asks_to_be_told(text: str) -> bool:
    """Whether the message asks to be told about something, in words that are no question."""
    return bool(_TELL_ME.search(text))


@lru_cache(maxsize=1)
def _morph() -> Any:
    import pymorphy3

    return pymorphy3.MorphAnalyzer()


@lru_cache(maxsize=1)
def _latin() -> Any:
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy

    return Lemmatizer(
        lemmatization_strategy=DefaultStrategy(dictionary_factory=latin_dictionaries())
    )


@lru_cache(maxsize=65536)
def is_dictionary_word(token: str) -> bool:
    """Whether a lower-case word is in the lemmatisers' dictionaries (English and Portuguese
    word lists, pymorphy3's for Russian): a word that is not may be a typo."""
    if _CYRILLIC.search(token):
        return bool(_morph().word_is_known(token))
    return bool(holding(token))


# weekdays as a schedule writes them ("seg a sex 9h-20h, sab 9h-13h", "пн-пт", "Mon-Sat"):
# the weekday's lemma, so that "вы работаете в субботу?" finds "sab 9h-13h" (a pharmacy's
# hours were missed for it). Not the Portuguese "ter" (Tuesday), which is the verb "to have"
_DAY_ABBREVIATIONS = {
    **dict.fromkeys(("mon",), "monday"),
    **dict.fromkeys(("tue", "tues"), "tuesday"),
    **dict.fromkeys(("wed",), "wednesday"),
    **dict.fromkeys(("thu", "thur", "thurs"), "thursday"),
    **dict.fromkeys(("fri",), "friday"),
    **dict.fromkeys(("sat",), "saturday"),
    **dict.fromkeys(("sun",), "sunday"),
    **dict.fromkeys(("seg",), "segundo"),
    **dict.fromkeys(("qua",), "quarta"),
    **dict.fromkeys(("qui",), "quinta"),
    **dict.fromkeys(("sex",), "sexta"),
    **dict.fromkeys(("sab", "sáb"), "sábado"),
    **dict.fromkeys(("dom",), "domingo"),
    **dict.fromkeys(("пн",), "понедельник"),
    **dict.fromkeys(("вт",), "вторник"),
    **dict.fromkeys(("ср",), "среда"),
    **dict.fromkeys(("чт",), "четверг"),
    **dict.fromkeys(("пт",), "пятница"),
    **dict.fromkeys(("сб",), "суббота"),
    **dict.fromkeys(("вс",), "воскресенье"),
}


_ORDINAL = re.compile(r"([1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)")


@lru_cache(maxsize=65536)
def lemma(token: str) -> str:
    """The dictionary form of one lower-case token (ё folded to е)."""
    if token in _DAY_ABBREVIATIONS:
        return lemma(_DAY_ABBREVIATIONS[token])
    if _CYRILLIC.search(token):
        base = str(_morph().parse(token)[0].normal_form).replace("ё", "е")
        # two verbs share the form "есть": "to be" ("у вас есть доставка?", filler) and "to
        # eat" ("ест", "едят"); the eating one is keyed by its synonym
        return "кушать" if base == "есть" and token != "есть" else base
    if token.isascii() and not token.isalpha():
        # a day of the month written as an ordinal is its number: "open on Saturday the
        # 21st?" and "Sábado dia 21 fechamos mais cedo" (the twenty-fifth round)
        if (day := _ORDINAL.fullmatch(token)) is not None:
            return day.group(1)
        return token  # identifiers, numbers, mixed tokens: keep as written
    return str(_latin().lemmatize(token, lang=("en", "pt")))


@lru_cache(maxsize=65536)
def lemma_in(token: str, lang: str) -> str:
    """The dictionary form of one lower-case token read as `lang` ("come" in Portuguese is
    "comer"; lemma() reads a Latin word as English first). Russian as lemma()."""
    if lang not in ("en", "pt") or _CYRILLIC.search(token) or not token.isalpha():
        return lemma(token)
    return str(_latin().lemmatize(token, lang=lang))


# pymorphy3's parts of speech that can name a topic (nouns, adjectives; None: not Russian)
_NAMING_POS = frozenset({"NOUN", "ADJF", "ADJS", None})
# Portuguese verb endings nouns rarely have ("troquei", "consertou", "pintamos", "levaram"):
# a word with one of them whose lemma is an infinitive is a verb form. Not English: its -ing
# and -ed forms are topic nouns too ("wedding", "training"); nor bare Portuguese -o / -a
# words, which simplemma lemmatises to a verb when one exists ("passarinho" -> "passarinhar",
# "rio" -> "rir")
_PT_VERB_ENDINGS = (
    *("ei", "ou", "amos", "emos", "imos", "aram", "eram", "iram", "ava", "avam"),
    *("am", "em", "ia", "iam"),  # "parecem vespas" (the twenty-first round)
)


def is_cyrillic(token: str) -> bool:
    return bool(_CYRILLIC.search(token))


# not full participles: names have them ("Объединённая компания")
_VERB_POS = frozenset({"VERB", "INFN", "PRTS", "GRND"})


@lru_cache(maxsize=65536)
def is_verb_form(token: str) -> bool:
    """A Russian word whose likeliest reading is a verb form ("написан", "использует")."""
    return _morph().parse(token.lower())[0].tag.POS in _VERB_POS


# personal pronouns of English and Portuguese, which no lemmatiser here marks as such
# (pymorphy3 does for Russian): "Vocês fazem entregas para Moscou?" was answered "Ainda não
# tenho nada sobre Vocês"
_PERSONAL_PRONOUNS = frozenset(
    "i you he she it we they me him her us them eu tu ele ela nós nos vós eles elas você vocês "
    "voce voces vc vcs "
    # and the possessives ("qual é o vosso instagram?" said it had nothing about "vosso")
    "my your our their meu minha meus minhas teu tua seu sua seus suas nosso nossa nossos nossas "
    "vosso vossa vossos vossas мой моя моё мое мои твой твоя ваш ваша ваше ваши наш наша".split()
)


_PT_CONJUGATED = {
    "a": ("ou", "ando", "amos"),
    "e": ("eu", "endo", "emos"),
    "i": ("iu", "indo", "imos"),
}


@lru_cache(maxsize=65536)
def is_portuguese_verb(token: str) -> bool:
    """Whether a lower-case word is a Portuguese verb's infinitive: two of its conjugated
    forms (past, gerund, "we") are in the dictionary as its forms. "embrulhar", "entrar" and
    "treinar" are; "lugar", "mulher" and "açúcar" are not (nor is a noun ending like an
    infinitive); "jantar" and "olhar" are both."""
    if not token.endswith(("ar", "er", "ir")) or len(token) < 4:
        return False
    stem = token[:-2]
    forms = [stem + ending for ending in _PT_CONJUGATED[token[-2]]]
    return sum(1 for f in forms if "pt" in holding(f) and lemma(f) == token) >= 2


_NOT_THINGS_FILE = Path(__file__).resolve().parent / "data" / "english_not_things.txt"


@cache
def _english_not_things() -> frozenset[str]:
    lines = _NOT_THINGS_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(w for w in lines if w and not w.startswith("#"))


def english_not_a_thing(token: str) -> bool:
    """An English word that is never a noun, only a verb or an adverb ("remove", "recycled",
    "totally"; scripts/english_not_things.py): English has no part-of-speech tagger here, and
    "how much for you to come and hang it?" said the chat had nothing about "hang"."""
    return token in _english_not_things()


@lru_cache(maxsize=65536)
def russian_pos(token: str) -> str | None:
    """pymorphy3's part of speech of a Russian word's likeliest reading ("ADJF", "NOUN"...)."""
    return _morph().parse(token)[0].tag.POS  # type: ignore[no-any-return]


@lru_cache(maxsize=65536)
def names_a_thing(token: str) -> bool:
    """Whether a lower-case word can stand in a topic's name: not a verb form, pronoun,
    adverb or particle, as far as the lemmatisers tell (pymorphy3's part of speech for
    Russian, the ending and the lemma for Portuguese, and a list of personal pronouns)."""
    if token in _PERSONAL_PRONOUNS:
        return False
    if _CYRILLIC.search(token):
        return _morph().parse(token)[0].tag.POS in _NAMING_POS
    if not token.isalpha():
        return True
    base = lemma(token)
    verb_form = base != token and base.endswith(("ar", "er", "ir"))
    return not (verb_form and token.endswith(_PT_VERB_ENDINGS))


def sanitize(text: str) -> str:
    """Text as its author saw it: invisible format characters (zero-width spaces and joiners,
    bidi controls, BOM, soft hyphen) removed, other control characters turned into spaces
    (line breaks and tabs stay), lone surrogates (which no encoder accepts) replaced by U+FFFD.
    Without this "check\u200bout" is an entity apart from "checkout" (issue 12)."""
    if text.isprintable():  # the common case, at C speed
        return text
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    out = []
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cf":
            continue
        out.append(" " if category == "Cc" and ch not in "\n\t" else ch)
    return "".join(out)


def clean_name(name: str) -> str:
    """A display name: Unicode-normalised, invisible characters and quotes removed, whitespace
    collapsed."""
    text = unicodedata.normalize("NFKC", sanitize(name)).translate(_QUOTES)
    return " ".join(text.split()).strip(" .,;:!?-")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens; hyphens and punctuation separate words."""
    return [t.lower() for t in written_tokens(one_word(text))]


def written_tokens(text: str) -> list[str]:
    """The word tokens as written (case kept: an embedding model reads "Moscou" as the city,
    0.81 from "Москву" with USE, and "moscou" as a word it hardly knows, 0.54)."""
    return list(_TOKEN.findall(unicodedata.normalize("NFKC", text)))


def name_key(name: str) -> str:
    """The matching key of a name: case-, inflection- and punctuation-insensitive."""
    return " ".join(lemma(t) for t in tokens(clean_name(name)))


def key_tokens(text: str) -> list[str]:
    return [lemma(t) for t in tokens(text)]


_DECLINABLE = frozenset({"NOUN", "ADJF", "PRTF"})


def nominative(name: str) -> str:
    """A Russian name in its base form, number kept: "платежей" -> "платежи".

    Only the head group changes (adjectives up to the first noun): the words after it depend on
    the head and keep their case ("от службы доставки" -> "служба доставки"). A word whose likeliest
    reading is nominative is left as written; Latin words and unknown shapes are untouched.
    """

    def reading(parses: list[Any]) -> Any:
        best = parses[0]  # the likeliest reading decides
        return None if best.tag.POS not in _DECLINABLE or "nomn" in best.tag else best

    return _inflect_head(name, "nomn", reading)


def _inflect_head(name: str, case: str, reading: Callable[[list[Any]], Any]) -> str:
    """The name with its head group (Cyrillic adjectives up to the first noun) put in `case`,
    each word through the pymorphy reading `reading` picks (None: stop there)."""
    words = name.split()
    for i, word in enumerate(words):
        if not _CYRILLIC.search(word) or not word.isalpha():
            break
        best = reading(_morph().parse(word.lower()))
        if best is None:
            break
        form = best.inflect({case})
        if form is None:
            break
        words[i] = _same_case(word, form.word)
        if best.tag.POS == "NOUN":
            break
    return " ".join(words)


# the case a Russian verb or preposition that ends a predicate's phrase puts its object in
# ("работает в" + Сбербанк -> "в Сбербанке", "зависит от" + платежи -> "от платежей")
GOVERNS: dict[str, str] = {
    "в": "loct",
    "на": "loct",
    "о": "loct",
    "от": "gent",
    "из": "gent",
    "у": "gent",
    "для": "gent",
    "частью": "gent",
    "требует": "gent",
    "требуют": "gent",
    "с": "ablt",
    "со": "ablt",
    "перед": "ablt",
    "является": "ablt",
    "интересуется": "ablt",
    "подчиняется": "datv",
    "принадлежит": "datv",
    "к": "datv",
    "за": "accs",
    "использует": "accs",
    "используют": "accs",
    "купил": "accs",
    "купила": "accs",
    "купили": "accs",
}


def governed(phrase: str, name: str) -> str:
    """A Russian name in the case the phrase before it governs ("работает в" + "Сбербанк" ->
    "Сбербанке"); the inverse of nominative(), on the same head group (adjectives up to the
    first noun). A word not read as a nominative, a Latin word or an unknown shape stays."""
    words = phrase.split()
    case = GOVERNS.get(words[-1].lower()) if words else None
    if case is None:
        return name

    def reading(parses: list[Any]) -> Any:
        # the likeliest reading that is a nominative ("шлюз" is read as an accusative first)
        return next((p for p in parses if p.tag.POS in _DECLINABLE and "nomn" in p.tag), None)

    return _inflect_head(name, case, reading)


def _same_case(original: str, word: str) -> str:
    if original.isupper() and len(original) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if original[:1].isupper() else word
