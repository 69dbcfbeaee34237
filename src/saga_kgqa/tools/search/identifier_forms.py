"""Identifier literals and their normal forms, so ``GO:0008150``, ``go_0008150`` and ``0008150`` meet.

Graphs spell accessions in many ways: with or without a namespace prefix (``GO:``,
``UniProt:``), separators (``:``, ``_``, ``-``, ``.``, spaces), and in either case. An
identifier's *forms* are its case-folded text with separators dropped and, when it starts
with a letter prefix followed by digits, the part after the prefix as well. A query's
forms are computed the same way, so any shared form is a match.
"""

from __future__ import annotations

import re

from saga_kgqa.schema.vocab import local_name

# Local names of literal-valued properties that hold an identifier (CK25's pv:id, lab:accession, ...).
_ID_LIKE = re.compile(
    r"(^|[^a-z])(id|ids|identifier|accession|acc|code|sku|isbn|issn|doi|orcid|pmid|uniprot|ensembl|gtin|ean)$"
)
_SEPARATORS = re.compile(r"[\s:_\-./]+")
# A letter prefix then a digit run (GO:0008150, PMID 123, CHEBI_15377); UniProt-style
# accessions (P12345, Q9Y6K9) keep their letters: the prefix is one to eight letters.
_PREFIXED = re.compile(r"^([a-z]{1,8})[\s:_\-./]*(\d[\w\s:_\-./]*)$")
#: Shape of a value that looks like an accession or code: no spaces, has a digit, short.
_ACCESSION_SHAPE = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9:_\-./]{2,39}$")


def is_identifier_property(property_iri: str) -> bool:
    """Whether a property's local name says it holds identifiers (``id``, ``accession``, ``isbn``, ...)."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", local_name(property_iri)).casefold()
    return bool(_ID_LIKE.search(name))


def looks_like_identifier(text: str) -> bool:
    """Whether a literal looks like an accession or code (short, no spaces, with a digit)."""
    return bool(_ACCESSION_SHAPE.match(text.strip()))


def identifier_forms(text: str) -> tuple[str, ...]:
    """The normal forms of an identifier: separators dropped and case folded, plus the part after a prefix."""
    if text.isascii() and text.isalnum():
        return _alphanumeric_forms(text.lower())
    folded = text.strip().casefold()
    joined = _SEPARATORS.sub("", folded)
    if not joined:
        return ()
    forms = [joined]
    # A namespace before a colon (UniProt:P12345, obo:GO_0008150) is not part of the accession.
    tails = [folded.rsplit(":", 1)[1].strip()] if ":" in folded else []
    for candidate in [folded, *tails]:
        prefixed = _PREFIXED.match(candidate)
        parts = [candidate] + ([prefixed.group(2)] if prefixed and len(prefixed.group(2)) >= 3 else [])
        for part in parts:
            form = _SEPARATORS.sub("", part)
            if form and form not in forms:
                forms.append(form)
    return tuple(forms)


def _alphanumeric_forms(folded: str) -> tuple[str, ...]:
    """:func:`identifier_forms` of lower-case ASCII letters and digits, without a regular expression.

    Most identifiers and IRI local names are such (``e123``, ``x00000001``, ``p12345``), and the
    name index computes forms for millions of them: this is the same rule, three times faster.
    """
    letters = len(folded) - len(folded.lstrip("abcdefghijklmnopqrstuvwxyz"))
    tail = folded[letters:]
    if 1 <= letters <= 8 and len(tail) >= 3 and tail[0].isdigit():
        return (folded, tail)
    return (folded,)
