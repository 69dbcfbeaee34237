"""pyoxigraph's evaluation failures, typed: the query's fault, or the store's.

pyoxigraph raises a bare ``RuntimeError`` when it cannot evaluate a query it parsed, and
the commonest case is the query's own: a function it does not implement, such as
Virtuoso's case-blind ``xsd:datetime`` in CWQ's gold (the ``xsd:int`` cast of CK25's
reference queries the store now has: :mod:`saga_kgqa.kg.embedded.xsd_casts`). Reported as a
store failure ("the graph cannot be used now") that sent the model away from a query one word
from working; it is a
:class:`~saga_kgqa.errors.QueryEvaluationError` saying what to write instead.
"""

from __future__ import annotations

import re

from saga_kgqa.errors import BackendError, QueryEvaluationError
from saga_kgqa.kg.embedded.xsd_casts import RANGES

#: XSD's integer types derived from xsd:integer, which the store has as custom functions (faults AE2).
DERIVED_INTEGER_CASTS = tuple(RANGES)

_UNSUPPORTED_FUNCTION = re.compile(r"The custom function <([^<>\s]{1,500})> is not supported")
_XSD = "http://www.w3.org/2001/XMLSchema#"
#: The XSD casts pyoxigraph 0.5 evaluates (SPARQL 1.1's seven and the date, time and duration types).
SUPPORTED_CASTS = (
    "string",
    "boolean",
    "double",
    "float",
    "decimal",
    "integer",
    "dateTime",
    "date",
    "time",
    "duration",
    "dayTimeDuration",
    "yearMonthDuration",
    "gYear",
    "gYearMonth",
    "gMonth",
    "gDay",
    "gMonthDay",
)


def evaluation_error(message: str) -> BackendError:
    """The typed error for a failure pyoxigraph reported while evaluating a query.

    Args:
        message: pyoxigraph's message (``RuntimeError: …``).

    Returns:
        A :class:`QueryEvaluationError` with what to write instead when the query named a
        function the store does not implement, else a plain :class:`BackendError`.
    """
    match = _UNSUPPORTED_FUNCTION.search(message)
    if match is None:
        return BackendError(f"the embedded store could not evaluate the query: {message}")
    function = match.group(1)
    return QueryEvaluationError(
        f"the embedded store has no function <{function}>{_instead(function)}: change the query; "
        "do not resend the same text",
        server_text=message,
    )


def _instead(function: str) -> str:
    if not function.startswith(_XSD):
        return " (use SPARQL 1.1 built-ins and XSD casts)"
    local = function[len(_XSD) :]
    for cast in (*SUPPORTED_CASTS, *DERIVED_INTEGER_CASTS):
        if cast.lower() == local.lower():
            return f" (XSD casts are case-sensitive: write xsd:{cast})"
    return f" (its XSD casts are xsd:{', xsd:'.join(SUPPORTED_CASTS)} and XSD's derived integer types)"
