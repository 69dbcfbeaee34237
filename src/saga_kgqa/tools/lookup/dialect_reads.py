"""The few dialect queries of lookup: statement qualifiers, compound value nodes, reverse properties.

Each is a bounded template query built from escaped IRIs (like :mod:`saga_kgqa.tools.graph_reads`).
Which one runs is decided by the dialect's data (:class:`saga_kgqa.dialects.model.Dialect`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from saga_kgqa.dialects.model import Dialect
from saga_kgqa.kg.core.counts import count_of
from saga_kgqa.kg.core.result import Row, Term
from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.schema.queries import batched, values_clause
from saga_kgqa.tools.graph_reads import Reads

#: (property IRI, value) → (detail predicate, detail value) pairs.
Details = dict[tuple[str, Term], list[tuple[str, Term]]]
_BATCH = 50


def qualifiers(
    reads: Reads, dialect: Dialect, entity: str, values: Mapping[str, Sequence[Term]], *, per_value: int, limit: int
) -> Details:
    """Read the qualifiers of the statements behind the values shown (Wikidata ``p:``/``ps:``/``pq:``)."""
    found: Details = {}
    pairs = {pair: prop for prop in values if (pair := dialect.statement_predicates(prop)) is not None}
    if not pairs or dialect.qualifier_namespace is None:
        return found
    claims = sorted(claim for claim, _ps in pairs)
    statement_of = {claim: ps for claim, ps in pairs}
    direct_of = {claim: prop for (claim, _ps), prop in pairs.items()}
    for batch in batched(claims, _BATCH):
        rows = reads.select(
            f"SELECT ?claim ?ps ?v ?q ?qv WHERE {{ {values_clause('claim', batch)} {iri(entity)} ?claim ?st . "
            f"?st ?ps ?v . ?st ?q ?qv FILTER(STRSTARTS(STR(?q), {string_literal(dialect.qualifier_namespace)})) }}",
            limit=limit,
            what="qualifiers",
        ).rows
        for row in rows:
            claim = row["claim"].value
            if row["ps"].value != statement_of.get(claim):
                continue
            prop = direct_of[claim]
            if row["v"] not in values.get(prop, ()):
                continue
            found_for = found.setdefault((prop, row["v"]), [])
            if len(found_for) < per_value and (row["q"].value, row["qv"]) not in found_for:
                found_for.append((row["q"].value, row["qv"]))
    return found


def compound_values(
    reads: Reads, dialect: Dialect, entity: str, values: Mapping[str, Sequence[Term]], *, per_value: int, limit: int
) -> Details:
    """Read the second hop of compound value (CVT) nodes: nameless values with properties of their own.

    A Freebase CVT node (a marriage, a government position held) has no name; its
    meaning is in its own properties, so lookup shows them beside it, minus the edge
    back to the entity.
    """
    found: Details = {}
    nodes = sorted({term.value for terms in values.values() for term in terms if term.kind == "uri"})
    if not dialect.compound_values or not nodes:
        return found
    names = "|".join(iri(p) for p in dialect.vocabulary.label_predicates)
    mediator = (
        f"|| EXISTS {{ ?x {iri(dialect.vocabulary.type_predicates[0])} ?t . ?t {iri(dialect.mediator_predicate)} ?m }}"
        if dialect.mediator_predicate and dialect.vocabulary.type_predicates
        else ""
    )
    for batch in batched(nodes, _BATCH):
        rows = reads.select(
            f"SELECT ?x ?p ?o WHERE {{ {values_clause('x', batch)} ?x ?p ?o "
            f"FILTER(?o != {iri(entity)}) FILTER(NOT EXISTS {{ ?x {names} ?name }} {mediator}) }}",
            limit=limit,
            what="compound value nodes",
        ).rows
        parts: dict[str, list[tuple[str, Term]]] = {}
        for row in rows:
            if dialect.is_property(row["p"].value):
                node_parts = parts.setdefault(row["x"].value, [])
                if len(node_parts) < per_value:
                    node_parts.append((row["p"].value, row["o"]))
        for prop, terms in values.items():
            for term in terms:
                if term.value in parts:
                    found[(prop, term)] = parts[term.value]
    return found


def recorded_examples(reads: Reads, dialect: Dialect, prop: str, *, limit: int) -> list[Row]:
    """The property's own recorded examples (Wikidata P1855), as ``?s ?o`` rows.

    The example's value is the P1855 statement's qualifier named after the property
    (``pq:P57``) or, when the statement has none, the subject's own truthy value.
    Examples whose value is unknown are left out.
    """
    entity = dialect.property_entity(prop)
    if dialect.example_predicate is None or entity is None:
        return []
    claim = dialect.statement_predicates(dialect.example_predicate)
    qualifier = ""
    if claim is not None and dialect.qualifier_namespace is not None:
        qualifier_iri = dialect.qualifier_namespace + prop.rsplit("/", 1)[-1]
        qualifier = (
            f"OPTIONAL {{ {iri(entity)} {iri(claim[0])} ?st . ?st {iri(claim[1])} ?s ; {iri(qualifier_iri)} ?q }}"
        )
    rows = reads.select(
        f"SELECT ?s ?o WHERE {{ {iri(entity)} {iri(dialect.example_predicate)} ?s {qualifier} "
        f"OPTIONAL {{ ?s {iri(prop)} ?t }} BIND(COALESCE(?q, ?t) AS ?o) FILTER(BOUND(?o)) }}",
        limit=limit * 4,
    ).rows
    chosen: list[Row] = []
    for row in rows:
        if len(chosen) < limit and all(row["s"] != kept["s"] for kept in chosen):
            chosen.append(row)
    return chosen


def graph_superclasses(reads: Reads, dialect: Dialect, classes: Sequence[str], *, limit: int) -> set[str]:
    """The superclasses of classes through the graph's own subclass predicate (``wdt:P279+``)."""
    predicates = dialect.vocabulary.subclass_predicates
    if not dialect.graph_hierarchy or not classes or not predicates:
        return set()
    path = "|".join(iri(p) for p in predicates)
    rows = reads.select(
        f"SELECT DISTINCT ?sup WHERE {{ {values_clause('t', sorted(classes))} ?t ({path})+ ?sup FILTER(isIRI(?sup)) }}",
        limit=limit,
        what="superclasses",
    ).rows
    return {row["sup"].value for row in rows if "sup" in row}


def reverse_properties(reads: Reads, dialect: Dialect, entity: str, *, limit: int) -> dict[str, tuple[int, list[Term]]]:
    """Incoming properties of an entity with their subject counts and a few subjects."""
    rows = reads.select(
        f"SELECT ?p (COUNT(?s) AS ?n) (SAMPLE(?s) AS ?one) WHERE {{ ?s ?p {iri(entity)} }} GROUP BY ?p",
        limit=limit,
        what="reverse properties",
    ).rows
    found: dict[str, tuple[int, list[Term]]] = {}
    for row in rows:
        prop = row["p"].value
        if not dialect.is_property(prop):
            continue
        count = count_of(row.get("n"))
        # One sample subject per property keeps this a single GROUP BY query.
        found[prop] = (count, [row["one"]] if "one" in row else [])
    return found
