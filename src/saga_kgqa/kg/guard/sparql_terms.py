"""Escaping of RDF terms for queries that saga-kgqa builds itself from templates."""

from __future__ import annotations

import re

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.result import Term

# IRIREF in the SPARQL grammar excludes these characters; refusing them (rather than
# escaping) keeps a hostile IRI from closing the angle brackets and injecting syntax.
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')


def iri(value: str) -> str:
    """Return ``<value>`` after checking that it is a safe absolute IRI.

    Raises:
        QueryRejected: The IRI contains characters that could break out of ``<...>``.
    """
    if not value or _IRI_FORBIDDEN.search(value) or ":" not in value:
        raise QueryRejected(f"not a usable IRI: {value[:200]!r}", reason="bad_iri")
    return f"<{value}>"


def string_literal(value: str, lang: str | None = None) -> str:
    """Return a quoted SPARQL string literal with every special character escaped."""
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )
    if lang is not None:
        if not re.fullmatch(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*", lang):
            raise QueryRejected(f"not a language tag: {lang[:40]!r}", reason="bad_literal")
        return f'"{escaped}"@{lang}'
    return f'"{escaped}"'


_PN_LOCAL_ESC = re.compile(r"\\([_~.\-!$&'()*+,;=/?#@%])")


def unescape_local_name(value: str) -> str:
    r"""Remove ``PN_LOCAL_ESC`` backslashes that rdflib leaves in IRIs (``singer\#name`` → ``singer#name``)."""
    return _PN_LOCAL_ESC.sub(r"\1", value) if "\\" in value else value


def result_term(term: Term) -> str:
    """A result term (IRI or literal) written back as SPARQL syntax by the checked writers above.

    Graph text is data: an IRI goes through :func:`iri`, a literal through :func:`string_literal`,
    with its datatype or language kept so the term matches the same value when sent again.
    """
    if term.kind == "uri":
        return iri(term.value)
    if term.datatype and not term.lang:
        return f"{string_literal(term.value)}^^{iri(term.datatype)}"
    return string_literal(term.value, term.lang)
