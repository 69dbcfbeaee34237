"""Inline Blazegraph named subqueries (``WITH { ... } AS %name`` / ``INCLUDE %name``).

WDQS runs on Blazegraph, and forum-style Wikidata queries (12 of SPINACH's 155 dev gold
queries) use its named-subquery extension, which no standard parser accepts. A named
subquery is evaluated on its own and joined where it is included, which is exactly what
a standard subquery ``{ SELECT ... }`` means, so the guard replaces every ``INCLUDE`` by
the subquery's text and checks (and sends) the resulting standard SPARQL.
"""

from __future__ import annotations

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard.sparql_lexer import Token, cut_spans, tokenize

_MALFORMED = "malformed named subquery: write WITH { SELECT ... } AS %name before WHERE, or inline the subquery"


def has_named_subqueries(tokens: list[Token]) -> bool:
    """True when the query declares a top-level ``WITH { ... } AS %name`` block."""
    return any(token.is_word("WITH") and token.brace_depth == 0 for token in tokens)


def inline_named_subqueries(text: str, tokens: list[Token], *, max_chars: int) -> str:
    """Return ``text`` with every named subquery declaration removed and every include inlined.

    Args:
        text: Query text the tokens came from.
        tokens: Its tokens.
        max_chars: Largest result allowed (inlining copies text, so it can grow).

    Returns:
        Standard SPARQL text.

    Raises:
        QueryRejected: A declaration is malformed, an include names an unknown subquery,
            or the inlined text is too long.
    """
    bodies: dict[str, str] = {}
    cuts: list[tuple[int, int]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.is_word("WITH") and token.brace_depth == 0:
            name, body, index = _declaration(text, tokens, index)
            bodies[name] = body
            cuts.append((token.start, tokens[index - 1].end))
        else:
            index += 1
    remaining = cut_spans(text, cuts)
    # A subquery may include one declared before it, so expand until nothing is left;
    # each pass removes one level, and there are at most len(bodies) levels.
    for _ in range(len(bodies) + 1):
        current = tokenize(remaining)
        includes = _includes(current)
        if not includes:
            return remaining
        parts: list[str] = []
        position = 0
        for start, end, name in includes:
            if name not in bodies:
                raise QueryRejected(f"INCLUDE %{name} names no WITH {{ ... }} AS %{name} block", reason="unsupported")
            parts.extend((remaining[position:start], bodies[name]))
            position = end
        parts.append(remaining[position:])
        remaining = "".join(parts)
        if len(remaining) > max_chars:
            raise QueryRejected(
                f"query too long once its named subqueries are inlined (limit {max_chars} characters)",
                reason="too_large",
            )
    raise QueryRejected("named subqueries include each other in a cycle", reason="unsupported")


def _declaration(text: str, tokens: list[Token], index: int) -> tuple[str, str, int]:
    """Parse ``WITH { ... } AS %name`` starting at ``tokens[index]``; return name, body, next index."""
    if index + 1 >= len(tokens) or tokens[index + 1].text != "{":
        raise QueryRejected(_MALFORMED, reason="unsupported")
    opening = tokens[index + 1]
    close = next(
        (
            position
            for position in range(index + 2, len(tokens))
            if tokens[position].text == "}" and tokens[position].brace_depth == opening.brace_depth
        ),
        None,
    )
    if close is None or close + 3 >= len(tokens):
        raise QueryRejected(_MALFORMED, reason="unsupported")
    as_word, percent, name = tokens[close + 1], tokens[close + 2], tokens[close + 3]
    if not (as_word.is_word("AS") and percent.text == "%" and name.kind == "word" and name.start == percent.end):
        raise QueryRejected(_MALFORMED, reason="unsupported")
    return name.text, text[opening.start : tokens[close].end], close + 4


def _includes(tokens: list[Token]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for first, second, third in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if first.is_word("INCLUDE") and second.text == "%" and third.kind == "word" and third.start == second.end:
            found.append((first.start, third.end, third.text))
    return found
