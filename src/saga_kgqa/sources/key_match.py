"""Identifier keys compared across sources: the same id written as ``1``, ``"1"``, ``1.0`` or ``"001"``.

Two sources rarely write a shared identifier the same way: one side types it as an
integer, the other as a string, a double or a zero-padded code. :func:`match_key` maps a
literal to the form it is compared in, and :func:`normalisation` names the weakest
rewrite that made two terms meet, so a bridge or a join can say *how* it joined them
(``exact``, ``datatype``, ``numeric`` or ``zero-padding``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Literal

from saga_kgqa.kg.core.result import Term

Normalisation = Literal["exact", "datatype", "numeric", "zero-padding"]
#: Weakest last: a pair of keys is joined by the strongest rewrite that makes them equal.
NORMALISATIONS: tuple[Normalisation, ...] = ("exact", "datatype", "numeric", "zero-padding")
#: Lexical forms longer than this are not identifiers; they are compared exactly.
MAX_KEY_CHARS = 64
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PADDED = re.compile(r"[+-]?0[0-9]+")


def match_key(term: Term) -> str:
    """The form a term is compared in: IRIs as themselves, numbers by value, other literals by lexical form.

    ``1``, ``"1"``, ``1.0``, ``"1.0"^^xsd:double`` and ``"001"`` all map to ``"n:1"``; ``"A12"`` maps to
    ``"s:A12"``; an IRI to ``"i:<iri>"``. Language tags and datatypes of non-numeric literals are dropped.
    """
    if term.kind != "literal":
        return f"i:{term.value}"
    text = term.value.strip()
    number = _number(text)
    if number is not None:
        return f"n:{number}"
    return f"s:{text}"


def _number(text: str) -> str | None:
    if len(text) > MAX_KEY_CHARS or not _NUMBER.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite():
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def normalisation(left: Term, right: Term) -> Normalisation:
    """The rewrite that joined two terms with the same :func:`match_key`.

    ``exact``: the same term; ``datatype``: the same lexical form under another datatype;
    ``zero-padding``: a leading zero was dropped (``"001"`` = ``1``); ``numeric``: the same
    number written otherwise (``1.0`` = ``1``).
    """
    if left == right:
        return "exact"
    if left.value.strip() == right.value.strip():
        return "datatype"
    if _PADDED.fullmatch(left.value.strip()) or _PADDED.fullmatch(right.value.strip()):
        return "zero-padding"
    return "numeric"


def weakest(found: dict[Normalisation, int]) -> Normalisation:
    """The weakest rewrite that some matched pair needed (the one a join must apply)."""
    used = [name for name in NORMALISATIONS if found.get(name)]
    return used[-1] if used else "exact"


def right_form(key: Term, like: Term) -> Term:
    """``key`` rewritten in the form of a right-side value ``like`` (datatype, padding), for a bound query.

    A key that is not a number, or a ``like`` that is not a literal, is returned unchanged.
    """
    number = _number(key.value.strip()) if key.kind == "literal" else None
    if number is None or like.kind != "literal":
        return key
    text = like.value.strip()
    if _PADDED.fullmatch(text) and number.isdigit():
        number = number.zfill(len(text))
    return Term("literal", number, like.datatype, like.lang)
