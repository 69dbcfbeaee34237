"""Reading Virtuoso's SQLSTATE error lines: whose fault is the error?

Virtuoso answers most failures with HTTP 500 and a first line such as
``Virtuoso 22012 Error SR084: Division by 0.``; the HTTP status alone says "server
error", which would tell the model "not your fault, do not rewrite". The SQLSTATE says
better (checked against Virtuoso 7.2.5, docs/faults.md):

* class ``37`` and the SPARQL compiler's ``SP0xx`` codes: the query is malformed;
* class ``22`` (data exceptions: division by zero SR084, bad regexp SR098, bad
  datetime cast DT006) and ``42001`` (undefined procedure SR185): the query is
  well-formed but fails on evaluation, and the query must change;
* ``42000`` "The estimated execution time ... exceeds the limit": refused before it
  ran as too heavy; narrowing it helps, resending never does;
* ``S1T00`` ``SR171`` "Transaction timed out": the server's own time limit; a plain
  resend hits it again, so it is never retried blindly;
* ``SR186`` security refusals: this account may not do that; an operator must act;
* ``08xxx`` and ``40001``: connection trouble or a deadlock, transient.

Anything else is left to the HTTP-status rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

SqlFaultKind = Literal["syntax", "query_error", "too_heavy", "server_timeout", "refused", "unavailable"]

_ERROR_LINE = re.compile(r"\b(?:Virtuoso\s+)?([0-9A-Z]{5})\s+Error\s+(?:([A-Z]{2}\d{3})\s*:\s*)?([^\n]*)")
#: Virtuoso echoes the whole query after the error line; the model has it already.
_QUERY_ECHO = re.compile(r"\n\s*SPARQL query:.*", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SqlError:
    """One Virtuoso error line.

    Attributes:
        state: The five-character SQLSTATE (``22012``).
        code: Virtuoso's own code (``SR084``), empty when absent.
        message: The rest of the line, as the server wrote it.
        kind: What the error means for the caller.
    """

    state: str
    code: str
    message: str
    kind: SqlFaultKind


def parse_sql_error(text: str) -> SqlError | None:
    """Find and classify the SQLSTATE line of a Virtuoso error body.

    Args:
        text: The body text (any length; only the first error line counts).

    Returns:
        The classified error, or ``None`` when the text has no SQLSTATE line or its
        state says nothing the HTTP status does not.
    """
    match = _ERROR_LINE.search(text)
    if match is None:
        return None
    state, code, message = match.group(1), match.group(2) or "", match.group(3).strip()
    kind = _kind(state, code, message)
    return None if kind is None else SqlError(state, code, message, kind)


def without_query_echo(text: str) -> str:
    """The error text without the query Virtuoso appends to it."""
    return _QUERY_ECHO.sub("", text).strip()


def _kind(state: str, code: str, message: str) -> SqlFaultKind | None:
    if code == "SR186" or "SECURITY" in message[:40]:
        return "refused"
    if state == "S1T00" or code == "SR171":
        return "server_timeout"
    if state.startswith("37") or code.startswith("SP0"):
        return "syntax"
    if state == "42000" and "estimated execution time" in message.lower():
        return "too_heavy"
    if state.startswith("22") or state == "42001":
        return "query_error"
    if state.startswith("08") or state == "40001":
        return "unavailable"
    return None
