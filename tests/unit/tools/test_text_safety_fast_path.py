"""ASCII text skips the per-character scans for invisible characters; every other text is scanned as before."""

from __future__ import annotations

import string
import unicodedata

import pytest

from saga_kgqa.text_safety import (
    _BRACKET_LOOKALIKES,
    _INVISIBLE,
    _TAG_LIKE,
    _defang_unless_iri,
    _drop_surrogates,
    _strip_invisible,
    outside_value,
)


def _scanned(text: str) -> str:
    """The scan itself, as it runs for text that is not printable ASCII."""
    text = _INVISIBLE.sub("", text)
    return "".join(ch for ch in text if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))


@pytest.mark.parametrize(
    "text",
    [
        string.printable,  # ASCII with tab, newline and other control characters: scanned
        "".join(chr(c) for c in range(128)),
        "Sabrina Brant <http://ld.company.org/prod-instances/empl-Sabrina.Brant%40company.org>",
        "a\u200bb\u202ec\ufeffd",  # invisible characters outside ASCII
        "caf\u00e9 \u00ad soft hyphen",
        "bell\x07 and escape\x1b[31m",
        "",
    ],
)
def test_strip_invisible_equals_the_scan(text: str) -> None:
    assert _strip_invisible(text) == _scanned(text)


def test_every_printable_ascii_character_is_kept_and_every_control_one_dropped() -> None:
    printable = "".join(chr(c) for c in range(32, 127))
    assert _strip_invisible(printable) == printable
    assert _strip_invisible("".join(chr(c) for c in [*range(32), 127])) == ""


def _outside_scanned(text: str) -> str:
    """``outside_value`` without its ASCII path (no cap)."""
    text = unicodedata.normalize("NFC", _drop_surrogates(text))
    text = _INVISIBLE.sub("", text)
    text = "".join(ch for ch in text if ch in " \n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co"))
    return _TAG_LIKE.sub(_defang_unless_iri, text.translate(_BRACKET_LOOKALIKES))


@pytest.mark.parametrize(
    "text",
    [
        "".join(chr(c) for c in range(128)),
        "SELECT ?x WHERE {\n\t?x a <http://ex.org/C> . # <system>hi</system>\r\n}",
        "plain value",
        "a\u200bb \u00e9\u0301 <|im_start|> \udcff",
        "",
    ],
)
def test_outside_value_equals_the_scan(text: str) -> None:
    assert outside_value(text, None) == _outside_scanned(text)
