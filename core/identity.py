"""Name keys of entity identity, strongest first: exact name, then lemma, then sound.

A stable identifier (core/extract.py: tax id with valid check digits, e-mail, domain, deal id)
beats every name key. Among names:

- exact: case, punctuation and the legal form normalised ("ООО «Ромашка-Трейд»" ==
  "ромашка трейд" == "Ромашка-Трейд"); the distinctive part must be the same words, so the
  sibling "Ромашка-Логистика" never matches.
- lemma: the exact key's words in dictionary form ("платежей" -> "платеж"); only for mentions in
  free text and questions, never to unify two entities each stated with their own name.
- sound: a consonant skeleton after Latin transliteration ("Romashka Trade" and "Ромашка-Трейд"
  both give "rmSk trd"); only across scripts, only for mentions, and only for skeletons long
  enough to mean something.

Pure functions and a small in-memory index; no store and no model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from core.language import clean_name, lemma, tokens

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN = re.compile(r"[a-z]", re.IGNORECASE)
_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)
_TRANSLIT = str.maketrans(
    {
        "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
        "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
        "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
        "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
        "я": "ya",
    }
)  # fmt: skip
# Latin spellings of one sound, longest first; capitals mark a digraph already folded. "th" is
# "т" in Russian spellings of Latin names (Python/Питон, Thomson/Томсон, Ethernet aside). An
# English or Portuguese "j" is "дж" or "ж" in Russian (Jakarta / Джакарта, Jenkins / Дженкинс,
# João / Жоао): one sound, "Z", with "dzh" and "zh" (it was "й", as in Jaroslav / Ярослав, a
# spelling these chats' languages do not use: "Где находится Джакарта?" had nothing about
# Джакарта beside "Jakarta is located in Java", found in the console 2026-12-07)
_DIGRAPHS = (
    ("shch", "S"), ("sch", "S"), ("sh", "S"), ("ch", "C"), ("tch", "C"), ("dzh", "Z"),
    ("dj", "Z"), ("zh", "Z"),
    ("kh", "h"), ("ts", "c"), ("tz", "c"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("qu", "kv"),
    ("x", "ks"),
    ("w", "v"), ("c", "k"), ("q", "k"), ("z", "s"), ("j", "Z"),
    # Portuguese: "nh" and "lh" are "нь" and "ль" (Matosinhos / Матозиньюш), and an "s" that
    # ends a syllable is "ш" (Cascais / Кашкайш, Estoril / Эшторил), so "ш" is an "s" here: a
    # bakery's chat had nothing about Cascais beside "В Синтру и Кашкайш возим за 25€"
    ("nh", "n"), ("lh", "l"), ("S", "s"),
)  # fmt: skip
_VOWELS = re.compile(r"[aeiouy]+")
MIN_SOUND_CONSONANTS = 3  # "Ann" (n), "Ivan" (vn) sound like too much; "чекаут" (Ckt) does not
# A name too short for a skeleton is matched across scripts by its spelling in Latin letters,
# vowels kept ("Иван" = "Ivan", "Мария" = "Maria", "Ольга" = "Olga"), when that has at least
# this many letters. The sound level matches only across scripts (NameIndex.find), so two
# Latin names are never one by it. Before, "Where does Ivan work?" in a chat that wrote "Иван"
# named nobody, and "Does Ivan work at Sber?" was answered "No".
MIN_SPELLED_LETTERS = 3


def _spelled(word: str) -> str:
    latin = word.translate(_TRANSLIT).replace("dzh", "j").replace("zh", "j").replace("y", "i")
    return re.sub(r"(.)\1+", r"\1", latin)


def first_name_like(a: str, b: str) -> bool:
    """Two spellings of one first name in two scripts, in any of Russian's cases: spelled in
    Latin letters ("Ольги" = "olgi", "Инеш" = "inesh"), one begins as the other does but for
    its last letter or so, at least MIN_SPELLED_LETTERS of it, and is at most 3 letters longer
    ("Olga", "Inês"; not "Мартиника" for "Marta"). In one script only the same name is one
    (João is not Joana)."""
    if script(a) == script(b):
        return _fold(a) == _fold(b)
    x, y = sorted((_spelled(_fold(a)), _spelled(_fold(b))), key=len)
    if len(x) < MIN_SPELLED_LETTERS or len(y) - len(x) > 3:
        return False
    shared = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), len(x))
    return shared >= max(MIN_SPELLED_LETTERS, len(x) - 1)


def script(text: str) -> str:
    """'cyrl', 'latn' or '' (digits, mixed with neither)."""
    if _CYRILLIC.search(text):
        return "cyrl"
    return "latn" if _LATIN.search(text) else ""


def _fold(text: str) -> str:
    # case, ё and Latin diacritics do not tell two names apart ("São" == "Sao")
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    return "".join(_bare_latin(c) for c in text)


def _bare_latin(char: str) -> str:
    if char.isascii() or _CYRILLIC.match(char):  # "й" is a letter of its own, not "и" + breve
        return char
    return "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))


def _word_skeleton(word: str) -> str:
    latin = word.translate(_TRANSLIT)
    for spelling, sound in _DIGRAPHS:
        latin = latin.replace(spelling, sound)
    bare = _VOWELS.sub("", latin)
    return re.sub(r"(.)\1+", r"\1", bare)


KEYS_MEMO = 8192  # names whose keys NameRules keeps


class NameRules:
    """The name keys, with the legal forms the ontology declares (ontology.legal_forms)."""

    def __init__(self, legal_forms: Mapping[str, Sequence[str]]) -> None:
        self._folded: set[str] = set()  # case-insensitive forms: "llc", "ltda", "gmbh"
        self._exact: set[str] = set()  # two letters or fewer: only as written ("SA", "ИП", "ME")
        for forms in legal_forms.values():
            for form in forms:
                bare = _NOT_WORD.sub("", form)
                if len(bare) <= 2:
                    self._exact.add(bare)
                else:
                    self._folded.add(_fold(bare))
        # a question's word n-grams are looked up three times (its worlds, every world, the
        # names it uses) and names recur: the keys of the last few thousand names, memoised
        self._keys: dict[str, tuple[str, str, str]] = {}

    def is_form(self, word: str) -> bool:
        bare = _NOT_WORD.sub("", word)
        return bool(bare) and (bare in self._exact or _fold(bare) in self._folded)

    def split_form(self, name: str) -> tuple[str, str]:
        """(the name without its legal form, the form as written or ''); never empties a name."""
        words = clean_name(name).split()
        head: list[str] = []
        tail: list[str] = []
        while len(words) > 1 and self.is_form(words[0]):
            head.append(words.pop(0))
        while len(words) > 1 and self.is_form(words[-1]):
            tail.insert(0, words.pop())
        core = " ".join(words).rstrip(",").strip()
        return clean_name(core) or clean_name(name), " ".join([*head, *tail])

    def keys(self, name: str) -> tuple[str, str, str]:
        """(exact, lemma, sound) keys of a name, built word by word from cached word keys."""
        got = self._keys.get(name)
        if got is None:
            if len(self._keys) >= KEYS_MEMO:
                self._keys.clear()
            got = self._keys[name] = self._make_keys(name)
        return got

    def _make_keys(self, name: str) -> tuple[str, str, str]:
        core, _form = self.split_form(name)
        parts = [_word_keys(w) for w in core.split()]
        exact = " ".join(p[0] for p in parts if p[0])
        lemmas = " ".join(p[1] for p in parts if p[1])
        sounds = [p[2] for p in parts if p[2]]
        sound = " ".join(sounds) if len("".join(sounds)) >= MIN_SOUND_CONSONANTS else ""
        if not sound:
            spelled = [p[3] for p in parts if p[3]]
            if len("".join(spelled)) >= MIN_SPELLED_LETTERS:
                sound = "~" + " ".join(spelled)  # "~": never equal to a skeleton
        return exact, lemmas, sound

    def exact_key(self, name: str) -> str:
        return self.keys(name)[0]

    def lemma_key(self, name: str) -> str:
        return self.keys(name)[1]

    def sound_key(self, name: str) -> str:
        """The consonant skeleton of the name; '' when too short to tell names apart."""
        return self.keys(name)[2]


@lru_cache(maxsize=65536)
def _word_keys(word: str) -> tuple[str, str, str, str]:
    exact = " ".join(_NOT_WORD.sub(" ", _fold(word)).replace("_", " ").split())
    toks = tokens(word)
    lemmas = [lemma(t).lower() for t in toks]
    # Cyrillic words sound like their lemma ("Ромашку" ~ "Romashka"); Latin ones as written,
    # since an English/Portuguese lemma of a name can be another word ("São" -> "ser")
    said = [
        (lem if script(t) == "cyrl" else _fold(t)).replace("ё", "е")
        for t, lem in zip(toks, lemmas, strict=True)
    ]
    sounds = [_word_skeleton(w) for w in said]
    spelled = " ".join(s for s in map(_spelled, said) if s)
    return exact, " ".join(lemmas), " ".join(s for s in sounds if s), spelled


# A word (not a name) matched across scripts by its sound needs this many letters: loanwords
# ("apostille" / "апостиль", "manicure" / "маникюр") are long, short words sound alike by chance
MIN_SOUND_WORD = 5


@lru_cache(maxsize=65536)
def sound_term(word: str, *, other: bool = False) -> str | None:
    """A word's script and consonant skeleton ("apostille" -> "latn:pstl", "апостиль" ->
    "cyrl:pstl"); with `other`, the term the same sound has in the other script, what a word
    is searched by across scripts. None for a word too short or in neither script."""
    folded = _fold(word).replace("ё", "е")
    kind = script(folded)
    if not kind or len(folded) < MIN_SOUND_WORD:
        return None
    skeleton = _word_skeleton(folded)
    if len(skeleton) < MIN_SOUND_CONSONANTS or not skeleton.isalpha():
        return None
    if other:
        kind = "latn" if kind == "cyrl" else "cyrl"
    return f"{kind}:{skeleton}"


# A word the chat does not hold is also looked for by its sound in its own script when its
# skeleton has this many consonants: a cognate in the other Latin-script language ("urgente"
# / "urgent jobs are +50%", "orçamento" / "orcamentos@...", "apostille" / "apostilas"); with
# three, "parte", "prato" and "porta" sound alike
MIN_COGNATE_CONSONANTS = 4


@lru_cache(maxsize=65536)
def cognate_term(word: str) -> str | None:
    """The term a word is found by in its own script, by a word of the same first letter and
    consonants (its sound_term's skeleton, long enough), else None: "custar" is not "extra"."""
    term = sound_term(word)
    if term is None or len(term.split(":", 1)[1]) < MIN_COGNATE_CONSONANTS:
        return None
    return f"{term}:{_fold(word)[0]}"


# A short name heard across scripts through a case ending: "Фару" (Faro in a Russian
# sentence: "трансфер из аэропорта Фару не делаем"), "икеи" (IKEA): the Latin spelling without
# its final vowel, when this many letters are left ("far", "ike"). Only a name is matched
# this way (the Latin word capitalised, core/pipeline/bridge.py): as words, "para" and "пара"
# would be one
MIN_STEM_LETTERS = 3


@lru_cache(maxsize=65536)
def spelled_stem(word: str) -> str | None:
    """A word's script and its Latin spelling without a final vowel ("Фару" -> "cyrl:far",
    "Faro" -> "latn:far"), or None when too short or in neither script."""
    folded = _fold(word).replace("ё", "е")
    kind = script(folded)
    if not kind or not folded.isalpha():
        return None
    spelled = _spelled(folded)
    stem = spelled[:-1] if spelled[-1:] in ("a", "e", "i", "o", "u") else spelled
    return f"{kind}:{stem}" if len(stem) >= MIN_STEM_LETTERS else None


def fold(text: str) -> str:
    """Case, ё and Latin diacritics folded ("Terrário" -> "terrario")."""
    return _fold(text)


def sound_key(word: str) -> str:
    """How a word sounds, whatever its script: "python", "питон" and "píton" are all "ptn"
    (the sound level of the name keys)."""
    return _word_keys(word)[2]


@dataclass(frozen=True)
class NameMatch:
    """What one mention resolves to: the strongest level with any hit, and its entities."""

    level: str  # "exact" | "lemma" | "sound" | ""
    ids: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.ids) > 1


NO_MATCH = NameMatch("")


@dataclass
class NameIndex:
    """(world, key) -> entity ids, per level; many ids under one key is an ambiguity to report."""

    rules: NameRules
    tables: dict[str, dict[tuple[str, str], list[str]]] = field(
        default_factory=lambda: {"exact": {}, "lemma": {}, "sound": {}}
    )
    _scripts: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (eid, sound)
    _keys: dict[str, list[tuple[str, tuple[str, str]]]] = field(default_factory=dict)
    # level -> key -> in how many worlds: find skips a key no world holds without asking each
    # world (a question's ~45 word n-grams mostly name nothing; over a chat's 32 worlds at 10k
    # facts that was ~4k lookups for each question)
    _held: dict[str, dict[str, int]] = field(
        default_factory=lambda: {"exact": {}, "lemma": {}, "sound": {}}
    )

    def add(self, eid: str, world: str, names: Iterable[str]) -> None:
        for name in names:
            exact, lemmas, sound = self.rules.keys(name)
            self._put("exact", (world, exact), eid)
            self._put("lemma", (world, lemmas), eid)
            if sound:
                self._put("sound", (world, sound), eid)
                self._scripts.setdefault((eid, sound), set()).add(script(name))

    def world_of(self, eid: str) -> str:
        keys = self._keys.get(eid)
        return keys[0][1][0] if keys else ""

    def _put(self, level: str, key: tuple[str, str], eid: str) -> None:
        if not key[1]:
            return
        table = self.tables[level]
        hits = table.get(key)
        if hits is None:
            hits = table[key] = []
            held = self._held[level]
            held[key[1]] = held.get(key[1], 0) + 1
        if eid not in hits:
            hits.append(eid)
            self._keys.setdefault(eid, []).append((level, key))

    def remove(self, eid: str) -> None:
        for level, key in self._keys.pop(eid, []):
            table = self.tables[level]
            left = [h for h in table.get(key, []) if h != eid]
            if left:
                table[key] = left
            elif table.pop(key, None) is not None:
                held = self._held[level]
                held[key[1]] -= 1
                if not held[key[1]]:
                    del held[key[1]]
            self._scripts.pop((eid, key[1]), None)

    def find(self, worlds: Iterable[str], mention: str, *, levels: str = "els") -> NameMatch:
        """The entities a mention names, strongest level first ('e'xact, 'l'emma, 's'ound)."""
        worlds = list(worlds)
        keys = dict(zip(("exact", "lemma", "sound"), self.rules.keys(mention), strict=True))
        for code, level in (("e", "exact"), ("l", "lemma"), ("s", "sound")):
            if code not in levels:
                continue
            key = keys[level]
            if key not in self._held[level]:
                continue
            ids = _unique(i for w in worlds for i in self.tables[level].get((w, key), ()))
            if level == "sound":  # transliteration only bridges scripts: same script is lemma's
                own = script(mention)
                ids = tuple(i for i in ids if own and self._scripts.get((i, key), set()) - {own})
            if key and ids:
                return NameMatch(level, ids)
        return NO_MATCH


def _unique(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))
