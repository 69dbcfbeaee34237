"""The name index's fast paths fold names and identifiers exactly as the general rules do (issue 27).

``normalise`` takes an ASCII shortcut and ``identifier_forms`` one for ASCII letters and digits: the
index computes them for millions of names. Each is checked against the general rule on random texts
(seeded), including control characters, separators and every prefix length around the eight-letter limit.
"""

from __future__ import annotations

import random
import re
import string
import unicodedata

from saga_kgqa.tools.search import identifier_forms as forms_module
from saga_kgqa.tools.search.identifier_forms import identifier_forms
from saga_kgqa.tools.search.label_index import normalise

_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def _general_normalise(text: str) -> str:
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    return " ".join(text.casefold().split())


def _general_forms(text: str) -> tuple[str, ...]:
    separators, prefixed_rule = forms_module._SEPARATORS, forms_module._PREFIXED
    folded = text.strip().casefold()
    joined = separators.sub("", folded)
    if not joined:
        return ()
    forms = [joined]
    tails = [folded.rsplit(":", 1)[1].strip()] if ":" in folded else []
    for candidate in [folded, *tails]:
        prefixed = prefixed_rule.match(candidate)
        parts = [candidate] + ([prefixed.group(2)] if prefixed and len(prefixed.group(2)) >= 3 else [])
        for part in parts:
            form = separators.sub("", part)
            if form and form not in forms:
                forms.append(form)
    return tuple(forms)


def test_ascii_names_fold_as_the_general_rule_does() -> None:
    rng = random.Random(27)
    alphabet = string.printable + "\x00\x1c\x1d\x1e\x1f\x85"[:-1]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        assert normalise(text) == _general_normalise(text), repr(text)
    # Not ASCII: the general rule (NFKC, casefold, invisible characters) still applies.
    assert normalise("Stra\u00dfe\u200b  \uff21") == "strasse a"


def test_alphanumeric_identifiers_get_the_general_rules_forms() -> None:
    rng = random.Random(25)
    for _ in range(20_000):
        letters = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(0, 10)))
        digits = "".join(rng.choice(string.digits) for _ in range(rng.randint(0, 6)))
        tail = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(0, 3)))
        text = letters + digits + tail
        assert identifier_forms(text) == _general_forms(text), text
    assert identifier_forms("GO0008150") == ("go0008150", "0008150")
    assert identifier_forms("abcdefghi123") == ("abcdefghi123",)  # more than eight letters: no prefix
    assert identifier_forms("GO:0008150") == _general_forms("GO:0008150")  # separators: the general rule
