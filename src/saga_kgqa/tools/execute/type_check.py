"""The pre-execution type check: find triple patterns whose property cannot apply to the subject's type.

A pattern ``s p o`` is a known conflict when the types of ``s`` are known and the
schema index says they are incompatible with the domain of ``p`` (and, for an object of
known type, with its range). Types come from:

* a constant's types declared in the graph (one bounded VALUES query for all constants);
* a variable's type patterns in the same query (``?x a C``, see :mod:`saga_kgqa.state.type_patterns`);
* otherwise the type state Θ of earlier steps (``declared``, ``pattern`` and ``trace``
  evidence; the answer-type prior is a bias, never grounds to block).

Which patterns count, and in which variable scope (a subquery's own), is decided by
:mod:`saga_kgqa.tools.execute.type_scopes`: a blocked query is one that could never return a
row from the blocked part.

The middle node of a sequence path ``?x p/q ?y`` has no name in the query; when ``p``
has a formal range made of classes, the node is typed by it and checked against the
domain of ``q``, always subclass-aware (an instance of the range may belong to any of
its subclasses), and only while formal sources are trusted to block.

A constraint blocks only when its source is in ``block_sources``; a term with a type the
index cannot place in its hierarchy blocks only with ``unplaced_types_block``; plain
literals count as ``xsd:string`` only with ``plain_literals_typed``
(:class:`~saga_kgqa.tools.execute.type_check_models.TypeCheckSettings`).

With ``verify`` (the default), a conflict is confirmed with one bounded ASK before it
blocks: if the graph holds any triple of that property whose subject (or object) has
the known types, the schema is wrong for this graph and the query is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib.paths import InvPath, SequencePath
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Literal as RdfLiteral
from rdflib.term import URIRef, Variable

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.guard.algebra_text import AlgebraTextError, AlgebraWriter, Triple
from saga_kgqa.kg.guard.sparql_algebra import iter_triple_patterns
from saga_kgqa.kg.guard.sparql_terms import iri, unescape_local_name
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex, Verdict
from saga_kgqa.schema.vocab import RDFS_DATATYPE, RDFS_LITERAL, UNIVERSAL_CLASSES, XSD, XSD_PARENTS, literal_type
from saga_kgqa.state import TypeProvenance, TypeState
from saga_kgqa.text_safety import display_writer, graph_text
from saga_kgqa.tools.execute.graph_access import ask, fetch_types, instance_of, usable_iris
from saga_kgqa.tools.execute.type_check_models import (
    BlockedPattern,
    Side,
    TypeCheckReport,
    TypeCheckSettings,
    TypesOrigin,
)
from saga_kgqa.tools.execute.type_scopes import RequiredPatternWalk, VariableScope

__all__ = [
    "BLOCKING_PROVENANCES",
    "BlockedPattern",
    "Side",
    "TypeCheckReport",
    "TypeCheckSettings",
    "TypesOrigin",
    "check_query_types",
]

#: Θ evidence that may justify a block (the answer prior only biases).
BLOCKING_PROVENANCES: tuple[TypeProvenance, ...] = ("declared", "pattern", "trace")

# The unnamed middle node of a sequence path, as the subject of the confirming ASK.
_PATH_NODE = Variable("path_node")


@dataclass(slots=True)
class _Context:
    graph: KnowledgeGraph
    schema: SchemaIndex
    settings: TypeCheckSettings
    pattern_types: TypeState
    theta: TypeState
    constant_types: Mapping[str, frozenset[str]]
    writer: AlgebraWriter
    checked: int = 0
    overruled: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_query_types(
    root: CompValue,
    *,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    theta: TypeState,
    pattern_types: TypeState,
    display_prefixes: Mapping[str, str],
    settings: TypeCheckSettings | None = None,
) -> TypeCheckReport:
    """Check every required triple pattern of a parsed query against the schema.

    Args:
        root: The query's algebra (:func:`saga_kgqa.kg.guard.sparql_algebra.parse_algebra`).
        graph: The graph, for constants' declared types and the verification ASKs.
        schema: The schema index.
        theta: The type state of earlier steps.
        pattern_types: The query's own type patterns (:func:`saga_kgqa.state.extract_type_patterns`).
        display_prefixes: Prefixes used to name patterns in the report.
        settings: Mode and limits.

    Returns:
        The report; ``blocked`` is empty when the query may run.
    """
    settings = settings or TypeCheckSettings()
    notes: list[str] = []
    schema_predicates = frozenset(schema.type_predicates) | frozenset(schema.subclass_predicates)
    constants = _constants(root, schema_predicates, settings.max_constants, notes)
    constant_types: dict[str, frozenset[str]] = {}
    if constants and schema.properties:
        try:
            constant_types = fetch_types(
                graph, constants, type_predicates=schema.type_predicates, deadline_s=settings.probe_deadline_s()
            )
        except BackendError as exc:
            notes.append(f"could not read the types of the query's constants ({type(exc).__name__})")
    context = _Context(
        graph=graph,
        schema=schema,
        settings=settings,
        pattern_types=pattern_types,
        theta=theta,
        constant_types=constant_types,
        writer=display_writer(display_prefixes),
        notes=notes,
    )
    blocked: list[BlockedPattern] = []
    if schema.properties:
        walk = RequiredPatternWalk(
            lambda triple, scope: _check_triple(triple, context, scope),
            type_predicates=schema.type_predicates,
            subclass_predicates=schema.subclass_predicates,
        )
        blocked = walk.conflicts(root, VariableScope(pattern_types=pattern_types))
    return TypeCheckReport(
        blocked=tuple(blocked),
        checked=context.checked,
        constant_types=constant_types,
        overruled=tuple(context.overruled),
        notes=tuple(context.notes),
    )


def _constants(root: CompValue, schema_predicates: frozenset[str], limit: int, notes: list[str]) -> list[str]:
    """IRIs in subject or object position of any pattern, first seen first, at most ``limit``.

    The classes in ``?x a C`` are left out: their own types (``owl:Class``) say nothing
    about the query and would only clutter Θ.
    """
    terms: list[Any] = []
    for subject, predicate, obj in iter_triple_patterns(root):
        terms.append(subject)
        if not (isinstance(predicate, URIRef) and unescape_local_name(str(predicate)) in schema_predicates):
            terms.append(obj)
    found = usable_iris(unescape_local_name(str(term)) for term in terms if isinstance(term, URIRef))
    if len(found) > limit:
        notes.append(f"only the first {limit} of {len(found)} constants were type-checked")
    return found[:limit]


def _check_triple(triple: Triple, context: _Context, scope: VariableScope) -> BlockedPattern | None:
    subject, predicate, obj = triple
    if isinstance(predicate, InvPath) and isinstance(predicate.arg, URIRef):
        # s ^p o is o p s: the object meets the domain, the subject the range.
        subject, predicate, obj = obj, predicate.arg, subject
    prop = _first_property(predicate)
    found = None
    if prop is not None and prop not in context.schema.type_predicates:
        found = _check_side(triple, "subject", subject, prop, context, scope)
        if found is None and context.settings.check_ranges and isinstance(predicate, URIRef):
            # Only a plain predicate: the object of a path is not the object of its first step.
            found = _check_side(triple, "object", obj, prop, context, scope)
    if found is None and isinstance(predicate, SequencePath):
        found = _check_path_nodes(triple, predicate, context)
    return found


def _check_side(
    triple: Triple, side: Side, term: Any, prop: str, context: _Context, scope: VariableScope
) -> BlockedPattern | None:
    types, origin = _known_types(term, context, scope)
    if not types:
        return None
    shown = _display_term(term, context.writer)
    return _conflict(triple, side, term, shown, types, origin, prop, context, context.settings.mode)


def _check_path_nodes(triple: Triple, path: SequencePath, context: _Context) -> BlockedPattern | None:
    """Check each middle node of ``p1/p2/...``, typed by the formal class range of the step before it."""
    schema = context.schema
    schema_predicates = frozenset(schema.type_predicates) | frozenset(schema.subclass_predicates)
    for before, step in zip(path.args, path.args[1:], strict=False):
        if not (isinstance(before, URIRef) and isinstance(step, URIRef)):
            continue  # an inverse, alternative or repeated step: its node is not typed here
        previous, prop = unescape_local_name(str(before)), unescape_local_name(str(step))
        if previous in schema_predicates or prop in schema_predicates:
            continue  # a type path (rdf:type/rdfs:subClassOf) walks classes, not instances
        types = _class_range(previous, schema, context.settings)
        if not types:
            continue
        shown = f"the object of {_display_term(before, context.writer)}"
        # Subclass-aware whatever the mode: the node may be an instance of any subclass of the range.
        found = _conflict(triple, "subject", _PATH_NODE, shown, types, "range", prop, context, "subclass")
        if found is not None:
            return found
    return None


def _class_range(prop: str, schema: SchemaIndex, settings: TypeCheckSettings) -> frozenset[str]:
    """The formal range of a property when it is made of classes only (no datatypes, no universal class).

    Empty when formal ranges are not trusted to block (``settings.block_sources``): the
    node's types would rest on a source the check was told not to block on.
    """
    entry = schema.properties.get(prop)
    if entry is None or entry.range_source != "formal" or entry.range_relation != "instance" or entry.datatype:
        return frozenset()
    if entry.range_source not in settings.block_sources:
        return frozenset()
    classes = entry.range
    if any(_is_datatype(cls) or cls in UNIVERSAL_CLASSES for cls in classes):
        return frozenset()
    return classes


def _is_datatype(iri_text: str) -> bool:
    return iri_text.startswith(XSD) or iri_text in XSD_PARENTS or iri_text in (RDFS_LITERAL, RDFS_DATATYPE)


def _conflict(
    triple: Triple,
    side: Side,
    term: Any,
    shown: str,
    types: frozenset[str],
    origin: TypesOrigin,
    prop: str,
    context: _Context,
    mode: CompatibilityMode,
) -> BlockedPattern | None:
    """The block for one term of known types against one property's domain (range), if it conflicts."""
    schema = context.schema
    if not context.settings.unplaced_types_block and any(
        not _is_datatype(t) and t not in schema.placed_classes() for t in types
    ):
        return None  # an unplaced type could be a subclass of the constraint: nothing certain to check
    verdict: Verdict = (
        schema.compatibility(types, prop, mode=mode)
        if side == "subject"
        else schema.range_compatibility(types, prop, mode=mode)
    )
    if verdict.decision == "unknown":
        return None
    context.checked += 1
    if verdict.decision == "keep" or verdict.source not in context.settings.block_sources:
        return None
    entry = schema.properties[prop]
    constraint = entry.domain if side == "subject" else entry.range
    pattern = _display(triple, context.writer)
    verified = False
    if context.settings.verify:
        exists = _graph_has_match(side, term, types, prop, context)
        if exists:
            context.overruled.append(pattern)
            return None
        verified = exists is False
    return BlockedPattern(
        pattern=pattern,
        side=side,
        term=shown,
        term_types=tuple(sorted(types)),
        types_from=origin,
        property_iri=prop,
        constraint=tuple(sorted(constraint)),
        constraint_source=verdict.source,
        reason=verdict.reason,
        verified=verified,
    )


def _known_types(term: Any, context: _Context, scope: VariableScope) -> tuple[frozenset[str], TypesOrigin]:
    if isinstance(term, Variable):
        from_query, top_level = scope.types_of(str(term))
        if from_query:
            return from_query, "query"
        if not top_level:
            return frozenset(), "query"  # local to a subquery: earlier steps never saw it
        return context.theta.types_of(f"?{term}", provenances=BLOCKING_PROVENANCES), "type_state"
    if isinstance(term, URIRef):
        value = unescape_local_name(str(term))
        declared = context.constant_types.get(value, frozenset())
        extra = context.pattern_types.types_of(value) | context.theta.types_of(value, provenances=BLOCKING_PROVENANCES)
        if declared:
            return declared | extra, "graph"
        return extra, "query" if context.pattern_types.types_of(value) else "type_state"
    if isinstance(term, RdfLiteral):
        if term.datatype is None and not term.language and not context.settings.plain_literals_typed:
            return frozenset(), "literal"
        datatype = str(term.datatype) if term.datatype is not None else None
        return frozenset({literal_type(datatype, term.language)}), "literal"
    return frozenset(), "query"


def _graph_has_match(side: Side, term: Any, types: frozenset[str], prop: str, context: _Context) -> bool | None:
    """Whether the graph holds a ``prop`` triple whose subject (object) has these types; None: unknown."""
    schema = context.schema
    try:
        if isinstance(term, Variable):
            classes = usable_iris(sorted(types))
            if not classes:
                return None
            anchor = "s" if side == "subject" else "o"
            body = instance_of(
                anchor,
                classes,
                type_predicates=schema.type_predicates,
                subclass_predicates=schema.subclass_predicates,
            )
            body += f" ?s {iri(prop)} ?o ."
        else:
            fixed = AlgebraWriter().term(term)
            body = f"{fixed} {iri(prop)} ?o ." if side == "subject" else f"?s {iri(prop)} {fixed} ."
        return ask(context.graph, body, deadline_s=context.settings.probe_deadline_s())
    except (BackendError, AlgebraTextError) as exc:
        context.notes.append(f"could not confirm a conflict on <{prop}> ({type(exc).__name__}); blocked on the schema")
        return None


def _first_property(predicate: Any) -> str | None:
    """The property whose domain the subject must satisfy: a plain IRI, or a sequence's first IRI."""
    if isinstance(predicate, URIRef):
        return unescape_local_name(str(predicate))
    if isinstance(predicate, SequencePath) and predicate.args and isinstance(predicate.args[0], URIRef):
        return unescape_local_name(str(predicate.args[0]))
    return None


def _display(triple: Triple, writer: AlgebraWriter) -> str:
    try:
        return writer.triple(triple)
    except AlgebraTextError:
        return graph_text(" ".join(str(part) for part in triple))


def _display_term(term: Any, writer: AlgebraWriter) -> str:
    try:
        return writer.term(term)
    except AlgebraTextError:
        return graph_text(str(term))
