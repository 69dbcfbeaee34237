"""Curated Wikidata domains and ranges from the YAGO 4.5 SHACL schema (``yago45_schema``).

Each ``sh:NodeShape`` is a YAGO class drawn from Wikidata classes (``ys:fromClass``) and
holds ``sh:property`` shapes whose ``ys:fromProperty`` names the Wikidata properties they
come from. A property's domain is the shape holding it; its range is ``sh:class`` (or an
``sh:or`` of them). YAGO gives a shape every instance of its own Wikidata classes and of
those of its sub-shapes, so a shape maps to the ``ys:fromClass`` classes of itself and
all its sub-shapes. Two readings keep the index from being narrower than the truth:

* a root shape without Wikidata classes (``schema:Thing``) admits everything, so its
  properties get no domain, and a shape that maps to no class at all leaves the side
  unknown;
* datatype ranges (``sh:datatype``) describe YAGO's literals, not Wikidata's (YAGO says
  ``xsd:date`` where Wikidata has ``xsd:dateTime``), so a range that is not only classes
  is left out; the Wikibase datatype comes from the property metadata instead.

The file's ``@prefix`` IRIs lack their trailing ``#`` (``sh: <http://www.w3.org/ns/shacl>``),
which would turn ``sh:path`` into ``…shaclpath``; they are fixed before parsing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from rdflib.collection import Collection
from rdflib.term import Node

from saga_kgqa.errors import ConfigurationError

YAGO_FILE = "yago-schema.ttl"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
_SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
_YS = rdflib.Namespace("http://yago-knowledge.org/schema#")
_PREFIX_WITHOUT_HASH = re.compile(r"(@prefix\s+[\w-]*:\s*<)([^>]*[^#/>])(>)", flags=re.IGNORECASE)


@dataclass(slots=True)
class CuratedSchema:
    """Domains, ranges and class parents from one curated source, keyed by Wikidata IRIs.

    Attributes:
        name: The source's name, recorded as the origin of each domain and range.
        domains: Domain classes per direct property (``wdt:P57``), a union.
        ranges: Range classes per direct property, a union.
        parents: Superclasses per class.
        labels: Labels of classes.
        notes: What could not be mapped.
    """

    name: str
    domains: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    ranges: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    parents: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    labels: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def fix_prefixes(turtle: str) -> str:
    """Add the missing ``#`` to every ``@prefix`` IRI that ends neither in ``#`` nor ``/``."""
    return _PREFIX_WITHOUT_HASH.sub(lambda m: m.group(1) + m.group(2) + "#" + m.group(3), turtle)


def read_yago_schema(path: Path, *, name: str = "yago45_schema") -> CuratedSchema:
    """Read the Wikidata properties' domains and ranges, and the class hierarchy, from YAGO's shapes.

    Args:
        path: ``yago-schema.ttl``.
        name: Origin name recorded for what this file contributes.

    Raises:
        ConfigurationError: The file is missing or is not Turtle.
    """
    try:
        graph = rdflib.Graph().parse(data=fix_prefixes(path.read_text(encoding="utf-8")), format="turtle")
    except FileNotFoundError:
        raise ConfigurationError(f"YAGO schema not found: {path}") from None
    # rdflib raises IndexError (not BadSyntax) on input that ends mid-statement.
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, IndexError) as exc:
        raise ConfigurationError(f"cannot parse YAGO schema {path}: {exc}") from exc
    shapes = set(graph.subjects(rdflib.RDF.type, _SH.NodeShape))
    own = {shape: {str(c) for c in graph.objects(shape, _YS.fromClass) if str(c).startswith(WD)} for shape in shapes}
    children: dict[Node, set[Node]] = defaultdict(set)
    shape_parents: dict[Node, set[Node]] = defaultdict(set)
    for shape in shapes:
        for parent in graph.objects(shape, rdflib.RDFS.subClassOf):
            children[parent].add(shape)
            shape_parents[shape].add(parent)
    mapped = {shape: _descendant_classes(shape, own, children) for shape in shapes}
    schema = CuratedSchema(name=name)
    for shape in sorted(shapes, key=str):
        # A root shape with no Wikidata class of its own (schema:Thing) admits everything.
        universal = not shape_parents.get(shape) and not own[shape]
        for node in graph.objects(shape, _SH.property):
            _read_property_shape(graph, shape, node, mapped, universal, schema)
    for shape in shapes:
        above = _nearest_classes(shape, own, shape_parents)
        for cls in own[shape] if above else ():
            schema.parents[cls].update(above)
        label = graph.value(shape, rdflib.RDFS.label)
        for cls in own[shape]:
            if label is not None:
                schema.labels.setdefault(cls, str(label))
    return schema


def _descendant_classes(shape: Node, own: dict[Node, set[str]], children: dict[Node, set[Node]]) -> set[str]:
    found: set[str] = set()
    stack, seen = [shape], {shape}
    while stack:
        current = stack.pop()
        found |= own.get(current, set())
        for child in children.get(current, ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return found


def _nearest_classes(shape: Node, own: dict[Node, set[str]], shape_parents: dict[Node, set[Node]]) -> set[str]:
    """The Wikidata classes of the closest ancestor shapes that have some (the P279 stand-in)."""
    found: set[str] = set()
    stack, seen = list(shape_parents.get(shape, ())), {shape}
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if own.get(current):
            found |= own[current]
        else:
            stack.extend(shape_parents.get(current, ()))
    return found


def _read_property_shape(
    graph: rdflib.Graph,
    shape: Node,
    node: Node,
    mapped: dict[Node, set[str]],
    universal: bool,
    schema: CuratedSchema,
) -> None:
    properties = [str(p) for p in graph.objects(node, _YS.fromProperty) if str(p).startswith(WDT)]
    if not properties:
        return
    # A universal shape gives no domain; any other shape that maps to no class would give
    # an empty (everything-excluding) domain, so its side is left unknown.
    domain = set() if universal else mapped[shape]
    if not domain and not universal:
        schema.notes.append(f"{_local(shape)}: no Wikidata class; domain of {_names(properties)} left unknown")
    range_ = _range_classes(graph, node, mapped)
    for prop in properties:
        if domain:
            schema.domains[prop].update(domain)
        if range_:
            schema.ranges[prop].update(range_)


def _range_classes(graph: rdflib.Graph, node: Node, mapped: dict[Node, set[str]]) -> set[str] | None:
    """The Wikidata classes of ``sh:class`` (or an ``sh:or`` of them); ``None`` if any part is not a class."""
    alternatives = [node]
    choice = graph.value(node, _SH["or"])
    if choice is not None:
        alternatives = list(Collection(graph, choice))
    found: set[str] = set()
    for alternative in alternatives:
        if graph.value(alternative, _SH.datatype) is not None:
            return None
        cls = graph.value(alternative, _SH["class"])
        classes = mapped.get(cls) if cls is not None else None
        if not classes:
            return None
        found |= classes
    return found or None


def _local(node: Node) -> str:
    return str(node).rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _names(iris: list[str]) -> str:
    return ", ".join(i.rsplit("/", 1)[-1] for i in sorted(iris))
