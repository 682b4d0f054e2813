"""The closed vocabulary: ontology/llms.txt and its loader."""

from ontology.loader import (
    EntityKind,
    IdentifierRule,
    Ontology,
    OntologyError,
    Predicate,
    load_ontology,
    parse_ontology,
)

__all__ = [
    "EntityKind",
    "IdentifierRule",
    "Ontology",
    "OntologyError",
    "Predicate",
    "load_ontology",
    "parse_ontology",
]
