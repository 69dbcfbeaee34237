"""Printable ASCII skips the per-character scan of invisible characters; every other text is scanned as before."""

from __future__ import annotations

import string
import unicodedata

import pytest

from saga_kgqa.text_safety import _INVISIBLE, _strip_invisible


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
