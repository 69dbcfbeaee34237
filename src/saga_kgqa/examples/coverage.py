"""What a gold query needs that retrieved examples show: properties, classes and query features.

Used by ``bench/examples.py`` to measure, without a model, how much of a question's gold
query the top-k examples would have shown the model.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from saga_kgqa.examples.form import FEATURES, query_features
from saga_kgqa.kg.guard.sparql_algebra import iter_triple_patterns

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: Properties whose object is a class (RDF typing, and Wikidata's instance-of / subclass-of).
TYPING_PROPERTIES = frozenset(
    {
        RDF_TYPE,
        "http://www.wikidata.org/prop/direct/P31",
        "http://www.wikidata.org/prop/direct/P279",
        "http://www.w3.org/2000/01/rdf-schema#subClassOf",
    }
)
__all__ = ["FEATURES", "Signature", "covered", "signature"]


@dataclass(frozen=True, slots=True)
class Signature:
    """A query's properties, classes and features (empty sets when it does not parse)."""

    properties: frozenset[str]
    classes: frozenset[str]
    features: frozenset[str]


@functools.lru_cache(maxsize=65_536)  # a parse costs ~25 ms; benches see a pool's queries once per question
def signature(sparql: str) -> Signature:
    """Read the properties (predicates, path steps included), classes (objects of typing properties) and features."""
    return Signature(*_terms(sparql), query_features(sparql))


def covered(needed: frozenset[str], shown: Iterable[frozenset[str]]) -> float | None:
    """Share of ``needed`` present in the union of ``shown``; ``None`` when nothing is needed."""
    if not needed:
        return None
    union: set[str] = set()
    for items in shown:
        union |= items
    return len(needed & union) / len(needed)


def _terms(sparql: str) -> tuple[frozenset[str], frozenset[str]]:
    from rdflib import URIRef
    from rdflib.plugins.sparql import prepareQuery

    try:
        algebra = prepareQuery(sparql).algebra
    except Exception:
        return frozenset(), frozenset()
    properties: set[str] = set()
    classes: set[str] = set()
    for subject_predicate_object in iter_triple_patterns(algebra):
        _subject, predicate, obj = subject_predicate_object
        steps = [predicate] if isinstance(predicate, URIRef) else _path_iris(predicate)
        properties.update(str(step) for step in steps)
        if isinstance(obj, URIRef) and any(str(step) in TYPING_PROPERTIES for step in steps):
            classes.add(str(obj))
    return frozenset(properties), frozenset(classes)


def _path_iris(path: Any) -> list[Any]:
    from rdflib import URIRef

    found = []
    stack = [path]
    while stack:
        current = stack.pop()
        if isinstance(current, URIRef):
            found.append(current)
        for attribute in ("args", "path"):
            inner = getattr(current, attribute, None)
            if isinstance(inner, list | tuple):
                stack.extend(inner)
            elif inner is not None:
                stack.append(inner)
    return found
