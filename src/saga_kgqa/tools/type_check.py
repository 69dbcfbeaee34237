"""The pre-execution type check: find triple patterns whose property cannot apply to the subject's type.

A pattern ``s p o`` is a known conflict when the types of ``s`` are known and the
schema index says they are incompatible with the domain of ``p`` (and, for an object of
known type, with its range). Types come from:

* a constant's types declared in the graph (one bounded VALUES query for all constants);
* a variable's type patterns in the same query (``?x a C``, see :mod:`saga_kgqa.state.type_patterns`);
* otherwise the type state Θ of earlier steps (``declared``, ``pattern`` and ``trace``
  evidence; the answer-type prior is a bias, never grounds to block).

Which patterns count, so that a blocked query is one that could never return a row from
the blocked part:

* required patterns: the top-level group, both sides of a join, the left side of
  OPTIONAL and MINUS, the group a FILTER applies to, and subqueries;
* an OPTIONAL part, a MINUS or FILTER (NOT) EXISTS group, GRAPH and SERVICE groups are
  never checked (a conflict there does not empty the result);
* a UNION blocks only when every branch has a conflict;
* inside a subquery, a variable is identified with the outer one only when every
  subquery level projects it; other variables are local and treated as untyped.

With ``verify`` (the default), a conflict is confirmed with one bounded ASK before it
blocks: if the graph holds any triple of that property whose subject (or object) has
the known types, the schema is wrong for this graph and the query is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from rdflib.paths import InvPath, SequencePath
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import Literal as RdfLiteral
from rdflib.term import URIRef, Variable

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.algebra_text import AlgebraTextError, AlgebraWriter, Triple
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.sparql_algebra import iter_triple_patterns, unescape_local_name
from saga_kgqa.kg.sparql_terms import iri
from saga_kgqa.schema import CompatibilityMode, SchemaIndex, SchemaSource, Verdict
from saga_kgqa.schema.vocab import is_datatype, literal_type
from saga_kgqa.state import TypeProvenance, TypeState
from saga_kgqa.tools.execute_text import display_writer
from saga_kgqa.tools.graph_access import ask, fetch_types, instance_of, usable_iris
from saga_kgqa.tools.text_safety import graph_text

Side = Literal["subject", "object"]
TypesOrigin = Literal["graph", "query", "type_state", "literal"]

#: Θ evidence that may justify a block (the answer prior only biases).
BLOCKING_PROVENANCES: tuple[TypeProvenance, ...] = ("declared", "pattern", "trace")

# Nodes that only modify the solutions of the pattern below them.
_PASS_THROUGH = frozenset(
    {"SelectQuery", "AskQuery", "ConstructQuery", "DescribeQuery", "Slice", "Distinct", "Reduced", "OrderBy"}
)
_WHERE_PASS_THROUGH = frozenset({"Extend", "Group", "AggregateJoin", "Filter", "Project"})


class BlockedPattern(BaseModel):
    """One triple pattern that contradicts what is known about its subject's (or object's) type.

    Attributes:
        pattern: The pattern as written for display (prefixed names).
        side: ``subject`` (a domain conflict) or ``object`` (a range conflict).
        term: The subject or object, for display.
        term_types: Its known types.
        types_from: Where those types came from.
        property_iri: The property.
        constraint: The property's domain (or range).
        constraint_source: Where the domain (or range) came from.
        reason: The compatibility verdict's sentence.
        verified: True when a graph query confirmed that no such triple exists.
    """

    model_config = ConfigDict(frozen=True)

    pattern: str
    side: Side
    term: str
    term_types: tuple[str, ...]
    types_from: TypesOrigin
    property_iri: str
    constraint: tuple[str, ...]
    constraint_source: SchemaSource
    reason: str
    verified: bool


class TypeCheckReport(BaseModel):
    """What the pre-execution type check found.

    Attributes:
        blocked: The conflicting patterns (empty: the query may run).
        checked: Patterns whose subject or object had known types and a known constraint.
        constant_types: Declared types read from the graph for the query's constants.
        overruled: Conflicts the schema predicted but the graph contradicted (not blocked).
        notes: Remarks (a helper query failed, too many constants, ...).
    """

    model_config = ConfigDict(frozen=True)

    blocked: tuple[BlockedPattern, ...] = ()
    checked: int = 0
    constant_types: dict[str, frozenset[str]] = {}
    overruled: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TypeCheckSettings:
    """Knobs of the pre-execution type check.

    Attributes:
        mode: ``subclass`` (subclass-aware, default) or ``exact`` (the paper's intersection).
        check_ranges: Also check objects of known type against the property's range.
        verify: Confirm each conflict with one bounded ASK before blocking.
        block_sources: Schema sources trusted to block (formal, induced, surveyed).
        max_constants: Most constants whose types are read from the graph.
        deadline_s: Budget of each helper query.
        unplaced_types_block: Let a term block even when one of its types has no known
            place in the hierarchy (:meth:`SchemaIndex.placed_classes`). Off for graphs whose
            hierarchy is mostly missing (offline Wikidata): such a type may be a subclass
            of the domain, so the conflict is not certain.
        plain_literals_typed: Read a plain literal constant (``"33"``) as ``xsd:string``.
            Off for stores that match plain strings against typed values (the Virtuoso
            Freebase behind CWQ answers ``presidency_number "33"``).
    """

    mode: CompatibilityMode = "subclass"
    check_ranges: bool = True
    verify: bool = True
    block_sources: frozenset[SchemaSource] = frozenset({"formal", "induced", "surveyed"})
    unplaced_types_block: bool = True
    plain_literals_typed: bool = True
    max_constants: int = 50
    deadline_s: float = 5.0


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
        root: The query's algebra (:func:`saga_kgqa.kg.sparql_algebra.parse_algebra`).
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
                graph, constants, type_predicates=schema.type_predicates, deadline_s=settings.deadline_s
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
    blocked = _walk(root, context, visible=None, top=True) if schema.properties else []
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


def _walk(node: Any, context: _Context, *, visible: frozenset[str] | None, top: bool) -> list[BlockedPattern]:
    """Conflicts that empty ``node``'s solutions (see the module docstring for the rules)."""
    if not isinstance(node, CompValue):
        return []
    name = node.name
    if name in _PASS_THROUGH:
        return _walk(node.p, context, visible=visible, top=top)
    if name == "Project":
        # The query's own projection does not scope its WHERE clause; a subquery's does.
        inner = visible
        if not top:
            projected = frozenset(str(v) for v in node.PV or [])
            inner = projected if visible is None else visible & projected
        return _walk(node.p, context, visible=inner, top=False)
    if name in _WHERE_PASS_THROUGH:
        return _walk(node.p, context, visible=visible, top=False)
    if name == "BGP":
        return [found for triple in node.triples if (found := _check_triple(triple, context, visible)) is not None]
    if name == "Join":
        return _walk(node.p1, context, visible=visible, top=False) + _walk(node.p2, context, visible=visible, top=False)
    if name in ("LeftJoin", "Minus"):
        return _walk(node.p1, context, visible=visible, top=False)
    if name == "Union":
        left = _walk(node.p1, context, visible=visible, top=False)
        right = _walk(node.p2, context, visible=visible, top=False)
        return left + right if left and right else []
    if name == "ToMultiSet":
        return _walk(node.p, context, visible=visible, top=False)
    # values, Graph, ServiceGraphPattern and anything unknown: never grounds to block.
    return []


def _check_triple(triple: Triple, context: _Context, visible: frozenset[str] | None) -> BlockedPattern | None:
    subject, predicate, obj = triple
    if isinstance(predicate, InvPath) and isinstance(predicate.arg, URIRef):
        # s ^p o is o p s: the object meets the domain, the subject the range.
        subject, predicate, obj = obj, predicate.arg, subject
    prop = _first_property(predicate)
    if prop is None or prop in context.schema.type_predicates:
        return None
    found = _check_side(triple, "subject", subject, prop, context, visible)
    if found is None and context.settings.check_ranges and isinstance(predicate, URIRef):
        # Only a plain predicate: the object of a path is not the object of its first step.
        found = _check_side(triple, "object", obj, prop, context, visible)
    return found


def _check_side(
    triple: Triple, side: Side, term: Any, prop: str, context: _Context, visible: frozenset[str] | None
) -> BlockedPattern | None:
    types, origin = _known_types(term, context, visible)
    if not types:
        return None
    schema = context.schema
    if not context.settings.unplaced_types_block and any(
        not is_datatype(t) and t not in schema.placed_classes() for t in types
    ):
        return None  # an unplaced type could be a subclass of the constraint: nothing certain to check
    mode = context.settings.mode
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
        exists = _graph_has_match(side, term, types, origin, prop, context)
        if exists:
            context.overruled.append(pattern)
            return None
        verified = exists is False
    return BlockedPattern(
        pattern=pattern,
        side=side,
        term=_display_term(term, context.writer),
        term_types=tuple(sorted(types)),
        types_from=origin,
        property_iri=prop,
        constraint=tuple(sorted(constraint)),
        constraint_source=verdict.source,
        reason=verdict.reason,
        verified=verified,
    )


def _known_types(term: Any, context: _Context, visible: frozenset[str] | None) -> tuple[frozenset[str], TypesOrigin]:
    if isinstance(term, Variable):
        name = str(term)
        if visible is not None and name not in visible:
            return frozenset(), "query"  # local to a subquery: not the outer variable
        key = f"?{name}"
        from_query = context.pattern_types.types_of(key)
        if from_query:
            return from_query, "query"
        return context.theta.types_of(key, provenances=BLOCKING_PROVENANCES), "type_state"
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


def _graph_has_match(
    side: Side, term: Any, types: frozenset[str], origin: TypesOrigin, prop: str, context: _Context
) -> bool | None:
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
        return ask(context.graph, body, deadline_s=context.settings.deadline_s)
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
