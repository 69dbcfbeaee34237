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
from saga_kgqa.kg.core.profiles import WIKIDATA_PREFIXES
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
__all__ = ["FEATURES", "Signature", "covered", "local_name", "local_names", "signature"]


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


def local_name(iri: str) -> str:
    """The part of an IRI after its ``#``, else after its last ``/`` (the IRI itself when neither ends it).

    Spider4SPARQL's databases name a column ``<http://valuenet/ontop/singer#age>`` in one database and
    ``…/people#age`` in another: what transfers between databases is the column's role, its local name.
    """
    _namespace, hashed, fragment = iri.rpartition("#")
    if hashed and fragment:
        return fragment
    return iri.rstrip("/").rpartition("/")[2] or iri


def local_names(iris: frozenset[str]) -> frozenset[str]:
    """The local names (:func:`local_name`) of a set of IRIs."""
    return frozenset(local_name(iri) for iri in iris)


def _terms(sparql: str) -> tuple[frozenset[str], frozenset[str]]:
    from rdflib import URIRef

    from saga_kgqa.kg.guard.sparql_grammar import parse_public_query, translate

    try:
        # WDQS's predeclared prefixes: queries written for it (SPINACH's gold) have no PREFIX lines;
        # a query's own PREFIX lines override these.
        algebra = translate(parse_public_query(sparql), WIKIDATA_PREFIXES).algebra
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
