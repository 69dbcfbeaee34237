"""The question's language: detected by ``py3langid`` (its model ships in the package), named for prompts.

The TEXT2SPARQL'26 questions come in English, German (corporate graph) and Spanish
(DBpedia), and label search matches better in the question's language. Detection is
limited to :data:`CANDIDATES` (langid over all 97 languages calls a bare "Berlin"
Turkmen) and falls back to the default when it is not sure: a wrong language only costs
a preference, English names are always searched as a fallback (see
:class:`saga_kgqa.tools.graph_reads.Reads`).
"""

from __future__ import annotations

import re
import threading
from typing import Any

#: Languages the detector chooses among (the QALD/TEXT2SPARQL languages and a few neighbours).
CANDIDATES: tuple[str, ...] = ("en", "de", "es", "fr", "it", "pt", "nl", "ru", "zh", "ja", "pl", "uk")
#: Least probability (normalised over :data:`CANDIDATES`) for a detection to count.
MIN_PROBABILITY = 0.7
#: Characters of the question the detector reads.
MAX_CHARS = 2000
_NAMES = {
    "en": "English",
    "de": "German",
    "es": "Spanish",
    "fr": "French",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "ru": "Russian",
    "zh": "Chinese",
    "ja": "Japanese",
    "pl": "Polish",
    "uk": "Ukrainian",
}
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_LOCK = threading.Lock()
_IDENTIFIER: Any = None


def _identifier() -> Any:
    """The langid model, loaded once per process (about 3 s) under a lock."""
    global _IDENTIFIER
    with _LOCK:
        if _IDENTIFIER is None:
            from py3langid.langid import MODEL_FILE, LanguageIdentifier

            identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
            identifier.set_languages(list(CANDIDATES))
            _IDENTIFIER = identifier
        return _IDENTIFIER


def detect_language(text: str, *, default: str = "en") -> str:
    """The language of ``text`` as an ISO 639-1 code, or ``default`` when unsure.

    Args:
        text: The question (only its first :data:`MAX_CHARS` characters are read).
        default: What to answer for text too short or too mixed to tell.
    """
    sample = text[:MAX_CHARS]
    if len(_LETTERS.findall(sample)) < 8:
        return default
    identifier = _identifier()
    with _LOCK:  # the identifier keeps scratch state per call
        language, probability = identifier.classify(sample)
    return str(language) if float(probability) >= MIN_PROBABILITY else default


def language_name(tag: str) -> str:
    """The English name of a language tag (``de`` -> ``German``); the tag itself when unknown."""
    return _NAMES.get(tag.split("-")[0].casefold(), tag)


def language_note(tag: str) -> str:
    """The prompt line saying which language the question and the preferred labels are in ("" for English)."""
    if tag.split("-")[0].casefold() == "en":
        return ""
    name = language_name(tag)
    return (
        f"The question is in {name} ({tag}). Search names in {name} first (labels tagged @{tag} are preferred); "
        "untagged and English names are searched too. Identifiers and query syntax stay as they are."
    )
