"""What a question asks for that a pattern of the answer holds, whatever language the answer
was written in: the company's address (a street and a number) or a way to reach it (a phone
number, an e-mail address). core/quote.py requires the quoted sentence to write it; the word
index (core/recall) searches with the words that usually come with it (recall_query)."""

from __future__ import annotations

import re

from core.language import key_tokens

# "where are you located?", "onde vocês ficam?", "ваш адрес?": the company's address, held by a
# sentence with a street and a number ("na Rua das Flores 88", "ул. Лесная 12"), in whatever
# language it was written (USE puts "where are you located?" 0.08 from "Endereço: Rua Augusta
# 1500", under any floor). A "where" question about someone else ("where does Monty live?")
# asks no address.
WHERE = frozenset(key_tokens("where onde где"))
YOU_PLACE = frozenset(
    key_tokens(
        "you your locate location vocês você voces vc seu sua fica ficam localizado localização "
        "вы вас ваш ваша находиться располагаться"
    )
)
_ADDRESS_WORDS = "address endereço адрес street st rua av avenida улица ул проспект"
ADDRESS_ASKED = frozenset(key_tokens("address endereço адрес"))
ADDRESS = re.compile(
    r"(?i:\b(?:rua|r\.|av\.|avenida|alameda|travessa|praça|largo|estrada|street|st\.|avenue|"
    r"ave\.|road|rd\.|boulevard|blvd\.?|lane|ул\.|улица|пр\.|просп\.|проспект|пер\.|переулок|"
    r"наб\.|набережная|шоссе|бульвар|площадь)\s[^\n]{0,40}?\d)"
    r"|\b\d+[a-z]?\s+(?:[A-Z]\w+\s+){1,3}(?i:street|st\.?|road|rd\.?|avenue|ave\.?)\b"
)


# "whats your whatsapp", "qual o email de vocês?", "как с вами связаться?": a phone number or an
# e-mail address, held by a sentence that writes one, in whatever language ("whats your
# whatsapp" quoted "É só agendar comigo pelo WhatsApp" over "WhatsApp для клиентов: +995 555
# 12 34 87", bench.answers --set lingva, tuning part). "number" is left out: it asks for a
# quantity as often as for a phone.
PHONE_ASKED = frozenset(
    key_tokens("phone telephone whatsapp zap call telefone ligar телефон позвонить звонить")
)
EMAIL_ASKED = frozenset(key_tokens("email e-mail почта емейл имейл"))
CONTACT_ASKED = frozenset(key_tokens("contact contato contacto связаться контакт"))
_PHONE = re.compile(r"\+?\d[\d ()-]{6,}\d")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PHONE_OR_EMAIL = re.compile(f"{_PHONE.pattern}|{_EMAIL.pattern}")
_CONTACT_WORDS = "phone telefone телефон whatsapp email e-mail почта"


def asks_contact(question: str) -> re.Pattern[str] | None:
    """What writes the contact the question asks for: an e-mail address, a phone number, or
    either (None: it asks for none)."""
    toks = set(key_tokens(question)) - {"e"}
    email, phone = bool(EMAIL_ASKED & toks), bool(PHONE_ASKED & toks)
    if email and not phone:
        return _EMAIL
    if phone and not email:
        return _PHONE
    if email or phone or CONTACT_ASKED & toks:
        return _PHONE_OR_EMAIL
    return None


def asks_address(question: str) -> bool:
    """Whether the question asks where the company is (or its address)."""
    toks = set(key_tokens(question))
    return bool(ADDRESS_ASKED & toks) or bool(WHERE & toks and YOU_PLACE & toks)


def recall_query(question: str) -> str:
    """The question as the word index searches it: an address question also looks for the
    words that write an address, in every language (the message that holds it shares no word
    with "where are you located?"), and a contact question the words that name a phone or an
    e-mail."""
    if asks_address(question):
        return f"{question} {_ADDRESS_WORDS}"
    return f"{question} {_CONTACT_WORDS}" if asks_contact(question) else question
