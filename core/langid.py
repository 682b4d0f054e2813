"""Which language a message is in (en / pt / ru), short messages included.

Clients write "ok", "Python?", "qual o preço do Pro?", "спс": a message of one or two words
carries little evidence, so detection adds up weak cues and lets the chat's recent language
(the prior) decide when the message itself says nothing. Cues, each measured on the labelled
short-message set in tests/fixtures/lang_short.tsv (tuning part; bench/language.py prints the
held-out figure):

- script: a Cyrillic word is Russian evidence, however many Latin product names surround it;
- words: function words and the everyday words of client chats, per language, including the
  spellings people type without accents or in chat shorthand ("nao", "vcs", "obg", "thx");
- letters and endings: ã, õ, ç and accented vowels are Portuguese, "-ção"/"-ões" too; "n't",
  "'s" and "-ing" are English;
- the lemmatiser's word lists: a word only the English or only the Portuguese one holds is a
  weak cue ("fazem limpeza?", "abrem domingo?": no function word, no accent, and the chat's
  English prior answered in English; "cleaning teeth?" in a Portuguese chat);
- names do not vote: a capitalised Latin word inside a sentence ("Acme", "Salesforce",
  "Lisboa"), an e-mail address or a URL is a name, not language ("acme.com" is not "com").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from core.dictionaries import holding
from core.phrases import CACHED, CACHED_CHARS

LANGUAGES = ("en", "pt", "ru")

_NAMES_OUT = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?://|www\.)\S+|\b[\w-]+(?:\.[a-z]{2,})+\b|[@#]\w+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_PT_STRONG = re.compile(r"[ãõç]", re.IGNORECASE)
_PT_ACCENT = re.compile(r"[áéíóúâêôà]", re.IGNORECASE)
_EN_CLITIC = re.compile(r"[a-z]['’](?:s|t|m|re|ll|d|ve)\b", re.IGNORECASE)
_PT_ENDINGS = ("ção", "ções", "cao", "coes", "ão", "ões", "dade", "mente", "agem", "inho", "inha")
_EN_ENDINGS = ("ing", "tion", "ness", "ally")

# Everyday words of client chats. Words both languages use ("a", "do", "no", "me", "as",
# "on"... ) are in neither list: they prove nothing.
_PT = frozenset(
    """que não nao de da das dos qual quais quem onde quando qnd como quanto quanta quantos
    quantas custa custam custo sai preço preco preços para pra com uma um uns umas os é
    e está esta estão estao são sao ser foi era por pelo pela pelos pelas sobre isso isto
    ele ela eles elas nós vocês voces você voce vc vcs tem têm ter tenho temos tinha posso
    pode podem podemos quero queremos queria gostaria preciso precisa precisamos obrigado
    obrigada obg brigado valeu oi olá ola bom boa dia tarde noite tudo bem sim também tambem
    tb tbm mais menos muito muita já ainda agora hoje amanhã amanha ontem depois antes
    aqui ali lá meu minha meus minhas seu sua seus suas nosso nossa ao aos às na nas num
    numa até ate mas ou se fazer faz falar fala manda mande passa gente plano planos empresa
    fatura nota conta contrato desconto grátis gratis teste ajuda suporte demora quer
    comprar compra assinatura cancelar cancelo usuários usuarios licenças licencas dados
    fica ficam escritório escritorio atendimento horário horario tá ta blz beleza legal
    certo então entao porque pq td cadê cade funciona funcionam linguagem política politica
    aplica requer exige depende dependem pagamento pagamentos pagar mensal anual mês mes
    ano anos desculpa engano repetir mudar trocar depois vou vai vamos pensar caro barata
    barato limite armazenamento inclui incluso incluído diferença entre exportar chegou
    emitem emite responsável responsavel gerente contas contato financeiro dólar reais
    existe serviço servico sistema empresa ferramenta produto regra requisito cliente
    clientes pessoa pessoas lugar cidade país pais coisa conceito tecnologia negócio
    pedido documento cargo função funcao decide trabalha usa usam integra integram
    integração integracao requisições requisicoes lançam lancam lançar aceitam aceita
    boleto licença grátis implantação implantacao prazo ligar humano falar vendas
    atendem português portugues inglês ingles ativar entre novo nova esse essa este aquele
    onde fica mora sediada localizado localizada pertence faz parte tipo algum alguma
    nenhum nenhuma sem""".split()
)
_EN = frozenset(
    """the of to is are was were what which who where when how does did for with in and it
    its this that these those there any some all about i you your we our they their my from
    into have has had be been not dont doesnt isnt cant wont whats hows theres hi hello hey
    thanks thank thx ty yes yeah yep nope please pls plz much many price prices pricing cost
    costs plan plans want wants need needs buy get got use uses work works good great cool
    sounds fine bye morning evening later contract invoice discount discounts free trial
    help call tomorrow today yesterday talk human sales switch change stored office hours
    u r ur just also only more less too expensive think sorry mistake repeat cancel
    subscription long take fast activation include includes included receipts receipt login
    account manager difference between export arrive arrived annual monthly month year
    years support could would should will can shall may might seats seat users user
    limit limits storage rate someone anyone send him her his she he them issue
    integrate integration pay paying card customers serve been being database which
    language policy applies apply depend depends depending requires required
    subject company service services system people person place city country thing
    concept technology deal order document role position title product products tool
    decides decision maker located based lives part type kind interested purchased bought
    signed reports an by at or if so but our ours mine yours okay alright right
    well lol btw asap fyi like know tell show list let lets see""".split()
)

PRIOR_WEIGHT = 0.6  # the chat's recent language: decides a tie, never outvotes a cue
_STRONG, _ACCENT, _ENDING = 2.0, 1.0, 0.5
# one word of one word list does not outvote the prior ("python?" stays in a Portuguese
# chat); two do ("fazem limpeza?" in an English one)
_LISTED = 0.5


def _scores(text: str) -> dict[str, float]:
    text = unicodedata.normalize("NFC", _NAMES_OUT.sub(" ", text))
    score = {"en": 0.0, "pt": 0.0, "ru": 0.0}
    words = _WORD.findall(text)
    for i, raw in enumerate(words):
        word = raw.lower().replace("’", "'")
        if _CYRILLIC.search(word):
            score["ru"] += 1.5
            continue
        if i > 0 and raw[0].isupper() and word not in _PT and word not in _EN:
            continue  # a name inside a sentence ("Acme", "Lisboa") says nothing
        if "'" in word:
            if _EN_CLITIC.search(word):
                score["en"] += 1.0
            word = word.split("'")[0]
        if word in _PT:
            score["pt"] += 1.0
        if word in _EN:
            score["en"] += 1.0
        if _PT_STRONG.search(word):
            score["pt"] += _STRONG
        elif _PT_ACCENT.search(word):
            score["pt"] += _ACCENT
        if word not in _PT and word not in _EN:
            if len(word) > 4 and word.endswith(_PT_ENDINGS):
                score["pt"] += _ENDING
            elif len(word) > 4 and word.endswith(_EN_ENDINGS):
                score["en"] += _ENDING
            if len(word) > 2 and len(held := holding(word)) == 1:
                score[held[0]] += _LISTED
    return score


def detect_language(text: str, prior: str | None = None) -> str:
    """'en', 'pt' or 'ru'. `prior` is the chat's recent language: it decides when the message
    itself carries no cue ("ok", "Python?", "👍") and breaks ties; without one, English."""
    return detect(text, prior)[0]


def detect(text: str, prior: str | None = None) -> tuple[str, bool]:
    """The language and whether the text itself held a cue (a cue-less message must not
    become the chat's recent language). Cached for short texts (as core.phrases.one_word): a
    quote's word bridge reads the language of each chat sentence it weighs, the same
    sentences question after question."""
    return _detect(text, prior) if len(text) <= CACHED_CHARS else _detected(text, prior)


def _detected(text: str, prior: str | None) -> tuple[str, bool]:
    score = _scores(text)
    cue = any(v > 0 for v in score.values())
    if prior in score:
        score[prior] += PRIOR_WEIGHT
    best = max(LANGUAGES, key=lambda lang: (score[lang], lang == prior, lang == "en"))
    return (best if score[best] > 0 else (prior if prior in score else "en")), cue


_detect = lru_cache(maxsize=CACHED)(_detected)


def recent_language(texts: Sequence[str]) -> str | None:
    """The language of a chat's last messages (newest last), or None when they hold no cue."""
    lang, cue = detect(" \n".join(texts[-5:]))
    return lang if cue else None
