"""The guard's rejection messages: short, specific, and telling the model what to change."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pyparsing import ParseBaseException

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.guard.sparql_lexer import Token, line_and_column

_UNKNOWN_PREFIX = re.compile(r"Unknown namespace prefix\s*:\s*(\S+)")
_SNIPPET_CHARS = 40


def rejected_at(text: str, offset: int, reason: str, what: str, advice: str) -> QueryRejected:
    """A refusal of what stands at ``offset`` of ``text``: ``{what} at line L, column C{advice}``, located."""
    line, column = line_and_column(text, offset)
    message = f"{what} at line {line}, column {column}{advice}"
    return QueryRejected(message, reason=reason, line=line, column=column)


def form_not_allowed(form: str, allowed: Iterable[str]) -> QueryRejected:
    """A query form the policy does not accept (DESCRIBE by default)."""
    order = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
    names = ", ".join(name for name in order if name in set(allowed))
    advice = "; use SELECT with the properties you need" if form == "DESCRIBE" else ""
    return QueryRejected(f"{form} queries are not allowed here: send a {names} query{advice}", reason="form")


def service_not_allowed(target: str, profile: EndpointProfile) -> QueryRejected:
    """A SERVICE clause with a variable or an IRI outside the profile's allowlist."""
    if target.startswith(("?", "$")):
        return QueryRejected(
            f"SERVICE {target} is not allowed: a SERVICE must name a fixed, allowed IRI; remove the clause",
            reason="service",
        )
    if profile.service_allowlist:
        allowed = ", ".join(f"<{iri}>" for iri in sorted(profile.service_allowlist))
        return QueryRejected(
            f"SERVICE <{target}> is not allowed on this endpoint (allowed: {allowed}); remove the clause",
            reason="service",
        )
    return QueryRejected(
        f"SERVICE <{target}> is not allowed: this endpoint allows no SERVICE clauses; remove it",
        reason="service",
    )


def too_complex() -> QueryRejected:
    """The parser ran out of recursion depth."""
    return QueryRejected(
        "query too complex to check (groups nested too deeply or too many patterns in one group): "
        "use fewer nested { } and split long groups",
        reason="too_complex",
    )


def unknown_prefix_or_invalid(exc: Exception) -> QueryRejected:
    """Rdflib's algebra translation failed: an undeclared prefix or another semantic error."""
    match = _UNKNOWN_PREFIX.search(str(exc))
    if match is not None:
        prefix = match.group(1)
        return QueryRejected(
            f"unknown prefix '{prefix}:': declare it with PREFIX {prefix}: <namespace IRI>",
            reason="unknown_prefix",
        )
    detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
    return QueryRejected(f"invalid query: {detail}", reason="syntax")


def syntax_error(text: str, tokens: list[Token], exc: ParseBaseException) -> QueryRejected:
    """A parse failure, located by line and column, with a hint about unbalanced brackets."""
    line, column = exc.lineno, exc.col
    offset = min(exc.loc, len(text))
    rest_of_line = text[offset:].split("\n", 1)[0].strip()
    near = f"near '{rest_of_line[:_SNIPPET_CHARS]}'" if rest_of_line else "at the end of the query"
    hint = _bracket_hint(tokens)
    return QueryRejected(
        f"syntax error at line {line}, column {column}, {near}{hint}: fix the query and resend it",
        reason="syntax",
        line=line,
        column=column,
    )


def _bracket_hint(tokens: list[Token]) -> str:
    balance = {"{": 0, "(": 0}
    closing = {"}": "{", ")": "("}
    for token in tokens:
        if token.kind != "punct":
            continue
        if token.text in balance:
            balance[token.text] += 1
        elif token.text in closing:
            balance[closing[token.text]] -= 1
    for opener, count in balance.items():
        closer = "}" if opener == "{" else ")"
        if count > 0:
            return f" ({count} '{opener}' never closed: add '{closer}')"
        if count < 0:
            return f" ({-count} '{closer}' too many)"
    return ""
