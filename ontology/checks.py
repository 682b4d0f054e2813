"""Check digits of the tax-id schemes the manifest names in an identifier's `check:` field.

A number that fails its scheme's check (a typo, a phone number, an invoice number) is never an
identity: the extractor keeps it as text and the store never merges on it. Each check takes the
normalised value (digits only; a KPP may hold two capital letters) and says whether it is a
well-formed identifier of that scheme.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_KPP = re.compile(r"^\d{4}[\dA-Z]{2}\d{3}$")


def _weighted(digits: list[int], weights: tuple[int, ...]) -> int:
    return sum(d * w for d, w in zip(digits, weights, strict=False))


def _inn_digit(digits: list[int], weights: tuple[int, ...]) -> int:
    return _weighted(digits, weights) % 11 % 10


def inn(value: str) -> bool:
    """Russian INN: 10 digits (organisation) or 12 (person, sole trader), with check digits."""
    if not value.isdigit() or len(value) not in (10, 12) or not value.strip("0"):
        return False
    d = [int(c) for c in value]
    if len(value) == 10:
        return _inn_digit(d, (2, 4, 10, 3, 5, 9, 4, 6, 8)) == d[9]
    return (
        _inn_digit(d, (7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) == d[10]
        and _inn_digit(d, (3, 7, 2, 4, 10, 3, 5, 9, 4, 6, 8)) == d[11]
    )


def kpp(value: str) -> bool:
    """Russian KPP: 9 characters, tax office (4 digits), reason (2), number (3); no check digit."""
    return bool(_KPP.match(value)) and value[:4] != "0000"


def _mod11_digit(digits: list[int], weights: tuple[int, ...]) -> int:
    rest = _weighted(digits, weights) % 11
    return 0 if rest < 2 else 11 - rest


def cnpj(value: str) -> bool:
    """Brazilian CNPJ: 14 digits, two mod-11 check digits."""
    if not value.isdigit() or len(value) != 14 or len(set(value)) == 1:
        return False
    d = [int(c) for c in value]
    first = _mod11_digit(d, (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
    second = _mod11_digit(d, (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
    return first == d[12] and second == d[13]


def cpf(value: str) -> bool:
    """Brazilian CPF: 11 digits, two mod-11 check digits; 111.111.111-11 and the like are void."""
    if not value.isdigit() or len(value) != 11 or len(set(value)) == 1:
        return False
    d = [int(c) for c in value]
    first = _mod11_digit(d, tuple(range(10, 1, -1)))
    second = _mod11_digit(d, tuple(range(11, 1, -1)))
    return first == d[9] and second == d[10]


CHECKS: dict[str, Callable[[str], bool]] = {"inn": inn, "kpp": kpp, "cnpj": cnpj, "cpf": cpf}
