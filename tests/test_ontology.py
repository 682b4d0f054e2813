from __future__ import annotations

import pytest

from ontology import OntologyError, load_ontology, parse_ontology

REQUIRED = {
    "DEPENDS_ON",
    "REQUIRES",
    "BELONGS_TO",
    "DECIDES_FOR",
    "PURCHASED",
    "INTEGRATED_WITH",
    "SIGNED_CONTRACT",
    "REPORTS_TO",
    "IS_A",
    "PART_OF",
    "LOCATED_IN",
    "USES",
    "INTERESTED_IN",
}


def test_default_manifest_covers_reference_domains() -> None:
    onto = load_ontology()
    assert set(onto.predicates) >= REQUIRED
    assert {"company", "person", "role", "product", "deal", "document", "service", "policy"} <= set(
        onto.kinds
    )
    assert onto.predicates["SIGNED_CONTRACT"].max_hops == 1
    assert onto.predicates["BELONGS_TO"].cardinality == "one"
    for pred in REQUIRED:
        assert set(onto.predicates[pred].surface) == {"en", "pt", "ru"}, pred


def test_check_refuses_phantom_predicate_and_wrong_kinds() -> None:
    onto = load_ontology()
    assert onto.check("service", "DEPENDS_ON", "service") is None
    assert "unknown predicate" in (onto.check("service", "HATES", "service") or "")
    assert "does not allow" in (onto.check("person", "DEPENDS_ON", "service") or "")
    assert "unknown subject kind" in (onto.check("alien", "USES", "service") or "")


def test_identifier_rules_normalise() -> None:
    onto = load_ontology()
    tax = onto.identifiers["tax_id"]
    m = tax.regex.search("ООО Ромашка, ИНН 7701234567")
    assert m is not None and tax.normalise_value(m.group(1)) == "7701234567"
    assert onto.identifiers["email"].normalise_value(" Ann@Example.COM ") == "ann@example.com"


BASE = """# test
> summary

## Entity kinds

- service: a service | en: service

## Predicates

"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- DEPENDS_ON service -> service", "a list item must read"),
        ("- DEPENDS_ON: service service", "needs 'domain -> range'"),
        ("- DEPENDS_ON: service -> robot", "unknown kind 'robot'"),
        ("- depends_on: service -> service", "UPPER_SNAKE_CASE"),
        ("- DEPENDS_ON: service -> service | cardinality: several", "Input should be"),
        ("- DEPENDS_ON: service -> service | colour: blue", "unknown field"),
    ],
)
def test_malformed_manifest_names_the_line(line: str, expected: str) -> None:
    with pytest.raises(OntologyError) as err:
        parse_ontology(BASE + line + "\n", "m.txt")
    assert "m.txt:10:" in str(err.value)
    assert expected in str(err.value)


def test_extending_the_manifest_needs_no_code(tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = BASE + "- MAINTAINS: service -> service | en: maintains\n"
    onto = parse_ontology(text)
    assert onto.check("service", "MAINTAINS", "service") is None
