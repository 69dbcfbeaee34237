"""The guard's cheap checks before any costly work: encoding, escapes, controls, updates, parse cost caps.

rdflib's pyparsing grammar costs about a millisecond per expression term (a
3,000-argument ``CONCAT`` took 11 s), and that time is the guard's own, outside any
store's deadline. Counting tokens is linear and cheap, so queries far beyond what real
benchmark queries need (under 200 tokens, about 120 inside parentheses) are refused
before the parser sees them.
"""

from __future__ import annotations

import re

from rdflib.plugins.sparql.parser import expandUnicodeEscapes, expandUnicodeEscapes_re

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard.messages import rejected_at
from saga_kgqa.kg.guard.sparql_lexer import Token

# Update verbs. None of them is a keyword or function name of the query language, so a
# bare word among them can never belong to a valid query.
UPDATE_KEYWORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY"})
# C0 controls other than tab, LF and CR; DEL; C1 controls.
_CONTROL_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def reject_surrogates(text: str) -> None:
    """Refuse text with a lone surrogate (a broken escape a model wrote): no store can encode it as UTF-8."""
    surrogate = _SURROGATE.search(text)
    if surrogate is not None:
        raise QueryRejected(
            f"query is not valid Unicode (lone surrogate U+{ord(surrogate.group()):04X} at offset "
            f"{surrogate.start()}): write the character itself",
            reason="encoding",
        )


def reject_costly(tokens: list[Token], *, max_tokens: int, max_expression_tokens: int) -> None:
    """Refuse queries whose parse would be slow, before parsing.

    Args:
        tokens: The query's tokens.
        max_tokens: Most tokens in all.
        max_expression_tokens: Most tokens inside parentheses (expressions, the costliest to parse).
    """
    if len(tokens) > max_tokens:
        raise QueryRejected(
            f"query too complex to check ({len(tokens)} tokens; the limit is {max_tokens}): "
            "shorten it, or split it into several queries",
            reason="too_complex",
        )
    inside = sum(1 for token in tokens if token.paren_depth > 0)
    if inside > max_expression_tokens:
        raise QueryRejected(
            f"query too complex to check ({inside} tokens inside parentheses; the limit is "
            f"{max_expression_tokens}): use shorter expressions, or VALUES instead of a long IN list",
            reason="too_complex",
        )


def expand_escapes(text: str) -> str:
    r"""Expand ``\\u`` escapes once, as the grammar does; refuse escapes that would expand again."""
    try:
        expanded = expandUnicodeEscapes(text)
    except ValueError:
        raise QueryRejected(
            "invalid \\u escape (not a Unicode code point): write the character directly", reason="syntax"
        ) from None
    if expanded != text and expandUnicodeEscapes_re.search(expanded):
        # A second expansion (by a store) would change the text after it was checked.
        raise QueryRejected(
            "\\u escapes that produce another \\u escape are not allowed: write the characters directly",
            reason="escape",
        )
    return expanded


def reject_control_chars(text: str) -> None:
    """Refuse C0/C1 control characters other than tab, LF and CR, with their position."""
    match = _CONTROL_CHARS.search(text)
    if match is not None:
        what = f"control character U+{ord(match.group()):04X}"
        raise rejected_at(text, match.start(), "control_char", what, ": remove it")


def reject_updates(tokens: list[Token], text: str) -> None:
    """Refuse update verbs anywhere and a second operation after a top-level ``;``."""
    for token in tokens:
        if token.kind == "word" and token.text.upper() in UPDATE_KEYWORDS:
            what = f"read-only: updates are not allowed ({token.text.upper()}"
            raise rejected_at(text, token.start, "update", what, "); send a SELECT or ASK query")
    for token in tokens:
        if token.text == ";" and token.kind == "punct" and token.brace_depth == 0 and token.paren_depth == 0:
            what = "one query at a time: remove the ';'"
            raise rejected_at(text, token.start, "multiple_operations", what, " and everything after it")
