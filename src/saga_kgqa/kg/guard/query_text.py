"""Lexical reads of SPARQL text: normalised for keying cached answers, and its PREFIX declarations.

Two queries that differ only in layout (whitespace, line breaks, comments) ask the same
thing and should share one cache entry; two queries that differ anywhere inside a string
literal or an IRI ask different things and must not. So the text is scanned token by
token: string literals (all four quote styles, with escapes) and IRIs are copied
verbatim, comments are dropped, and each run of whitespace becomes one space.
"""

from __future__ import annotations

import re

# Order matters: long-quoted strings before short ones, strings and IRIs before comments,
# so that a '#' inside a string or an IRI is never taken for the start of a comment.
_TOKEN = re.compile(
    r'''(?P<verbatim>
          """(?:[^"\\]|\\.|"(?!""))*"""
        | \'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'
        | "(?:[^"\\\n\r]|\\.)*"
        | '(?:[^'\\\n\r]|\\.)*'
        | <[^<>"{}|^`\\\x00-\x20]*>
        | \\.
      )
    | (?P<unclosed>["'])
    | (?P<comment>\#[^\n\r]*)
    | (?P<space>\s+)
    | (?P<other>[^"'<#\s\\]+|[<\\])
    ''',
    re.VERBOSE | re.DOTALL,
)


def normalise_query_text(text: str) -> str:
    """Return ``text`` with comments removed and whitespace collapsed outside strings and IRIs.

    A ``<`` that does not open a well-formed IRI (``?a < ?b``) is an operator and is
    left in place. Text after an unterminated string is kept verbatim, because where
    that string ends is unknown; such a query is malformed anyway.

    Args:
        text: SPARQL query text.

    Returns:
        The normalised text, with no leading or trailing whitespace.
    """
    parts: list[str] = []
    # Every character matches one alternative, so the matches tile the whole text.
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "unclosed":
            parts.append(text[match.start() :])
            break
        if kind == "space":
            # A dropped comment between two runs of whitespace must not leave two spaces.
            if parts and parts[-1] != " ":
                parts.append(" ")
        elif kind != "comment":
            parts.append(match.group())
    if parts and parts[-1] == " ":
        parts.pop()
    return "".join(parts)


_PREFIX_DECLARATION = re.compile(r"PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^<>\s]*)>", re.IGNORECASE)


def declared_prefixes(text: str) -> list[tuple[str, str]]:
    """The PREFIX declarations of a query, for shortening IRIs the way the model wrote them."""
    return [(match.group(1) or "", match.group(2)) for match in _PREFIX_DECLARATION.finditer(text)]
