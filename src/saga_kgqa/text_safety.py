"""Text from the graph is data, never instructions: cap it, strip it, escape it.

Every piece of graph text (labels, descriptions, literal values, IRIs, server messages)
that reaches a model passes through :func:`graph_text` first (docs/faults.md §5, rows
D1-D2). It removes characters that hide or reorder text (zero-width, bidi overrides,
controls), neutralises anything shaped like a role or tool tag, written with ASCII or
look-alike angle brackets (its brackets become single guillemets), collapses whitespace
so a value cannot fake new lines of the observation, and cuts to a character cap.

The same cleaning serves every other channel outside text reaches (docs/faults.md L12-L14):
:func:`outside_value` for one value that keeps its line breaks and its IRIs in angle
brackets (structured content of a tool result, the web page's answer table, the answer
rows of the LangGraph state), and :func:`clean_structure` for a whole JSON-like value.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from saga_kgqa.kg.guard.algebra_text import AlgebraWriter

#: Default cap for one piece of graph text shown to a model.
DEFAULT_TEXT_CAP = 200
ELLIPSIS = "…"

# Bidi embeddings/overrides/isolates, zero-width and other invisible format characters.
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]")
# Anything that looks like a markup tag: <system>, </tool>, <|im_start|>, <<SYS>>, [INST] and friends.
# Attributes may be long (<system a="…">); the bound keeps the scan linear in practice
# (the text is cut to a few thousand characters before this runs).
_TAG_LIKE = re.compile(r"<+\s*/?\s*\|?\s*[A-Za-z_][\w:.|-]*\s*\|?[^<>]{0,1000}>+|\[/?\s*(?:INST|SYS|SYSTEM)\s*\]", re.I)
# Characters drawn like angle brackets: full-width, small, CJK and mathematical ones. They
# are read as brackets before tag detection, so a full-width (U+FF1C) system tag is caught like <system>.
_BRACKET_LOOKALIKES = str.maketrans(
    {
        "\uff1c": "<",
        "\uff1e": ">",
        "\ufe64": "<",
        "\ufe65": ">",
        "\u3008": "<",
        "\u3009": ">",
        "\u2329": "<",
        "\u232a": ">",
        "\u27e8": "<",
        "\u27e9": ">",
        "\u276e": "<",
        "\u276f": ">",
    }
)
_WHITESPACE = re.compile(r"\s+")
# An IRI written in angle brackets (<http://x/y>): data, not a tag; kept as written in structured values.
_BRACKETED_IRI = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*>")
#: ASCII's control characters (category Cc) but line breaks and tabs, which structured values keep.
_ASCII_CONTROLS = {code: None for code in (*range(32), 127) if chr(code) not in "\n\t"}
#: Default cap for one string of structured content (a query, a table cell, a message).
STRUCTURED_CAP = 4000


def _strip_invisible(text: str) -> str:
    # Printable ASCII (most graph text) holds no invisible, control or format character: nothing to drop.
    if text.isascii() and text.isprintable():
        return text
    text = _INVISIBLE.sub("", text)
    # Drop remaining control (Cc) and format (Cf) characters; keep ordinary spaces.
    return "".join(ch for ch in text if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))


def _defang_tag(match: re.Match[str]) -> str:
    inner = match.group(0).strip("<>[]").strip()
    return f"\u2039{inner}\u203a"


def graph_text(text: str, cap: int = DEFAULT_TEXT_CAP) -> str:
    """Return ``text`` made safe to show a model as quoted data.

    Args:
        text: Raw text from the graph or an endpoint.
        cap: Maximum characters kept; longer text is cut and ends with ``…``.

    Returns:
        One line of text with invisible characters removed, tag-like sequences
        rewritten with single guillemets instead of angle brackets, whitespace collapsed and the
        length capped.
    """
    # Cut early so a 100 KB description costs no more than the cap to clean.
    text = text[: cap * 4 + 64]
    text = unicodedata.normalize("NFC", text)
    text = _WHITESPACE.sub(" ", text)
    text = _strip_invisible(text).translate(_BRACKET_LOOKALIKES)
    text = _TAG_LIKE.sub(_defang_tag, text).strip()
    if len(text) > cap:
        text = text[: max(cap - 1, 0)].rstrip() + ELLIPSIS
    return text


def _defang_unless_iri(match: re.Match[str]) -> str:
    return match.group(0) if _BRACKETED_IRI.fullmatch(match.group(0)) else _defang_tag(match)


def outside_value(text: str, cap: int | None = STRUCTURED_CAP) -> str:
    """Return one value from outside made safe for a structured channel, keeping its shape.

    Like :func:`graph_text` (invisible, bidi, control and lone surrogate characters removed,
    tag-like sequences defanged, length capped) but line breaks and tabs stay and an IRI in
    angle brackets stays as written, so queries and multi-line values read as they were.

    Args:
        text: Raw text (a literal, a label, an endpoint's message, a whole tool text).
        cap: Maximum characters kept (``None``: no cap).
    """
    if cap is not None:
        text = text[: cap * 4 + 64]
    if text.isascii():
        # Nothing to normalise, no surrogate, invisible or format character: only control characters go.
        text = text if text.isprintable() else text.translate(_ASCII_CONTROLS)
    else:
        text = unicodedata.normalize("NFC", _drop_surrogates(text))
        text = _INVISIBLE.sub("", text)
        text = "".join(ch for ch in text if ch in " \n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))
    text = _TAG_LIKE.sub(_defang_unless_iri, text.translate(_BRACKET_LOOKALIKES))
    if cap is not None and len(text) > cap:
        text = text[: max(cap - 1, 0)].rstrip() + ELLIPSIS
    return text


def clean_structure(value: Any, cap: int | None = STRUCTURED_CAP) -> Any:
    """Return a JSON-like value with every string (keys too) passed through :func:`outside_value`."""
    if isinstance(value, str):
        return outside_value(value, cap)
    if isinstance(value, Mapping):
        return {clean_structure(k, cap) if isinstance(k, str) else k: clean_structure(v, cap) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_structure(item, cap) for item in value]
    return value


def _drop_surrogates(text: str) -> str:
    """Remove lone surrogates (U+D800-U+DFFF), which no UTF-8 encoder accepts."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "ignore") if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def quoted(text: str, cap: int = DEFAULT_TEXT_CAP) -> str:
    """Return :func:`graph_text` of ``text`` inside double quotes, inner quotes escaped."""
    return '"' + graph_text(text, cap).replace("\\", "\\\\").replace('"', '\\"') + '"'


# Whitespace that would break a line or a quoted literal, written as SPARQL string escapes.
_SPARQL_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\x0b": "\\u000B",
    "\x0c": "\\u000C",
    "\x85": "\\u0085",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_ESCAPED = str.maketrans(_SPARQL_ESCAPES)


def stored_literal(text: str, cap: int = DEFAULT_TEXT_CAP) -> str:
    r"""Return a literal's lexical form as stored, quoted in SPARQL syntax, made safe like :func:`graph_text`.

    Unlike :func:`quoted`, whitespace is kept as stored: leading and trailing spaces stay inside
    the quotes, and line breaks and tabs are written as escapes (``\n``, ``\t``), so ``" XX"``
    is shown as ``" XX"`` (not ``"XX"``) and a value copied from a table is the stored term.
    Invisible and other control characters are removed and tag-like text defanged; a value over
    ``cap`` characters is cut and ends with ``…``.
    """
    text = text[: cap * 4 + 64].translate(_BRACKET_LOOKALIKES)
    text = _TAG_LIKE.sub(_defang_tag, _INVISIBLE.sub("", text))
    text = "".join(
        ch for ch in text if ch in _SPARQL_ESCAPES or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    )
    cut = len(text) > cap
    text = text[: max(cap - 1, 0)] if cut else text
    return '"' + text.translate(_ESCAPED) + (ELLIPSIS if cut else "") + '"'


def cap_block(text: str, max_chars: int) -> str:
    """Cap a whole multi-line observation at ``max_chars``, saying how much was cut."""
    if len(text) <= max_chars:
        return text
    kept = text[:max_chars].rsplit("\n", 1)[0]
    return f"{kept}\n[… {len(text) - len(kept)} more characters cut]"


def display_writer(prefixes: Mapping[str, str]) -> AlgebraWriter:
    """A writer for showing parts of a model's query: prefixed names, every term cleaned."""
    # Imported here: the writer needs rdflib, which text safety itself never does.
    from saga_kgqa.kg.guard.algebra_text import AlgebraWriter

    return AlgebraWriter(prefixes, clean=graph_text)
