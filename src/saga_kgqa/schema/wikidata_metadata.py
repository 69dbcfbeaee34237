r"""Property metadata of Wikidata from the KGTK files of ``wikidata_properties_isi``.

The files are tab-separated KGTK edges (``node1 node2``, or ``id node1 label node2``).
A language-tagged string is written ``'text'@en`` with backslash escapes, and a value
that contains a double quote is in addition CSV-quoted (``"'say \\""hi\\""'@en"``).
Datatypes are Wikibase names (``wikibase-item``) and become the IRIs that
``wikibase:propertyType`` has in Wikidata's RDF (``wikibase:WikibaseItem``).
"""

from __future__ import annotations

import csv
import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from saga_kgqa.errors import ConfigurationError

WDT = "http://www.wikidata.org/prop/direct/"
WIKIBASE = "http://wikiba.se/ontology#"
#: The Wikibase datatype of item-valued properties, the only ones with class ranges.
WIKIBASE_ITEM = WIKIBASE + "WikibaseItem"

LABELS_FILE = "labels.property.en.tsv.gz"
DESCRIPTIONS_FILE = "descriptions.property.en.tsv.gz"
DATATYPES_FILE = "metadata.property.datatypes.tsv.gz"
CLAIMS_FILE = "claims.properties.tsv.gz"
_PROPERTY_ID = re.compile(r"P[1-9][0-9]*")
_INVERSE_PROPERTY = "P1696"
_ESCAPE = re.compile(r"\\(.)")
_ESCAPED = {"n": "\n", "t": "\t", "r": "\r"}


@dataclass(frozen=True, slots=True)
class PropertyMetadata:
    """Label, description and datatype of one property, plus which type constraints it carries.

    Attributes:
        label: English label.
        description: English description.
        datatype: ``wikibase:propertyType`` IRI (``http://wikiba.se/ontology#WikibaseItem``).
        constraint_types: QIDs of the P2302 constraint types the property carries (the
            classes of those constraints are not in this data set).
        inverse: The direct-property IRI of its inverse property (P1696), if any.
    """

    label: str | None = None
    description: str | None = None
    datatype: str | None = None
    constraint_types: frozenset[str] = frozenset()
    inverse: str | None = None


def kgtk_text(value: str) -> str:
    """Return the text of a KGTK language-tagged string (``'text'@en``), unescaped.

    Raises:
        ValueError: The value is not a quoted KGTK string.
    """
    match = re.fullmatch(r"'(.*)'(@[A-Za-z-]+)?", value, flags=re.DOTALL)
    if match is None:
        raise ValueError(f"not a KGTK string: {value[:80]!r}")
    return _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), match.group(1))


def wikibase_datatype(name: str) -> str:
    """Map a Wikibase datatype name (``wikibase-item``, ``commonsMedia``) to its RDF IRI."""
    parts = name.split("-")
    return WIKIBASE + "".join(part[:1].upper() + part[1:] for part in parts)


def read_property_metadata(directory: Path) -> dict[str, PropertyMetadata]:
    """Read labels, descriptions, datatypes and constraint types of every property.

    Args:
        directory: The ``wikidata_properties_isi`` directory.

    Returns:
        Metadata keyed by the direct-property IRI (``wdt:P57``).

    Raises:
        ConfigurationError: A file is missing or malformed.
    """
    labels = {pid: kgtk_text(value) for pid, value in _pairs(directory / LABELS_FILE, value_column="node2")}
    descriptions = {pid: kgtk_text(value) for pid, value in _pairs(directory / DESCRIPTIONS_FILE, value_column="node2")}
    datatypes = {
        pid: wikibase_datatype(value) for pid, value in _pairs(directory / DATATYPES_FILE, value_column="node2")
    }
    constraints: dict[str, set[str]] = {}
    inverses: dict[str, str] = {}
    for row in _rows(directory / CLAIMS_FILE):
        pid, claim, value = row.get("node1", ""), row.get("label"), row.get("node2", "")
        if not _PROPERTY_ID.fullmatch(pid):
            continue
        if claim == "P2302":
            constraints.setdefault(pid, set()).add(value)
        elif claim == _INVERSE_PROPERTY and _PROPERTY_ID.fullmatch(value):
            inverses.setdefault(pid, value)
    ids = sorted(set(labels) | set(descriptions) | set(datatypes), key=lambda pid: int(pid[1:]))
    return {
        WDT + pid: PropertyMetadata(
            label=labels.get(pid),
            description=descriptions.get(pid),
            datatype=datatypes.get(pid),
            constraint_types=frozenset(constraints.get(pid, ())),
            inverse=WDT + inverses[pid] if pid in inverses else None,
        )
        for pid in ids
    }


def _pairs(path: Path, *, value_column: str) -> Iterator[tuple[str, str]]:
    for row in _rows(path):
        pid = row.get("node1", "")
        if _PROPERTY_ID.fullmatch(pid) and row.get(value_column):
            yield pid, row[value_column]


def _rows(path: Path) -> Iterator[dict[str, str]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle, delimiter="\t", quotechar='"', doublequote=True)
            try:
                yield from reader
            except csv.Error as exc:
                raise ConfigurationError(f"{path}: malformed KGTK line {reader.line_num}: {exc}") from exc
    except FileNotFoundError:
        raise ConfigurationError(f"Wikidata property file not found: {path}") from None
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc
