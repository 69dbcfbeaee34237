"""Escaping of RDF terms for queries that saga-kgqa builds itself from templates."""

from __future__ import annotations

import re

from saga_kgqa.errors import QueryRejected

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
