"""Literal canonicalisation, so that equal values written differently compare equal.

Raw scores compare RDF terms exactly (kind, lexical form, datatype, language tag). The
canonical view keeps IRIs and blank nodes as they are and rewrites literals:

* numbers of any XSD numeric type become one ``xsd:decimal`` in shortest form
  (``"+100"^^xsd:decimal``, ``"100"^^xsd:integer`` and ``"1.0E2"^^xsd:double`` are all ``100``);
* dates are reduced to the precision they carry: an ``xsd:dateTime`` at midnight UTC (how
  Wikidata writes a day-, month- or year-precision date) becomes the ``xsd:date`` of that
  day, other date-times are written in UTC, and an ``xsd:date`` loses its time zone;
* ``xsd:boolean`` ``1``/``0`` become ``true``/``false``;
* language tags are dropped, so ``"Paris"@en``, ``"Paris"@EN`` and ``"Paris"`` are the same
  answer text (the raw view still tells them apart).

A literal whose lexical form does not parse under its datatype is left as it is.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from saga_kgqa.kg.core.result import Term

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_DECIMAL = XSD + "decimal"
XSD_DATE = XSD + "date"
XSD_DATETIME = XSD + "dateTime"
XSD_BOOLEAN = XSD + "boolean"
NUMERIC_TYPES = frozenset(
    XSD + name
    for name in (
        "integer",
        "decimal",
        "double",
        "float",
        "int",
        "long",
        "short",
        "byte",
        "nonNegativeInteger",
        "positiveInteger",
        "nonPositiveInteger",
        "negativeInteger",
        "unsignedLong",
        "unsignedInt",
        "unsignedShort",
        "unsignedByte",
    )
)


def canonical_term(term: Term) -> Term:
    """The canonical form of one term (IRIs and blank nodes unchanged)."""
    if term.kind != "literal":
        return term
    if term.lang is not None:
        return Term("literal", term.value)
    datatype = term.datatype
    if datatype in NUMERIC_TYPES:
        number = _number(term.value)
        return term if number is None else Term("literal", number, XSD_DECIMAL)
    if datatype == XSD_DATETIME:
        return _datetime(term)
    if datatype == XSD_DATE:
        return Term("literal", term.value.strip()[:10], XSD_DATE) if _is_day(term.value.strip()[:10]) else term
    if datatype == XSD_BOOLEAN:
        value = term.value.strip()
        if value in ("1", "true", "0", "false"):
            return Term("literal", "true" if value in ("1", "true") else "false", XSD_BOOLEAN)
    return term


def _number(text: str) -> str | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    if not value.is_finite():
        return str(value)
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _datetime(term: Term) -> Term:
    text = term.value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        # Wikidata writes BCE and far-future years (``-0500-01-01T00:00:00Z``) that
        # Python's datetime cannot hold; keep the day part when the time is midnight.
        day = text.removesuffix("T00:00:00Z")
        if day != text and _is_day(day):
            return Term("literal", day, XSD_DATE)
        return term
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return Term("literal", moment.date().isoformat(), XSD_DATE)
    return Term("literal", moment.replace(tzinfo=None).isoformat(), XSD_DATETIME)


def _is_day(text: str) -> bool:
    parts = text.lstrip("-").split("-")
    return len(parts) == 3 and all(part.isdigit() for part in parts)
