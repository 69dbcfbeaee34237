"""The survey of an ontology: its terms are its entities (issue 42).

A graph whose typed subjects are mostly ``owl:Class`` terms, restrictions and axioms has no
instance of a data class: the survey ranks the modelling vocabularies' classes with the rest
(:func:`saga_kgqa.schema.survey.is_ontology`) and this module adds what describes an ontology
as one, in three bounded probes:

* the class hierarchy between named terms (its depth, the longest ``rdfs:subClassOf`` chain);
* the relation properties, those ``owl:Restriction`` s are on (``owl:onProperty``), with one
  ``term subClassOf (property some filler)`` example each;
* the properties of untyped blank nodes the terms reach (``rdf:first`` / ``rdf:rest`` of
  ``owl:unionOf`` lists, datatype facets): no class holds them, so no class survey shows them.

Annotation properties (labels, synonyms, definitions) come from the term classes' own survey.
"""

from __future__ import annotations

from collections.abc import Sequence

from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.schema.survey_model import OntologyProfile, RelationExample, SurveyedClass
from saga_kgqa.schema.survey_prober import Prober
from saga_kgqa.schema.vocab import OWL, OWL_CLASS, RDFS_CLASS, RDFS_SUBCLASS_OF

#: Classes whose instances are an ontology's terms.
TERM_CLASSES = frozenset({OWL_CLASS, RDFS_CLASS})
#: Subclass links read to measure the hierarchy's depth.
MAX_HIERARCHY_EDGES = 300_000
_RELATIONS_SHOWN = 20
_STRUCTURE_PROPERTIES = 40


def ontology_profile(prober: Prober, classes: Sequence[SurveyedClass], type_path: str) -> OntologyProfile:
    """Describe the surveyed ontology: terms, hierarchy depth, annotation and relation properties, structures."""
    term_classes = [c for c in classes if c.iri in TERM_CLASSES]
    annotations: dict[str, int] = {}
    for cls in term_classes:
        for prop in cls.properties:
            literals = sum(k.count for k in prop.object_kinds if k.kind in ("literal", "lang"))
            if literals and literals * 2 >= sum(k.count for k in prop.object_kinds):
                annotations[prop.iri] = annotations.get(prop.iri, 0) + prop.instances_using
    depth, edges = _depth(prober)
    return OntologyProfile(
        terms=sum(c.instances for c in term_classes),
        depth=depth,
        hierarchy_edges=edges,
        annotation_properties=tuple(sorted(annotations, key=lambda p: (-annotations[p], p))),
        relation_properties=_relations(prober),
        structures=_structures(prober, type_path),
    )


def _depth(prober: Prober) -> tuple[int | None, int]:
    """The longest subclass chain between named terms, from at most :data:`MAX_HIERARCHY_EDGES` links."""
    rows = prober.select(
        "SELECT ?c ?parent",
        f"?c {iri(RDFS_SUBCLASS_OF)} ?parent FILTER(isIRI(?c) && isIRI(?parent) && ?c != ?parent)",
        limit=MAX_HIERARCHY_EDGES,
        what="the class hierarchy",
    )
    if rows is None:
        return None, 0
    parents: dict[str, list[str]] = {}
    for row in rows:
        if "c" in row and "parent" in row:
            parents.setdefault(row["c"].value, []).append(row["parent"].value)
    return longest_chain(parents), len(rows)


def longest_chain(parents: dict[str, list[str]]) -> int:
    """Links on the longest path up the hierarchy (a cycle is cut where it closes; iterative, no recursion limit)."""
    depth: dict[str, int] = {}
    for start in parents:
        stack: list[tuple[str, int]] = [(start, 0)]
        on_path: set[str] = set()
        while stack:
            node, state = stack.pop()
            if node in depth:
                continue
            if state == 0:
                on_path.add(node)
                stack.append((node, 1))
                stack.extend((p, 0) for p in parents.get(node, ()) if p not in depth and p not in on_path)
            else:
                on_path.discard(node)
                above = [depth[p] + 1 for p in parents.get(node, ()) if p in depth]
                depth[node] = max(above, default=0)
    return max(depth.values(), default=0)


def _relations(prober: Prober) -> tuple[RelationExample, ...]:
    """Properties restrictions are on, the most used first, each with a term and filler it relates."""
    filler = f"{iri(OWL + 'someValuesFrom')}|{iri(OWL + 'allValuesFrom')}|{iri(OWL + 'hasValue')}"
    rows = prober.select(
        "SELECT ?prop (COUNT(?r) AS ?n) (SAMPLE(?c) AS ?term) (SAMPLE(?f) AS ?filler)",
        f"?r {iri(OWL + 'onProperty')} ?prop FILTER(isIRI(?prop)) "
        f"OPTIONAL {{ ?r {filler} ?f FILTER(isIRI(?f)) }} "
        f"OPTIONAL {{ ?c {iri(RDFS_SUBCLASS_OF)}|{iri(OWL + 'equivalentClass')} ?r FILTER(isIRI(?c)) }}",
        tail="GROUP BY ?prop ORDER BY DESC(?n) ?prop",
        limit=_RELATIONS_SHOWN,
        what="relation properties of the restrictions",
    )
    return tuple(
        RelationExample(
            property=row["prop"].value,
            uses=prober.count(row, "n", "relation properties of the restrictions") or 0,
            term=row["term"].value if "term" in row else None,
            filler=row["filler"].value if "filler" in row else None,
        )
        for row in rows or ()
        if "prop" in row
    )


def _structures(prober: Prober, type_path: str) -> tuple[str, ...]:
    """Properties of untyped blank nodes (list cells, fillers, facets), one DISTINCT probe bounded by LIMIT."""
    rows = prober.select(
        "SELECT DISTINCT ?p",
        f"?b ?p ?o FILTER(isBlank(?b)) FILTER NOT EXISTS {{ ?b {type_path} ?t }}",
        limit=_STRUCTURE_PROPERTIES,
        what="properties of untyped blank nodes",
    )
    return tuple(sorted(row["p"].value for row in rows or () if "p" in row))
