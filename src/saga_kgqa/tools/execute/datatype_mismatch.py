"""A pattern that matches nothing because its literal has another datatype than the graph's values.

``?y ex:stadiumId 1`` finds nothing when the graph writes the id as ``"1"`` (a string) or
``"1"^^xsd:double``: SPARQL joins compare terms, and the integer ``1`` is another term. The
empty-result diagnosis names the dead pattern; this module adds *why*, naming both datatypes,
from one bounded probe of the property's literal values (through the guard).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Literal, URIRef, Variable

from saga_kgqa.errors import BackendError, QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.guard.algebra_text import Triple
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.tools.render import iri_text, term_text

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_SAMPLE = 5


def _datatype(literal: Literal) -> str:
    return str(literal.datatype) if literal.datatype else XSD_STRING


def _query_literals(triple: Triple, values: Sequence[CompValue]) -> list[Literal]:
    """The literals the pattern's object can take: a constant, or the VALUES rows of its variable."""
    obj = triple[2]
    if isinstance(obj, Literal):
        return [obj]
    if isinstance(obj, Variable):
        return [row[obj] for node in values for row in node.res or [] if isinstance(row.get(obj), Literal)]
    return []


def mismatch_note(
    triple: Triple,
    values: Sequence[CompValue],
    *,
    graph: KnowledgeGraph,
    prefixes: Mapping[str, str],
    deadline_s: float,
) -> str | None:
    """``Datatype mismatch: …`` when the pattern's literals and the property's values differ in datatype.

    Returns ``None`` when the pattern has no literal object, its datatypes agree with the
    graph's, or the probe could not run (the diagnosis stands without this note).
    """
    prop = triple[1]
    literals = _query_literals(triple, values)
    if not isinstance(prop, URIRef) or not literals or deadline_s <= 0:
        return None
    wanted = {_datatype(lit) for lit in literals if not lit.language}
    try:
        checked = graph.check(f"SELECT ?o WHERE {{ ?s {iri(str(prop))} ?o FILTER(isLiteral(?o)) }} LIMIT {_SAMPLE}")
        rows = graph.run(checked, ExecutionLimits(deadline_s=deadline_s, max_rows=_SAMPLE)).rows
    except (QueryRejected, BackendError):
        return None
    found = [row["o"] for row in rows if "o" in row and not row["o"].lang]
    held = {term.datatype or XSD_STRING for term in found}
    if not held or not wanted or held & wanted:
        return None
    return (
        f"Datatype mismatch: the query gives {_names(wanted, prefixes)} values for {iri_text(str(prop), prefixes)}, "
        f"but the graph holds {_names(held, prefixes)} values there (e.g. {term_text(found[0], prefixes)}); "
        "write the values in the graph's datatype, or use join, which converts keys itself."
    )


def _names(datatypes: set[str], prefixes: Mapping[str, str]) -> str:
    return " and ".join(iri_text(d, prefixes) for d in sorted(datatypes))
