"""An entity's raw neighbourhood as SPINACH's ``get_wikidata_entry`` shows it, for token comparisons.

SPINACH (docs reference-systems.md §1.2) renders every outgoing edge of an entity as
nested JSON, ``"property label (id)": "value label (id)"``, sorted by property id number, one
value collapsed to a string and several kept as a list; only outgoing edges, and no
types, domains or ranges beside the edges themselves (the type edge is one edge like any
other). Its recorded observations are ``json.dumps`` with an indent of 2 and non-ASCII
text kept as is. SPINACH then spends a second LLM call pruning this JSON to the question;
SAGA's typed lookup needs none when the entity's types are known.

Ids take whatever short form the caller passes. On Wikidata, SPINACH shows bare ids
(``P31``, ``Q5``) and reads labels through WDQS's label service, which gives an item
without an English label its own id as label, so such a value reads ``"Q123 (Q123)"``
(``label_service=True``; its ``wikidata_utils.get_outgoing_edges`` and the recorded
QALD-10 observations both show it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.schema.vocab import DEFAULT_LABEL_PREDICATES
from saga_kgqa.tools.identifiers import id_number_order


class QueryRunner(Protocol):
    """Runs checked queries (``KnowledgeGraph`` satisfies it)."""

    def run(self, query: CheckedQuery, limits: ExecutionLimits | None = None, /) -> QueryResult:
        """Run a query that passed the guard or was built from a template."""
        ...


@dataclass(frozen=True, slots=True)
class Edge:
    """One outgoing edge of an entity.

    Attributes:
        property_iri: The property.
        value: The object (an IRI, a literal or a blank node).
        property_label: The property's label, if any.
        value_label: The object's label, if it is a resource with one.
    """

    property_iri: str
    value: Term
    property_label: str | None = None
    value_label: str | None = None


def _named(label: str | None, short_id: str, *, label_service: bool = False) -> str:
    if label:
        return f"{label} ({short_id})"
    return f"{short_id} ({short_id})" if label_service else short_id


def spinach_entry(edges: Iterable[Edge], short: Callable[[str], str] = str, *, label_service: bool = False) -> str:
    """Render edges the way SPINACH's ``get_wikidata_entry`` does (before its LLM pruning).

    Args:
        edges: The entity's outgoing edges.
        short: Turns an IRI into the short id shown in parentheses.
        label_service: Name an unlabelled property or item by its id, as WDQS's label service does.

    Returns:
        The JSON text; ``{}`` when there is no edge.
    """
    grouped: dict[str, tuple[str, list[str]]] = {}
    for edge in edges:
        key = short(edge.property_iri)
        name = _named(edge.property_label, key, label_service=label_service)
        value = (
            _named(edge.value_label, short(edge.value.value), label_service=label_service)
            if edge.value.kind == "uri"
            else edge.value.value
        )
        values = grouped.setdefault(key, (name, []))[1]
        if value not in values:
            values.append(value)
    entry: dict[str, str | list[str]] = {}
    # SPINACH sorts by the number of the property id (P17 before P106), small ids first.
    for key in sorted(grouped, key=id_number_order):
        name, values = grouped[key]
        entry[name] = values[0] if len(values) == 1 else values
    return json.dumps(entry, indent=2, ensure_ascii=False)


def outgoing_edges(
    graph: QueryRunner,
    entity_iri: str,
    *,
    label_predicates: Iterable[str] = DEFAULT_LABEL_PREDICATES,
    property_labels: Callable[[str], str | None] = lambda _iri: None,
    property_namespace: str | None = None,
    language: str | None = None,
    max_edges: int = 2_000,
    deadline_s: float = 10.0,
) -> list[Edge]:
    """Read an entity's outgoing edges with the labels of their values.

    Args:
        graph: The graph.
        entity_iri: The entity.
        label_predicates: Predicates giving a value its label (the first label found is used).
        property_labels: Label of a property (for example from the schema index).
        property_namespace: Only predicates in this namespace (Wikidata's ``wdt:``), filtered
            by the endpoint: a live Wikidata item has thousands of other triples (labels in
            every language, statement nodes) that would crowd out its edges.
        language: Only labels in this language or untagged (Wikidata labels come in hundreds).
        max_edges: Most edges read.
        deadline_s: Budget of the query.

    Raises:
        QueryRejected: ``entity_iri`` is not a usable IRI.
        BackendError: The backend failed.
    """
    labels = " | ".join(iri(p) for p in label_predicates)
    in_namespace = f"FILTER(STRSTARTS(STR(?p), {string_literal(property_namespace)})) " if property_namespace else ""
    in_language = (
        f'FILTER(LANGMATCHES(LANG(?label), {string_literal(language)}) || LANG(?label) = "") ' if language else ""
    )
    text = (
        f"SELECT ?p ?o (SAMPLE(?label) AS ?olabel) WHERE {{ {iri(entity_iri)} ?p ?o . {in_namespace}"
        f"OPTIONAL {{ ?o {labels} ?label {in_language}}} }} GROUP BY ?p ?o LIMIT {max_edges}"
    )
    result = graph.run(from_template(text, limit=max_edges), ExecutionLimits(deadline_s=deadline_s, max_rows=max_edges))
    edges = []
    for row in result.rows:
        prop = row["p"].value
        label = row.get("olabel")
        edges.append(Edge(prop, row["o"], property_labels(prop), label.value if label is not None else None))
    return edges
