r"""Local names with two or more dots, escaped before pyoxigraph parses the query.

pyoxigraph 0.5.13's SPARQL parser rejects a prefixed name whose local part has two or
more dots (``ns:type.object.name``: "expected ['0'..='9']"), although the grammar allows
them (PN_LOCAL) and every Freebase query is written with such names. The same name with
its dots escaped (``ns:type\.object\.name``, PN_LOCAL_ESC) denotes the same IRI and
parses, so the text the store receives has those dots escaped; nothing else changes,
and the query shown to the model stays as it was written.
"""

from __future__ import annotations

import re

from saga_kgqa.kg.guard.sparql_lexer import tokenize

# An unescaped dot: PN_LOCAL_ESC has no escaped backslash, so a preceding backslash always escapes it.
_BARE_DOT = re.compile(r"(?<!\\)\.")
_ESCAPED_DOT = r"\\."
# A colon followed by local-name characters holding two bare dots: the only texts worth tokenizing.
# Full IRIs (``<http://www.w3.org/...>``: a slash after the colon) never match, so a template
# query with ordinary IRIs skips the tokenizer (~140 µs per query, the tool layer's overhead:
# bench/store_latency.py's neighbourhood ratio). Strings and comments may match: then the
# tokenizer decides, as before.
_NAME_CHAR = r"(?:[\w%:\u00b7\u0300-\u036f\u203f\u2040-]|\\.)"
_MAYBE_DOTTED = re.compile(rf":{_NAME_CHAR}*\.(?:{_NAME_CHAR}|\.)*\.")


def escape_dotted_local_names(text: str) -> str:
    """Return ``text`` with the dots of every prefixed name with two or more dots escaped.

    Dots in strings, IRIs, comments, numbers and variables are left alone (the text is
    tokenized); text with no colon followed by two dots in a name is returned as it is
    without tokenizing.
    """
    if _MAYBE_DOTTED.search(text) is None:
        return text
    pieces: list[str] = []
    last = 0
    for token in tokenize(text):
        if token.kind != "pname":
            continue
        prefix, _colon, local = token.text.partition(":")
        if len(_BARE_DOT.findall(local)) < 2:
            continue
        pieces.append(text[last : token.start])
        pieces.append(prefix + ":" + _BARE_DOT.sub(_ESCAPED_DOT, local))
        last = token.end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)
