"""XSD's derived integer casts (``xsd:int(?x)``, ``xsd:long``, ``xsd:nonNegativeInteger`` ...) for the embedded store.

pyoxigraph 0.5 evaluates SPARQL 1.1's required casts (``xsd:integer``, ``xsd:decimal`` ...) but
none of the integer types XSD derives from ``xsd:integer``. Engines that follow XPath's casting
rules (Virtuoso, Jena, GraphDB) have them, and queries written for them use them: CK25's own
reference queries 37 and 42 sum ``xsd:int(?quantity)``. Without them such a query, correct on the
graph's own endpoint, failed on the embedded store. They are given to pyoxigraph as custom
functions, with XPath's semantics (XQuery and XPath Functions and Operators 3.1, §19): a string's
lexical form must be an integer's; a decimal, float or double is truncated towards zero (NaN and
the infinities cannot be cast); a boolean is 1 or 0; the value must lie in the type's range. What
cannot be cast is an error, which SPARQL turns into an unbound value, as for the built-in casts.
The result comes back as an ``xsd:integer``, as oxigraph returns every derived integer (a stored
``"127"^^xsd:byte`` included).
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Callable
from typing import Any

XSD = "http://www.w3.org/2001/XMLSchema#"
#: Each derived integer type's (lowest, highest) value; ``None``: unbounded that way.
RANGES: dict[str, tuple[int | None, int | None]] = {
    "long": (-(2**63), 2**63 - 1),
    "int": (-(2**31), 2**31 - 1),
    "short": (-(2**15), 2**15 - 1),
    "byte": (-(2**7), 2**7 - 1),
    "nonNegativeInteger": (0, None),
    "positiveInteger": (1, None),
    "nonPositiveInteger": (None, 0),
    "negativeInteger": (None, -1),
    "unsignedLong": (0, 2**64 - 1),
    "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 2**8 - 1),
}
_INTEGER_TYPES = frozenset({XSD + "integer", *(XSD + name for name in RANGES)})
_STRING_TYPES = frozenset({XSD + "string", XSD + "normalizedString", XSD + "token"})
_INTEGER_LEXICAL = re.compile(r"[+-]?[0-9]+")
# Any of the names followed by an opening parenthesis, as a prefixed name or inside a full IRI: the queries
# worth giving the functions to (the others pay nothing).
_CALLED = re.compile(r"(?::|#)(?:" + "|".join(sorted(RANGES, key=len, reverse=True)) + r")>?\s*\(")


def casts_for(text: str) -> dict[Any, Callable[..., Any]] | None:
    """The custom functions to pass to pyoxigraph's ``query`` for ``text``; ``None`` when it calls none of them."""
    if _CALLED.search(text) is None:
        return None
    import pyoxigraph as ox

    return {ox.NamedNode(XSD + name): _cast_to(name, ox) for name in RANGES}


def cast_value(lexical: str, datatype: str, target: str) -> int | None:
    """The integer a literal casts to as ``xsd:<target>``, or ``None`` when XPath's rules refuse it.

    Args:
        lexical: The literal's lexical form.
        datatype: Its datatype IRI (a simple literal's is ``xsd:string``).
        target: A key of :data:`RANGES`.
    """
    value = _integer(lexical, datatype)
    if value is None:
        return None
    low, high = RANGES[target]
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    return value


def _integer(lexical: str, datatype: str) -> int | None:
    text = lexical.strip()
    if datatype in _STRING_TYPES or datatype in _INTEGER_TYPES:
        return int(text) if _INTEGER_LEXICAL.fullmatch(text) else None
    if datatype == XSD + "boolean":
        return {"true": 1, "1": 1, "false": 0, "0": 0}.get(text)
    if datatype == XSD + "decimal":
        try:
            return int(decimal.Decimal(text))  # int() truncates towards zero
        except (decimal.InvalidOperation, ValueError):
            return None
    if datatype in (XSD + "double", XSD + "float"):
        try:
            number = float(text)
        except ValueError:
            return None
        return int(number) if math.isfinite(number) else None
    return None


def _cast_to(target: str, ox: Any) -> Callable[..., Any]:
    datatype = ox.NamedNode(XSD + target)

    def cast(term: Any = None, *extra: Any) -> Any:
        if extra or not isinstance(term, ox.Literal) or term.language:
            return None
        value = cast_value(term.value, term.datatype.value, target)
        return None if value is None else ox.Literal(str(value), datatype=datatype)

    return cast
