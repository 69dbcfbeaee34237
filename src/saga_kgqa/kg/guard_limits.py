"""The guard's cheap checks before any costly work: text that no store can encode, parse cost caps.

rdflib's pyparsing grammar costs about a millisecond per expression term (a
3,000-argument ``CONCAT`` took 11 s), and that time is the guard's own, outside any
store's deadline. Counting tokens is linear and cheap, so queries far beyond what real
benchmark queries need (under 200 tokens, about 120 inside parentheses) are refused
before the parser sees them.
"""

from __future__ import annotations

import re

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.sparql_lexer import Token

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
