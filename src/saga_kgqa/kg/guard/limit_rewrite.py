"""Token-level text rewrites made by the guard: the top-level LIMIT and path modifiers.

The rewrites work on tokens from :mod:`saga_kgqa.kg.guard.sparql_lexer`, never on regular
expressions over raw text, so a ``LIMIT`` inside a string, an IRI, a comment or a
subquery is never touched. They are planned *before* the query is parsed; the guard then
parses the rewritten text once and checks in the parse tree that the top-level LIMIT is
the planned one, so what is sent is always what was verified.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from saga_kgqa.kg.guard.sparql_lexer import Token, cut_spans


@dataclass(frozen=True, slots=True)
class LimitRewrite:
    """The outcome of planning a top-level LIMIT.

    Attributes:
        text: The query text with the LIMIT injected or clamped (unchanged if neither).
        limit: The top-level LIMIT the text now carries.
        original: The LIMIT the query had, or ``None`` when it had none.
    """

    text: str
    limit: int
    original: int | None


def first_keyword(tokens: list[Token]) -> Token | None:
    """Return the first bare word after the prologue (``BASE`` / ``PREFIX`` declarations).

    For a query this is its form keyword (``SELECT``, ``ASK``, ...); for an update it is
    the update's verb.
    """
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.is_word("BASE"):
            index += 2
        elif token.is_word("PREFIX"):
            index += 3
        elif token.kind == "word":
            return token
        else:
            return None
    return None


def _top_level(token: Token) -> bool:
    return token.brace_depth == 0 and token.paren_depth == 0


def plan_limit(text: str, tokens: list[Token], *, default_limit: int, max_limit: int) -> LimitRewrite:
    """Inject a top-level LIMIT when there is none, or clamp one that is too large.

    A subquery's LIMIT sits inside braces and is left alone. ``OFFSET`` is kept. A
    trailing ``VALUES`` block must stay last, so an injected LIMIT goes before it.

    Args:
        text: Query text the tokens came from.
        tokens: Its tokens.
        default_limit: LIMIT to inject when the query has none.
        max_limit: Largest LIMIT allowed.

    Returns:
        The planned rewrite.
    """
    for index, token in enumerate(tokens):
        if not (_top_level(token) and token.is_word("LIMIT")):
            continue
        if index + 1 < len(tokens) and tokens[index + 1].kind == "number" and tokens[index + 1].text.isdigit():
            value_token = tokens[index + 1]
            original = int(value_token.text)
            if original <= max_limit:
                return LimitRewrite(text, original, original)
            clamped = text[: value_token.start] + str(max_limit) + text[value_token.end :]
            return LimitRewrite(clamped, max_limit, original)
        # A LIMIT without an integer is a syntax error; leave it to the parser to report.
        return LimitRewrite(text, default_limit, None)
    limit = min(default_limit, max_limit)
    values = next((t for t in tokens if _top_level(t) and t.is_word("VALUES")), None)
    if values is not None:
        injected = f"{text[: values.start]}LIMIT {limit}\n{text[values.start :]}"
    else:
        end = tokens[-1].end if tokens else len(text)
        injected = f"{text[:end]}\nLIMIT {limit}{text[end:]}"
    return LimitRewrite(injected, limit, None)


def join_path_modifiers(text: str, tokens: list[Token]) -> str:
    """Remove whitespace between a property path element and its ``*``, ``+`` or ``?``.

    ``wdt:P31/wdt:P279 * wd:Q5`` is valid SPARQL and WDQS runs it, but rdflib's grammar
    requires the modifier to touch its path element. The guard calls this only after a
    parse failure and sends the joined text only if that text parses.

    Args:
        text: Query text the tokens came from.
        tokens: Its tokens.

    Returns:
        The text with such gaps closed (the same text when there are none).
    """
    cuts: list[tuple[int, int]] = []
    for previous, token in itertools.pairwise(tokens):
        if token.kind != "punct" or token.text not in ("*", "+", "?") or token.start == previous.end:
            continue
        if token.brace_depth == 0:
            continue  # SELECT * and friends
        path_end = previous.kind in ("pname", "iri") or previous.text == ")" or previous.is_word("A")
        if not path_end:
            continue
        cuts.append((previous.end, token.start))
    if not cuts:
        return text
    return cut_spans(text, cuts)
