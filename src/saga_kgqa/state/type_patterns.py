"""Type evidence from the patterns of a (partial) SPARQL query, read from rdflib's algebra.

A pattern types its subject when its predicate is a type predicate, or a path that
starts with one and continues with subclass predicates, and its object is a class:

* ``?x rdf:type C`` and ``?x a C``; ``?x wdt:P31 C`` (with Wikidata's predicates);
* ``?x wdt:P31/wdt:P279* C`` (and ``/wdt:P279+``, ``/wdt:P279``): an instance of C
  in the subclass-closure sense; ``C ^rdf:type ?x`` (inverse path);
* constants as subject (``wd:Q42 wdt:P31 wd:Q5``) type the entity;
* a class variable bound by ``VALUES ?c { C1 C2 }`` gives the alternatives C1, C2.

Only patterns that every solution must satisfy count:

* required patterns, ``FILTER EXISTS`` and patterns in both branches of a UNION (the
  union of the two branches' types: any one of them may hold);
* not ``OPTIONAL`` (a solution need not match it), ``MINUS`` or ``FILTER NOT EXISTS``;
  nor ``SERVICE`` (another graph);
* in a subquery, only for the variables it projects (the others are local to it).

A variable's types are alternatives, as everywhere in Θ: compatibility asks whether
*any* known type fits, so reading a UNION as "C1 or C2" is sound.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rdflib.paths import AlternativePath, InvPath, MulPath, Path, SequencePath
from rdflib.plugins.sparql.algebra import translateGroupGraphPattern
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import BNode, URIRef, Variable

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard.sparql_algebra import GROUPING, SOLUTION_MODIFIERS, iter_nodes, parse_algebra
from saga_kgqa.kg.guard.sparql_terms import unescape_local_name
from saga_kgqa.schema.vocab import DEFAULT_SUBCLASS_PREDICATES, DEFAULT_TYPE_PREDICATES
from saga_kgqa.state.type_state import TypeEvidence, TypeState, type_state_of

# key -> {(class IRI, rendered pattern)}
_Found = dict[str, set[tuple[str, str]]]

# A slice, a grouping and GRAPH keep the types their pattern guarantees.
_PASS_THROUGH = SOLUTION_MODIFIERS | {"Slice", "Graph"} | GROUPING


def extract_type_patterns(
    sparql: str,
    *,
    type_predicates: Iterable[str] = DEFAULT_TYPE_PREDICATES,
    subclass_predicates: Iterable[str] = DEFAULT_SUBCLASS_PREDICATES,
    prefixes: Mapping[str, str] | None = None,
    step: int | None = None,
) -> TypeState:
    """Return the types a query's patterns assert for its variables and constants.

    Args:
        sparql: The (partial) query.
        type_predicates: Full IRIs linking an instance to its class (``rdf:type``, ``wdt:P31``).
        subclass_predicates: Full IRIs linking a class to a superclass (``rdfs:subClassOf``, ``wdt:P279``).
        prefixes: Prefixes assumed when the query does not declare them.
        step: The agent step, recorded on every evidence item.

    Returns:
        A Θ delta with provenance ``pattern``; keys are ``?var`` names and entity IRIs.

    Raises:
        QueryRejected: The text does not parse, or nests too deeply to analyse.
    """
    root = parse_algebra(sparql, prefixes)
    return type_patterns_in(root, type_predicates=type_predicates, subclass_predicates=subclass_predicates, step=step)


def type_patterns_in(
    root: CompValue,
    *,
    type_predicates: Iterable[str] = DEFAULT_TYPE_PREDICATES,
    subclass_predicates: Iterable[str] = DEFAULT_SUBCLASS_PREDICATES,
    step: int | None = None,
) -> TypeState:
    """Like :func:`extract_type_patterns`, for a query already parsed with :func:`parse_algebra`.

    Raises:
        QueryRejected: The algebra nests too deeply to analyse.
    """
    walker = _Walker(frozenset(type_predicates), frozenset(subclass_predicates), _values_bindings(root))
    try:
        found = walker.walk(root)
    except RecursionError:
        raise QueryRejected("the query is nested too deeply to analyse", reason="too_complex") from None
    return type_state_of(
        {
            key: [TypeEvidence(type_iri=cls, provenance="pattern", step=step, detail=text) for cls, text in items]
            for key, items in found.items()
        }
    )


class _Walker:
    """Computes, bottom-up, the types each node of the algebra guarantees."""

    def __init__(self, types: frozenset[str], subclasses: frozenset[str], values: dict[str, frozenset[str]]) -> None:
        self._types = types
        self._subclasses = subclasses
        self._values = values

    def walk(self, node: Any) -> _Found:
        if not isinstance(node, CompValue):
            return {}
        name = node.name
        if name == "BGP":
            return self._triples(node.triples)
        if name in _PASS_THROUGH:
            return self.walk(node.p)
        if name == "Join":
            return _both(self.walk(node.p1), self.walk(node.p2))
        if name in ("LeftJoin", "Minus"):
            return self.walk(node.p1)
        if name == "Union":
            return _either(self.walk(node.p1), self.walk(node.p2))
        if name == "Filter":
            return _both(self.walk(node.p), self._filter(node.expr))
        if name == "ToMultiSet":
            return self._subquery(node.p)
        # values, ServiceGraphPattern and anything unknown guarantee nothing.
        return {}

    def _subquery(self, node: Any) -> _Found:
        found = self.walk(node)
        if isinstance(node, CompValue) and node.name == "Project":
            visible = {f"?{v}" for v in node.PV}
            return {k: v for k, v in found.items() if not k.startswith("?") or k in visible}
        return found

    def _filter(self, expr: Any) -> _Found:
        """Types guaranteed by ``FILTER EXISTS {...}``, alone or in a top-level ``&&``."""
        if not isinstance(expr, CompValue):
            return {}
        if expr.name == "Builtin_EXISTS":
            graph = expr.graph
            if isinstance(graph, CompValue) and graph.name == "GroupGraphPatternSub":
                graph = translateGroupGraphPattern(graph)
            return self.walk(graph)
        if expr.name == "ConditionalAndExpression":
            found = self._filter(expr.expr)
            for other in expr.other or ():
                found = _both(found, self._filter(other))
            return found
        return {}

    def _triples(self, triples: Iterable[tuple[Any, Any, Any]]) -> _Found:
        found: _Found = {}
        for subject, predicate, obj in triples:
            if isinstance(predicate, InvPath) and self._is_type_path(predicate.arg):
                instance, cls = obj, subject
            elif self._is_type_path(predicate):
                instance, cls = subject, obj
            else:
                continue
            key = _key(instance)
            if key is None:
                continue
            text = f"{_render(subject)} {_render(predicate)} {_render(obj)}"
            for class_iri in self._classes(cls):
                found.setdefault(key, set()).add((class_iri, text))
        return found

    def _classes(self, term: Any) -> frozenset[str]:
        if isinstance(term, URIRef):
            return frozenset({unescape_local_name(str(term))})
        if isinstance(term, Variable):
            return self._values.get(str(term), frozenset())
        return frozenset()

    def _is_type_path(self, path: Any) -> bool:
        """A type predicate, an alternative of them, or one followed by subclass steps."""
        if isinstance(path, URIRef):
            return unescape_local_name(str(path)) in self._types
        if isinstance(path, AlternativePath):
            return all(self._is_type_path(arg) for arg in path.args)
        if isinstance(path, SequencePath):
            head, *tail = path.args
            return self._is_type_path(head) and all(self._is_subclass_path(arg) for arg in tail)
        return False

    def _is_subclass_path(self, path: Any) -> bool:
        if isinstance(path, URIRef):
            return unescape_local_name(str(path)) in self._subclasses
        if isinstance(path, MulPath):
            return self._is_subclass_path(path.path)
        if isinstance(path, (AlternativePath, SequencePath)):
            return all(self._is_subclass_path(arg) for arg in path.args)
        return False


def _both(left: _Found, right: _Found) -> _Found:
    """Conjunction: every key of either side, with the types of both."""
    merged = {k: set(v) for k, v in left.items()}
    for key, items in right.items():
        merged.setdefault(key, set()).update(items)
    return merged


def _either(left: _Found, right: _Found) -> _Found:
    """Disjunction: only keys typed on both sides, with the types of either (alternatives)."""
    return {key: left[key] | right[key] for key in left.keys() & right.keys()}


def _values_bindings(root: CompValue) -> dict[str, frozenset[str]]:
    """Variables that every row of a VALUES block binds to an IRI, with those IRIs.

    VALUES scope is simplified to the whole query: a class variable named in a VALUES
    block anywhere takes all its listed classes as alternatives.
    """
    bindings: dict[str, set[str]] = {}
    for node in iter_nodes(root):
        if node.name != "values" or not node.res:
            continue
        rows = node.res
        for variable in {v for row in rows for v in row}:
            values = [row.get(variable) for row in rows]
            if all(isinstance(v, URIRef) for v in values):
                bindings.setdefault(str(variable), set()).update(unescape_local_name(str(v)) for v in values)
    return {k: frozenset(v) for k, v in bindings.items()}


def _key(term: Any) -> str | None:
    if isinstance(term, Variable):
        return f"?{term}"
    if isinstance(term, URIRef):
        return unescape_local_name(str(term))
    return None  # blank nodes and literals cannot be looked up later


def _render(term: Any) -> str:
    if isinstance(term, Variable):
        return f"?{term}"
    if isinstance(term, URIRef):
        return f"<{unescape_local_name(str(term))}>"
    if isinstance(term, InvPath):
        return "^" + _render(term.arg)
    if isinstance(term, MulPath):
        return _render(term.path) + str(term.mod)
    if isinstance(term, SequencePath):
        return "/".join(_render(arg) for arg in term.args)
    if isinstance(term, AlternativePath):
        return "(" + "|".join(_render(arg) for arg in term.args) + ")"
    if isinstance(term, BNode):
        return "[]"
    return term.n3() if isinstance(term, Path) else str(term)
