"""The bounded live survey: a schema-index builder (source ``surveyed``) for graphs with no curated schema.

AutoSchema's live index (appendix A.1), sent through the project's own path to a graph:
every probe is a template query (:func:`~saga_kgqa.kg.core.query.from_template`, escaped IRIs,
a LIMIT) run by :class:`~saga_kgqa.kg.knowledge_graph.KnowledgeGraph`, so a remote
endpoint's politeness limits (its profile's concurrency, throttling, circuit breaker)
apply to each one; the example queries shown to a model pass the read-only guard. At
most :meth:`SurveyLimits.max_requests` queries are sent, ``max_concurrency`` at once. A
probe that fails is skipped and recorded; the survey goes on.

Per source: the named graphs, the number of classes and the most instantiated ones.
Per class: its most used outgoing properties over a sample of its instances, the kinds
and types of their objects, a few example values, the named graphs holding its type
triples, and an example query checked to run.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime

from saga_kgqa.kg.guard.sparql_terms import iri, string_literal
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.model import (
    TypeCount,
)
from saga_kgqa.schema.queries import path_alternative, values_clause
from saga_kgqa.schema.survey_index import TYPES_PER_PROPERTY, index_from_evidence
from saga_kgqa.schema.survey_model import (
    KindCount,
    SourceSurvey,
    SurveyedClass,
    SurveyedProperty,
    SurveyLimits,
)
from saga_kgqa.schema.survey_ontology import ontology_profile
from saga_kgqa.schema.survey_prober import Prober
from saga_kgqa.schema.vocab import META_NAMESPACES, OWL, RDFS, RDFS_SUBCLASS_OF, SchemaVocabulary

_KIND = 'BIND(IF(isIRI(?o), "iri", IF(isBlank(?o), "bnode", IF(lang(?o) != "", "lang", "literal"))) AS ?k)'
_NAMED_GRAPHS_SHOWN = 50
#: Vocabulary classes that mark instances (a Protégé individual is also an owl:NamedIndividual).
INSTANCE_MARKERS = frozenset({OWL + "Thing", OWL + "NamedIndividual", RDFS + "Resource"})
#: Classes the ranking probe returns at most: below it, its rows are the class count too.
CLASSES_COUNTED = 10_000
_GRAPHS_PER_CLASS = 10
_EXAMPLE_CHARS = 200


def survey_source(
    graph: KnowledgeGraph,
    *,
    source: str,
    graphs: Sequence[str] = (),
    limits: SurveyLimits | None = None,
    vocabulary: SchemaVocabulary | None = None,
) -> SourceSurvey:
    """Survey one source within ``limits`` and build its schema index.

    Args:
        graph: The source behind its guard.
        source: The source's catalog name (kept in the survey and its cache key).
        graphs: Named graphs to scope every probe to (each probe's patterns match within
            one of them); empty: the default dataset.
        limits: The survey's bounds (the paper's 25 classes, 40 properties, 300 instances).
        vocabulary: The type and subclass predicates (RDFS by default).

    Returns:
        The survey; its ``failures`` list the probes skipped, and ``coverage()`` says what
        was not covered.
    """
    limits = limits or SurveyLimits()
    vocabulary = vocabulary or SchemaVocabulary()
    started = time.perf_counter()
    prober = Prober(graph, limits, tuple(graphs))
    type_path = path_alternative(vocabulary.type_predicates)
    named = () if graphs else _named_graphs(prober)
    ranked, class_count, ontology = _ranked_classes(prober, type_path, limits)
    workers = max(1, min(limits.max_concurrency, graph.profile.max_concurrency))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="saga-survey") as pool:
        classes = list(
            pool.map(
                lambda item: _survey_class(prober, item[0], item[1], type_path, vocabulary, bool(named)),
                ranked,
            )
        )
    # The guard's parser (pyparsing) is not thread-safe: example queries are checked one by one.
    classes = [
        c.model_copy(
            update={"example_query": prober.check_example(_example_query(c, vocabulary.type_predicates[0], graphs))}
        )
        for c in classes
    ]
    parents = _parents(prober, [c.iri for c in classes])
    profile = ontology_profile(prober, classes, type_path) if ontology else None
    index = index_from_evidence(graph.endpoint_id, classes, parents, vocabulary, limits)
    survey = SourceSurvey(
        source=source,
        endpoint_id=graph.endpoint_id,
        graphs=tuple(graphs),
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
        limits=limits,
        named_graphs=named,
        class_count=class_count,
        classes=tuple(classes),
        failures=tuple(prober.failures),
        ontology=profile,
        requests=prober.requests,
        seconds=round(time.perf_counter() - started, 3),
        index=index,
    )
    return survey.model_copy(update={"index": index.model_copy(update={"notes": survey.coverage()})})


def _named_graphs(prober: Prober) -> tuple[str, ...]:
    rows = prober.select("SELECT DISTINCT ?g", "GRAPH ?g { }", limit=_NAMED_GRAPHS_SHOWN, what="named graphs")
    return tuple(sorted(row["g"].value for row in rows or () if "g" in row))


def _ranked_classes(
    prober: Prober, type_path: str, limits: SurveyLimits
) -> tuple[list[tuple[str, int]], int | None, bool]:
    """The most instantiated classes (schema vocabulary left out), how many there are, and whether it is an ontology.

    The type triples are grouped by class first and the classes filtered after: a filter on
    ``STR(?c)`` under the grouping ran once per type triple (at 10M triples 4.1 s against 0.23 s
    grouped first; at 100M every one of these probes ran past its 20 s deadline and the survey found no
    class). One pass gives both answers when the graph has fewer than :data:`CLASSES_COUNTED` classes:
    the ranking's rows are then every class; only past that are they counted apart.

    Classes of the modelling vocabularies (``owl:Class``, ``rdf:Property``) describe the schema, not
    the data, and are left out, except in an ontology (:func:`is_ontology`): when most typed
    subjects are typed by them, the terms are the graph's entities and are surveyed as such
    (an OWL ontology surveyed as 0 classes and 0 of its 48 predicates: issue 42).
    """
    meta = " || ".join(f"STRSTARTS(STR(?c), {string_literal(ns)})" for ns in META_NAMESPACES)
    data_class = f"isIRI(?c) && !({meta})"
    # The scope goes inside the grouping: a subquery under GRAPH ?g is not matched in ?g by every engine.
    grouped = f"SELECT ?c (COUNT(?s) AS ?n) WHERE {{ {prober.scoped(f'?s {type_path} ?c')} }} GROUP BY ?c"
    # One grouping gives the data classes and the few vocabulary classes (owl:Class, owl:Axiom, ...) beside them.
    rows = prober.select(
        "SELECT ?c ?n",
        f"{{ {grouped} }} FILTER(isIRI(?c))",
        tail="ORDER BY DESC(?n) ?c",
        limit=max(limits.max_classes, CLASSES_COUNTED),
        what="classes by instance count",
        scope=False,
    )
    counted_rows = [
        (row["c"].value, prober.count(row, "n", "classes by instance count") or 0) for row in rows or () if "c" in row
    ]
    ranked = [(c, n) for c, n in counted_rows if not c.startswith(META_NAMESPACES)]
    # owl:Thing and owl:NamedIndividual mark instances, not terms: never counted as an ontology's.
    terms = [(c, n) for c, n in counted_rows if c.startswith(META_NAMESPACES) and c not in INSTANCE_MARKERS]
    class_count: int | None = len(ranked) if rows is not None and len(rows) < CLASSES_COUNTED else None
    if class_count is None:
        per_class = f"{{ {grouped} }} FILTER({data_class})"
        counted = prober.select("SELECT (COUNT(?c) AS ?n)", per_class, limit=1, what="class count", scope=False)
        class_count = prober.count(counted[0], "n", "class count") if counted else None
    if rows is None:  # counting every instance timed out: take classes unranked
        members = f"?s {type_path} ?c FILTER({data_class})"
        unranked = prober.select("SELECT DISTINCT ?c", members, limit=limits.max_classes, what="classes (unranked)")
        ranked = [(row["c"].value, 0) for row in unranked or () if "c" in row]
    ontology = is_ontology(terms, ranked)
    if ontology:
        ranked = sorted([*terms, *ranked], key=lambda item: (-item[1], item[0]))
        class_count = None if class_count is None else class_count + len(terms)
    return ranked[: limits.max_classes], class_count, ontology


def is_ontology(vocabulary_classes: Sequence[tuple[str, int]], data_classes: Sequence[tuple[str, int]]) -> bool:
    """Whether most type triples name a modelling vocabulary's class (``owl:Class`` terms, restrictions, axioms).

    Then the graph is an ontology: its terms are its entities. Counted over the ranked classes
    (a data class past the ranking's rows is rarer than each of them).
    """
    terms = sum(n for _c, n in vocabulary_classes)
    return terms > 0 and terms > sum(n for _c, n in data_classes)


def _survey_class(
    prober: Prober, cls: str, instances: int, type_path: str, vocabulary: SchemaVocabulary, probe_graphs: bool
) -> SurveyedClass:
    limits = prober.limits
    # Blank-node instances are sampled like IRIs (OWL restrictions, SHACL shapes, n-ary records): a
    # class of blank nodes only, or a property only they use, would otherwise be missing. LIMIT bounds it.
    members = f"?s {type_path} {iri(cls)}"
    sample = f"{{ SELECT DISTINCT ?s WHERE {{ {members} }} LIMIT {limits.max_instances} }}"
    skip_types = ", ".join(iri(p) for p in vocabulary.type_predicates)
    used = prober.select(
        "SELECT ?p (COUNT(DISTINCT ?s) AS ?n)",
        f"{sample} ?s ?p ?o FILTER(?p NOT IN ({skip_types}))",
        tail="GROUP BY ?p ORDER BY DESC(?n) ?p",
        limit=limits.max_properties,
        what=f"properties of {cls}",
    )
    counted = ((row["p"].value, prober.count(row, "n", f"properties of {cls}")) for row in used or () if "p" in row)
    usage = {prop: n for prop, n in counted if n is not None}
    if instances > limits.max_instances and len(usage) < limits.max_properties:
        usage.update(dict.fromkeys(_beyond_sample(prober, cls, members, skip_types, usage), 0))
    sampled = min(instances, limits.max_instances) if instances else max(usage.values(), default=0)
    objects = _object_profile(prober, cls, sample, type_path, list(usage)) if usage else {}
    examples, instances_seen = _examples(prober, cls, type_path, list(usage))
    graphs: tuple[str, ...] = ()
    if probe_graphs:
        rows = prober.select(
            "SELECT DISTINCT ?g",
            f"GRAPH ?g {{ ?s {type_path} {iri(cls)} }}",
            limit=_GRAPHS_PER_CLASS,
            what=f"named graphs of {cls}",
        )
        graphs = tuple(sorted(row["g"].value for row in rows or () if "g" in row))
    properties = tuple(
        SurveyedProperty(
            iri=prop,
            instances_using=count,
            object_kinds=tuple(
                KindCount(kind=k, count=n)  # type: ignore[arg-type]  # keys are ObjectKind values
                for k, n in sorted(objects.get(prop, _Objects()).kinds.items())
            ),
            object_types=tuple(
                TypeCount(type_iri=t, count=n)
                for t, n in objects.get(prop, _Objects()).types.most_common(TYPES_PER_PROPERTY)
            ),
            untyped_objects=objects.get(prop, _Objects()).untyped,
            examples=tuple(examples.get(prop, ())),
        )
        for prop, count in usage.items()
    )
    return SurveyedClass(
        iri=cls,
        instances=instances,
        sampled=sampled,
        properties=properties,
        example_instances=tuple(instances_seen),
        graphs=graphs,
    )


def _beyond_sample(prober: Prober, cls: str, members: str, skip_types: str, seen: dict[str, int]) -> list[str]:
    """Properties only instances outside the sample use (Brick: ``sh:sparql`` on 3 of 1,750 shapes).

    One DISTINCT probe over the class's first :attr:`SurveyLimits.beyond_instances` instances (every
    instance, before issue 39: the read grew with the class), bounded by LIMIT and the probe's deadline;
    a timeout is recorded and the sampled properties stand. Their sampled users are 0.
    """
    limit = prober.limits.max_properties
    scanned = f"{{ SELECT DISTINCT ?s WHERE {{ {members} }} LIMIT {prober.limits.beyond_instances} }}"
    rows = prober.select(
        "SELECT DISTINCT ?p",
        f"{scanned} ?s ?p ?o FILTER(?p NOT IN ({skip_types}))",
        limit=limit + len(seen),
        what=f"properties of {cls} beyond the sample",
    )
    found = [row["p"].value for row in rows or () if "p" in row and row["p"].value not in seen]
    return sorted(found)[: limit - len(seen)]


@dataclass(slots=True)
class _Objects:
    """Sampled objects of one property: distinct counts by kind and by type, and untyped resources."""

    kinds: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    untyped: int = 0


def _object_profile(prober: Prober, cls: str, sample: str, type_path: str, props: list[str]) -> dict[str, _Objects]:
    """Per property: distinct sampled objects by kind, and by class (IRIs) or datatype (literals)."""
    rows = prober.select(
        "SELECT ?p ?k ?t (COUNT(DISTINCT ?o) AS ?n)",
        f"{sample} ?s ?p ?o FILTER(?p IN ({_iri_list(props)})) "
        f"OPTIONAL {{ ?o {type_path} ?ot FILTER(isIRI(?ot)) }} {_KIND} BIND(COALESCE(?ot, datatype(?o)) AS ?t)",
        tail="GROUP BY ?p ?k ?t ORDER BY ?p DESC(?n)",
        limit=len(props) * TYPES_PER_PROPERTY,
        what=f"object kinds and types of {cls}'s properties",
    )
    found: dict[str, _Objects] = {}
    typed_most: dict[tuple[str, str], int] = {}
    for row in rows or ():
        count = prober.count(row, "n", f"object kinds of {cls}'s properties")
        if count is None or "p" not in row or "k" not in row:
            continue
        prop, kind = row["p"].value, row["k"].value
        entry = found.setdefault(prop, _Objects())
        if "t" in row:
            entry.types[row["t"].value] += count
        if kind in ("literal", "lang"):
            entry.kinds[kind] += count
        elif "t" not in row:
            entry.kinds[kind] += count
            entry.untyped += count
        else:
            # A resource with two types is counted under each: its kind counts it once (at least).
            typed_most[(prop, kind)] = max(typed_most.get((prop, kind), 0), count)
    for (prop, kind), count in typed_most.items():
        found[prop].kinds[kind] += count
    return found


def _examples(prober: Prober, cls: str, type_path: str, props: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """A few objects per property and a few instance IRIs, from the first instances of the class."""
    limits = prober.limits
    members = f"?s {type_path} {iri(cls)} FILTER(isIRI(?s))"
    few = f"{{ SELECT DISTINCT ?s WHERE {{ {members} }} LIMIT {limits.example_instances} }}"
    where = f"{few} OPTIONAL {{ ?s ?p ?o FILTER(?p IN ({_iri_list(props)})) }}" if props else few
    rows = prober.select(
        "SELECT ?s ?p ?o",
        where,
        limit=limits.example_instances * max(len(props), 1) * 2,
        what=f"example values of {cls}",
    )
    examples: dict[str, list[str]] = {}
    instances: list[str] = []
    for row in rows or ():
        if "s" not in row:
            continue
        if row["s"].value not in instances:
            instances.append(row["s"].value)
        if "p" in row and "o" in row and row["o"].kind != "bnode":
            found = examples.setdefault(row["p"].value, [])
            text = row["o"].n3()[:_EXAMPLE_CHARS]
            if len(found) < limits.examples_per_property and text not in found:
                found.append(text)
    return examples, instances


def _iri_list(iris: Sequence[str]) -> str:
    """Escaped IRIs for ``FILTER(?p IN (…))``.

    Not ``VALUES ?p {…}``: joined with a sample subquery, the embedded engine evaluated
    ``?s ?p ?o`` over the whole graph before the join (4.7 s and 1.3 GB per probe at 5M
    triples); a filter keeps the pattern anchored on the sampled subjects (issue 27).
    """
    return ", ".join(iri(value) for value in iris)


def _example_query(cls: SurveyedClass, type_predicate: str, scope: Sequence[str]) -> str:
    """Instances of the class with the value of its most used property, in the survey's graphs."""
    if cls.properties:
        head, pattern = "?s ?value", f"?s {iri(type_predicate)} {iri(cls.iri)} ; {iri(cls.properties[0].iri)} ?value"
    else:
        head, pattern = "?s", f"?s {iri(type_predicate)} {iri(cls.iri)}"
    if scope:
        pattern = f"GRAPH ?g {{ {pattern} }} {values_clause('g', scope)}"
    return f"SELECT {head} WHERE {{ {pattern} }} LIMIT 5"


def _parents(prober: Prober, classes: list[str]) -> dict[str, set[str]]:
    """Subclass links between the graph's classes, where the data states them."""
    if not classes:
        return {}
    rows = prober.select(
        "SELECT ?c ?parent",
        f"{values_clause('c', classes)} ?c {iri(RDFS_SUBCLASS_OF)} ?parent FILTER(isIRI(?parent))",
        limit=len(classes) * 20,
        what="superclasses of the surveyed classes",
    )
    parents: dict[str, set[str]] = {}
    for row in rows or ():
        if "parent" in row and "c" in row and row["parent"].value != row["c"].value:
            parents.setdefault(row["c"].value, set()).add(row["parent"].value)
    return parents
