"""Text from the graph is data, never instructions: cap it, strip it, escape it.

Every piece of graph text (labels, descriptions, literal values, IRIs, server messages)
that reaches a model passes through :func:`graph_text` first (docs/faults.md §5, rows
D1-D2). It removes characters that hide or reorder text (zero-width, bidi overrides,
controls), neutralises anything shaped like a role or tool tag, written with ASCII or
look-alike angle brackets (its brackets become single guillemets), collapses whitespace
so a value cannot fake new lines of the observation, and cuts to a character cap.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import TYPE_CHECKING

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


def _strip_invisible(text: str) -> str:
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


def quoted(text: str, cap: int = DEFAULT_TEXT_CAP) -> str:
    """Return :func:`graph_text` of ``text`` inside double quotes, inner quotes escaped."""
    return '"' + graph_text(text, cap).replace("\\", "\\\\").replace('"', '\\"') + '"'


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
