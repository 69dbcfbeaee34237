r"""A small SPARQL tokenizer for the guard's text work (comments, keywords, LIMIT placement).

It is not a parser and never decides whether a query is valid: rdflib does that. It
only has to agree with the SPARQL grammar on where tokens start and end, so that a
``#`` inside an IRI, a string (all four quote forms) or an escaped local name
(``:singer\\#name``) is not taken for a comment, and a keyword inside a string, an IRI, a
prefixed name or a variable is not taken for a keyword. Each token records the brace
and parenthesis depth it sits at, which is how the guard tells a top-level ``LIMIT`` from
one inside a subquery.

Tokenizing never fails: text it cannot classify becomes one-character ``punct`` tokens,
and an unterminated string runs to the end of its line (short form) or of the text (long
form). Such text will not parse, so the guard rejects it anyway.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

TokenKind = Literal["comment", "string", "iri", "pname", "var", "bnode", "langtag", "number", "word", "punct"]

# Characters allowed after a backslash in a prefixed name's local part (PN_LOCAL_ESC).
_LOCAL_ESC = r"\\[_~.\-!$&'()*+,;=/?#@%]"
_PERCENT = r"%[0-9A-Fa-f]{2}"
# Approximates PN_CHARS: letters, digits, underscore, hyphen and the few extra code points
# the grammar allows. Being slightly too wide is harmless: the parser has the last word.
_NAME_CHAR = r"[\w\-\u00B7\u0300-\u036F\u203F-\u2040]"
_LOCAL_CHAR = rf"(?:{_NAME_CHAR}|:|{_PERCENT}|{_LOCAL_ESC})"
# A local name may contain dots but not end with one (the dot then ends the triple).
_LOCAL = rf"(?:{_LOCAL_CHAR}(?:(?:{_LOCAL_CHAR}|\.)*{_LOCAL_CHAR})?)"
_PREFIX = rf"(?:[^\W\d_](?:(?:{_NAME_CHAR}|\.)*{_NAME_CHAR})?)"

_RUN_START = r"[^\W\d_]"
# How the main pattern splits a run (no colon, quote, bracket or space in it): words,
# numbers and single punctuation characters, in the main pattern's order.
_RUN_PART_RE = re.compile(
    r"(?P<number>\d+\.\d*[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<word>[^\W\d]\w*)"
    r"|(?P<punct>[\s\S])"
)

_TOKEN_RE = re.compile(
    "|".join(
        [
            r"(?P<ws>\s+)",
            r"(?P<comment>#[^\r\n]*)",
            r'(?P<string>"""(?:(?:"|"")?(?:[^"\\]|\\[\s\S]))*(?:"""|\Z)'
            r"|'''(?:(?:'|'')?(?:[^'\\]|\\[\s\S]))*(?:'''|\Z)"
            r'|"(?:[^"\\\r\n]|\\.)*(?:"|$)'
            r"|'(?:[^'\\\r\n]|\\.)*(?:'|$))",
            r'(?P<iri><[^<>"{}|^`\\\x00-\x20]*>)',
            # A run of letters, digits, dots and hyphens with no colon after it (a.a.a…):
            # taken whole, then split by _split_run. Without this, every position in the run
            # would rescan it to its end looking for a prefix's colon (quadratic time).
            rf"(?P<run>(?=[^\W\d_]{_NAME_CHAR}*[.\-\u00B7]){_RUN_START}(?:{_NAME_CHAR}|\.)*+)(?!:)",
            rf"(?P<pname>{_PREFIX}?:{_LOCAL}?)",
            rf"(?P<var>[?$]{_NAME_CHAR}+)",
            rf"(?P<bnode>_:(?:{_NAME_CHAR}(?:(?:{_NAME_CHAR}|\.)*{_NAME_CHAR})?)?)",
            # DOUBLE before DECIMAL before INTEGER; "1." is INTEGER then ".", as in the grammar.
            r"(?P<number>\d+\.\d*[eE][+-]?\d+|\.\d+(?:[eE][+-]?\d+)?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)",
            r"(?P<langtag>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)",
            r"(?P<word>[^\W\d]\w*)",
            r"(?P<punct>\^\^|\|\||&&|!=|<=|>=|[\s\S])",
        ]
    ),
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Token:
    """One lexical token.

    Attributes:
        kind: The token class.
        text: The token's text.
        start: Offset of the first character in the tokenized text.
        end: Offset just past the last character.
        brace_depth: Number of ``{`` open around this token; a brace itself sits at the
            depth outside the block it opens or closes.
        paren_depth: Number of ``(`` / ``[`` open around this token, counted the same way.
    """

    kind: TokenKind
    text: str
    start: int
    end: int
    brace_depth: int
    paren_depth: int

    def is_word(self, *keywords: str) -> bool:
        """Return True when this is a bare word equal (case-insensitively) to one of ``keywords``."""
        return self.kind == "word" and self.text.upper() in keywords


def tokenize(text: str) -> list[Token]:
    r"""Split SPARQL text into tokens, comments included, whitespace dropped.

    Args:
        text: Query text (after ``\\u`` escape expansion, as the parser sees it).

    Returns:
        The tokens in order. Depths never go below zero, even for unbalanced text.
    """
    tokens: list[Token] = []
    braces = 0
    parens = 0
    for match in _matches(text):
        kind = match.lastgroup
        if kind == "ws" or kind is None:
            continue
        value = match.group()
        if kind == "punct" and value in ("}", ")", "]"):
            if value == "}":
                braces = max(braces - 1, 0)
            else:
                parens = max(parens - 1, 0)
        tokens.append(Token(kind, value, match.start(), match.end(), braces, parens))  # type: ignore[arg-type]
        if kind == "punct":
            if value == "{":
                braces += 1
            elif value in ("(", "["):
                parens += 1
    return tokens


def _matches(text: str) -> Iterator[re.Match[str]]:
    """The main pattern's matches, with each ``run`` replaced by its parts (offsets kept)."""
    for match in _TOKEN_RE.finditer(text):
        if match.lastgroup == "run":
            yield from _RUN_PART_RE.finditer(text, match.start(), match.end())
        else:
            yield match


_RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def declared_prefixes(tokens: list[Token]) -> dict[str, str]:
    """The prefixes a query declares itself (``PREFIX name: <iri>``), name to namespace IRI."""
    found: dict[str, str] = {}
    for i, token in enumerate(tokens[:-2]):
        if token.is_word("PREFIX") and tokens[i + 1].kind == "pname" and tokens[i + 2].kind == "iri":
            found[tokens[i + 1].text.rstrip(":")] = tokens[i + 2].text[1:-1]
    return found


def expand_iri(token: Token, prefixes: Mapping[str, str]) -> str | None:
    """The full IRI a token names (``<iri>``, a prefixed name in ``prefixes``, or ``a``), else None."""
    if token.kind == "iri":
        return token.text[1:-1]
    if token.kind == "pname":
        prefix, _, local = token.text.partition(":")
        base = prefixes.get(prefix)
        return None if base is None else base + local
    if token.kind == "word" and token.text == "a":
        return _RDF_TYPE
    return None


def cut_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the ``(start, end)`` spans (in order, not overlapping)."""
    parts: list[str] = []
    position = 0
    for start, end in spans:
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    return "".join(parts)


def blank_comments(text: str, tokens: list[Token]) -> str:
    """Replace every comment with spaces, keeping offsets, lines and columns unchanged.

    Args:
        text: The text ``tokens`` came from.
        tokens: Its tokens.

    Returns:
        The text with comments blanked (the same object when it has none).
    """
    comments = [token for token in tokens if token.kind == "comment"]
    if not comments:
        return text
    parts: list[str] = []
    position = 0
    for comment in comments:
        parts.append(text[position : comment.start])
        parts.append(" " * (comment.end - comment.start))
        position = comment.end
    parts.append(text[position:])
    return "".join(parts)


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """Return the 1-based line and column of ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column
