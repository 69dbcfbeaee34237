"""The schema's properties whose names are nearest to a name the graph does not know.

A model that invents ``pv:supplier`` for ``pv:hasSupplier`` is told the nearest declared
names. Freebase's index has 20,625 properties: :mod:`difflib` spent 0.8 s on each invented
name over them (a query may invent eight), so names are matched with RapidFuzz's Indel
ratio (difflib's ratio, in C++) over a key table built once per index.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from saga_kgqa.schema.model import SchemaIndex

#: Least similarity (0-1, difflib's scale) of a suggested name.
DEFAULT_CUTOFF = 0.5


@dataclass(frozen=True, slots=True)
class _KeyTable:
    owner: weakref.ref[SchemaIndex]
    keys: tuple[str, ...]
    iris: tuple[str, ...]


_TABLES: dict[int, _KeyTable] = {}
_LOCK = threading.Lock()


def local_key(iri: str) -> str:
    """The part of an IRI a name match compares: its local name, lower-cased."""
    return iri.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1].lower()


def nearest_properties(schema: SchemaIndex, iri: str, *, limit: int, cutoff: float = DEFAULT_CUTOFF) -> list[str]:
    """The schema's properties whose local names are nearest to ``iri``'s, best first.

    Args:
        schema: The index whose properties are candidates.
        iri: The unknown property (never suggested itself).
        limit: Most properties returned.
        cutoff: Least similarity, 0 to 1.

    Returns:
        Property IRIs, most similar first.
    """
    table = _table(schema)
    matches = process.extract(
        local_key(iri), table.keys, scorer=fuzz.ratio, limit=limit + 1, score_cutoff=cutoff * 100.0
    )
    return [table.iris[index] for _key, _score, index in matches if table.iris[index] != iri][:limit]


def _table(schema: SchemaIndex) -> _KeyTable:
    # Keyed by identity: an index is unhashable (dict fields) and immutable once built.
    with _LOCK:
        table = _TABLES.get(id(schema))
        if table is not None and table.owner() is schema:
            return table
        iris = tuple(schema.properties)
        table = _KeyTable(weakref.ref(schema), tuple(local_key(p) for p in iris), iris)
        _TABLES[id(schema)] = table
        weakref.finalize(schema, _forget, id(schema), table)
        return table


def _forget(key: int, table: _KeyTable) -> None:
    with _LOCK:
        if _TABLES.get(key) is table:
            del _TABLES[key]
