"""Canonical forms of questions and queries, for deduplication and the leakage guard.

Two queries are "the same" when they differ only in layout, comments, prefix names,
keyword case or variable names: prefixed names are expanded, ``PREFIX``/``BASE``
declarations dropped, and variables renamed by first occurrence (``?v1``, ``?v2`` ...).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from saga_kgqa.kg.guard.sparql_lexer import tokenize

_PUNCTUATION = re.compile(r"[^\w\s]", re.UNICODE)


@functools.lru_cache(maxsize=65_536)
def normalise_question(text: str) -> str:
    """NFKC, case-folded, punctuation dropped, whitespace collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


@functools.lru_cache(maxsize=65_536)  # benches and guards normalise the same texts many times
def normalise_query(text: str) -> str:
    """The query as a canonical token string (see the module docstring); "" when it has no tokens."""
    try:
        tokens = tokenize(text)
    except Exception:
        return " ".join(text.split())
    prefixes: dict[str, str] = {}
    variables: dict[str, str] = {}
    out: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.kind == "comment":
            index += 1
            continue
        if token.is_word("PREFIX") and index + 2 < len(tokens):
            prefixes[tokens[index + 1].text] = tokens[index + 2].text
            index += 3
            continue
        if token.is_word("BASE") and index + 1 < len(tokens):
            index += 2
            continue
        if token.kind == "pname":
            head, _, local = token.text.partition(":")
            namespace = prefixes.get(f"{head}:")
            out.append(f"<{namespace[1:-1]}{local}>" if namespace else token.text)
        elif token.kind == "var":
            out.append(variables.setdefault(token.text[1:], f"?v{len(variables) + 1}"))
        elif token.kind == "word":
            out.append(token.text.upper() if token.text.isascii() else token.text)
        else:
            out.append(token.text)
        index += 1
    return " ".join(out)
