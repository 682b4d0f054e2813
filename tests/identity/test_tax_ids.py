"""Tax ids of every scheme the manifest knows: formatted and plain, valid and broken."""

from __future__ import annotations

import pytest

from core.extract import OfflineExtractor
from ontology import load_ontology, parse_ontology
from ontology.checks import cnpj, cpf, inn, kpp

ONTO = load_ontology()
EXTRACTOR = OfflineExtractor(ONTO)


@pytest.mark.parametrize(
    ("check", "value", "ok"),
    [
        (inn, "7707083893", True),  # 10 digits: an organisation
        (inn, "7701234560", True),
        (inn, "7701234567", False),  # the example: wrong check digit
        (inn, "500100732259", True),  # 12 digits: a person or sole trader
        (inn, "770123456005", True),
        (inn, "770123456789", False),
        (inn, "77012345600", False),  # 11 digits is no INN
        (inn, "0000000000", False),
        (kpp, "770701001", True),
        (kpp, "7707AB001", True),  # the reason code may hold two capital letters
        (kpp, "77070100", False),
        (cnpj, "12345678000195", True),
        (cnpj, "11222333000181", True),
        (cnpj, "12345678000196", False),
        (cnpj, "11111111111111", False),
        (cpf, "52998224725", True),
        (cpf, "12345678909", True),
        (cpf, "12345678900", False),
        (cpf, "11111111111", False),
    ],
)
def test_check_digits(check: object, value: str, ok: bool) -> None:
    assert callable(check)
    assert check(value) is ok


@pytest.mark.parametrize(
    ("text", "ident"),
    [
        ("ООО Ромашка-Трейд (ИНН 7701234560) купил CargoTrack", "tax_id:7701234560"),
        ("ИП Сидоров (ИНН 770123456005) купил CargoTrack", "tax_id:770123456005"),
        ("Acme Ltda (CNPJ 12.345.678/0001-95) comprou CargoTrack", "tax_id:12345678000195"),
        ("Acme Ltda CNPJ 12345678000195 comprou CargoTrack", "tax_id:12345678000195"),
        ("João (CPF 529.982.247-25) comprou CargoTrack", "tax_id:52998224725"),
        ("João CPF 52998224725 comprou CargoTrack", "tax_id:52998224725"),
        ("Romashka LLC (INN: 7707083893) bought CargoTrack", "tax_id:7707083893"),
    ],
)
def test_every_scheme_formatted_and_plain(text: str, ident: str) -> None:
    [triple] = EXTRACTOR.extract(text)
    assert triple.subject_ident == ident
    assert not any(ch.isdigit() for ch in triple.subject)  # the id left the name


def test_twelve_digit_inn_is_not_cut_to_the_ten_digit_one() -> None:
    # the sole trader's INN begins with the company's: a 10-digit try first used to cut it
    company = EXTRACTOR.extract("ООО Ромашка-Трейд (ИНН 7701234560) купил CargoTrack")[0]
    trader = EXTRACTOR.extract("ИП Сидоров (ИНН 770123456005) купил CargoTrack")[0]
    assert company.subject_ident != trader.subject_ident
    assert trader.subject_ident == "tax_id:770123456005"


@pytest.mark.parametrize(
    "text",
    [
        "ООО Ромашка (ИНН 7701234567) купил CargoTrack",  # bad check digit
        "ООО Ромашка (ИНН 77012345) купил CargoTrack",  # too short
        "Acme (CNPJ 12.345.678/0001-96) comprou CargoTrack",
        "Zé (CPF 111.111.111-11) comprou CargoTrack",
    ],
)
def test_bad_ids_stay_text_and_are_no_identity(text: str) -> None:
    [triple] = EXTRACTOR.extract(text)
    assert triple.subject_ident is None
    assert any(ch.isdigit() for ch in triple.subject)  # kept as written, never merged on


def test_kpp_is_recognised_but_never_an_identity() -> None:
    [triple] = EXTRACTOR.extract("ООО Ромашка (ИНН 7707083893, КПП 770701001) купил CargoTrack")
    assert triple.subject == "ООО Ромашка"
    assert triple.subject_ident == "tax_id:7707083893"
    [alone] = EXTRACTOR.extract("ООО Ромашка КПП 770701001 купил CargoTrack")
    assert alone.subject_ident is None  # thousands of companies share one KPP
    assert alone.subject == "ООО Ромашка"


def test_llm_idents_are_checked_too() -> None:
    assert EXTRACTOR.normalise_ident("tax_id:7701234567") is None
    assert EXTRACTOR.normalise_ident("INN 7707083893") == "tax_id:7707083893"
    assert EXTRACTOR.normalise_ident("tax_id:12.345.678/0001-95") == "tax_id:12345678000195"
    assert EXTRACTOR.normalise_ident("email:Ann@Example.com") == "email:ann@example.com"
    assert EXTRACTOR.normalise_ident("kpp:770701001") is None


def test_manifest_refuses_an_unknown_check() -> None:
    text = """# t
## Entity kinds
- company: a company | en: company
## Predicates
- OWNS: company -> company | en: owns
## Identifiers
- tax_id: company | pattern: `(\\d{10})` | normalise: digits | check: luhn
"""
    with pytest.raises(ValueError, match="unknown check"):
        parse_ontology(text)


def test_manifest_knows_legal_forms_per_language() -> None:
    forms = ONTO.legal_forms
    for lang, form in [
        ("ru", "ООО"),
        ("ru", "АО"),
        ("ru", "ПАО"),
        ("ru", "ИП"),
        ("en", "LLC"),
        ("en", "Inc"),
        ("en", "Ltd"),
        ("de", "GmbH"),
        ("pt", "Ltda"),
        ("pt", "S.A."),
        ("pt", "ME"),
        ("pt", "EIRELI"),
    ]:
        assert form in forms[lang], (lang, form)
