"""Required patterns that can match nothing, found before a SELECT runs, each with what to use instead.

Real models write ``?x a C`` for a class with no direct instances (CK25's ``pv:Product``,
whose instances are typed with its subclasses ``pv:Hardware`` and ``pv:Service``) and
invent properties (``pv:supplier`` for ``pv:hasSupplier``). A *required* triple pattern
(not under OPTIONAL, UNION, MINUS or a FILTER) that the graph cannot match empties the
whole result, so the query is blocked with one bounded ASK as proof, and the block says:

* for a class without direct instances, its subclasses that have instances (or, when it
  is no class at all, the properties that point at it);
* for a property the graph never uses, the nearest existing properties by name.

ASK queries are never blocked (false is an answer), nor aggregates without GROUP BY (they
return a row of zeros over nothing).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import URIRef

from saga_kgqa.kg.guard.sparql_terms import iri, unescape_local_name
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.property_names import nearest_properties
from saga_kgqa.schema.queries import path_alternative
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.render import iri_text

#: Algebra nodes whose every child pattern must match for the node to yield a row.
_REQUIRED_CHILDREN = {
    "SelectQuery": ("p",),
    "Project": ("p",),
    "Distinct": ("p",),
    "Reduced": ("p",),
    "Slice": ("p",),
    "OrderBy": ("p",),
    "Extend": ("p",),
    "Filter": ("p",),
    "ToMultiSet": ("p",),
    "Graph": ("p",),
    "Join": ("p1", "p2"),
    "LeftJoin": ("p1",),
    "Minus": ("p1",),
}
_MOST_PATTERNS = 8
_SUGGESTIONS = 3


@dataclass(frozen=True, slots=True)
class VacuousPattern:
    """A required pattern the graph cannot match.

    Attributes:
        pattern: The pattern, for display.
        reason: Why it matches nothing.
        instead: What to use instead (display ids).
    """

    pattern: str
    reason: str
    instead: tuple[str, ...]


def required_triples(root: Any) -> list[tuple[Any, Any, Any]]:
    """Triple patterns every solution of a SELECT must match (empty for ASK or an implicit aggregate)."""
    if not isinstance(root, CompValue) or root.name != "SelectQuery":
        return []
    found: list[tuple[Any, Any, Any]] = []
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, CompValue):
            continue
        if node.name == "BGP":
            found.extend(tuple(t) for t in node.triples)
        elif node.name == "AggregateJoin":
            group = node.get("p")
            # Without GROUP BY an aggregate yields one row over no solutions: nothing below is required.
            if isinstance(group, CompValue) and group.name == "Group" and group.get("expr"):
                stack.append(group.get("p"))
        else:
            stack.extend(node.get(key) for key in _REQUIRED_CHILDREN.get(node.name, ()))
    return found


def vacuous_patterns(
    root: Any,
    reads: Reads,
    schema: SchemaIndex,
    type_predicates: Iterable[str],
    subclass_predicates: Iterable[str],
    prefixes: Mapping[str, str],
) -> list[VacuousPattern]:
    """The required patterns of a SELECT that the graph cannot match (bounded ASKs, at most a few)."""
    types = frozenset(type_predicates)
    subclass = tuple(subclass_predicates)
    found: list[VacuousPattern] = []
    seen: set[tuple[str, str]] = set()
    for subject, predicate, obj in required_triples(root)[: _MOST_PATTERNS * 4]:
        if not isinstance(predicate, URIRef) or len(seen) >= _MOST_PATTERNS:
            continue
        prop = unescape_local_name(str(predicate))
        if prop in types and isinstance(obj, URIRef):
            cls = unescape_local_name(str(obj))
            if ("class", cls) in seen:
                continue
            seen.add(("class", cls))
            if not reads.ask(f"?x {iri(prop)} {iri(cls)}"):
                found.append(_empty_class(reads, cls, prop, subclass, _show(subject, prefixes), prefixes))
        elif prop not in types:
            if ("property", prop) in seen:
                continue
            seen.add(("property", prop))
            if not reads.ask(f"?s {iri(prop)} ?o"):
                found.append(_unused_property(reads, schema, prop, _show(subject, prefixes), prefixes))
    return found


def vacuous_text(found: list[VacuousPattern]) -> str:
    """The [BLOCKED] observation for patterns that match nothing."""
    count = len(found)
    lines = [f"[BLOCKED] Not run: {count} required pattern{'s' if count > 1 else ''} can match nothing in the graph."]
    for item in found:
        line = f"- `{item.pattern}`: {item.reason}."
        if item.instead:
            line += f" Use instead: {', '.join(item.instead)}."
        lines.append(line)
    return "\n".join(lines)


def _empty_class(
    reads: Reads, cls: str, prop: str, subclass: tuple[str, ...], subject: str, prefixes: Mapping[str, str]
) -> VacuousPattern:
    pattern = f"{subject} {iri_text(prop, prefixes)} {iri_text(cls, prefixes)}"
    name = iri_text(cls, prefixes)
    subs: list[str] = []
    if subclass:
        rows = reads.select(
            f"SELECT DISTINCT ?sub WHERE {{ ?sub ({path_alternative(subclass)})+ {iri(cls)} . "
            f"FILTER EXISTS {{ ?i {iri(prop)} ?sub }} }}",
            limit=10,
        ).rows
        subs = sorted(iri_text(row["sub"].value, prefixes) for row in rows if "sub" in row)
    if subs:
        return VacuousPattern(
            pattern, f"{name} has no direct instances; its subclasses {', '.join(subs)} have", tuple(subs)
        )
    rows = reads.select(f"SELECT DISTINCT ?p WHERE {{ ?s ?p {iri(cls)} }}", limit=5).rows
    pointing = sorted(iri_text(row["p"].value, prefixes) for row in rows if "p" in row)
    if pointing:
        return VacuousPattern(
            pattern,
            f"{name} has no instances: it is not a class here but the value of {', '.join(pointing)}",
            tuple(f"?x {p} {name}" for p in pointing[:_SUGGESTIONS]),
        )
    return VacuousPattern(pattern, f"{name} has no instances and nothing points at it", ())


def _unused_property(
    reads: Reads, schema: SchemaIndex, prop: str, subject: str, prefixes: Mapping[str, str]
) -> VacuousPattern:
    pattern = f"{subject} {iri_text(prop, prefixes)} …"
    name = iri_text(prop, prefixes)
    close = nearest_properties(schema, prop, limit=_SUGGESTIONS * 2)
    used = [iri_text(p, prefixes) for p in close if reads.ask(f"?s {iri(p)} ?o")][:_SUGGESTIONS]
    where = "is declared but never used" if prop in schema.properties else "occurs nowhere in the graph"
    reason = f"{name} {where}" + (f"; the nearest existing properties are {', '.join(used)}" if used else "")
    return VacuousPattern(pattern, reason, tuple(used))


def _show(term: Any, prefixes: Mapping[str, str]) -> str:
    if isinstance(term, URIRef):
        return iri_text(str(term), prefixes)
    return f"?{term}" if term.__class__.__name__ == "Variable" else str(term)
