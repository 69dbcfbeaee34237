r"""The property uses of a gold query, each with the part of the query that binds its subject.

A *property use* is a triple pattern whose predicate is one plain IRI (not a type
predicate): ``?x pv:memberOf ?d`` or ``<empl-1> pv:phone ?p``. Paths are unfolded first,
so that every IRI that some subject must have is one use:

* ``?s ^p ?o`` is ``?o p ?s``;
* ``?s p1/p2 ?o`` is ``?s p1 ?m . ?m p2 ?o`` with a fresh ``?m``;
* other paths (``p*``, ``p|q``, negated sets) say nothing certain about one IRI and stay
  in the query only as constraints.

Each use carries its *block*: the triples of its basic graph pattern connected to it
through shared variables, rendered back to SPARQL. ``SELECT DISTINCT ?s { block }`` then
samples the entities the subject stands for in the gold query (its relevant part) without
the cartesian products a disconnected pattern would add. IRIs are unescaped
(``:singer\#name`` is ``.../singer#name``, see :mod:`saga_kgqa.kg.guard.sparql_algebra`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath
from rdflib.term import BNode, Literal, URIRef, Variable

from saga_kgqa.kg.guard.sparql_algebra import iter_nodes, parse_algebra
from saga_kgqa.kg.guard.sparql_terms import iri, unescape_local_name
from saga_kgqa.schema.vocab import DEFAULT_TYPE_PREDICATES

# A triple with the predicate unfolded: a plain IRI, or an opaque path kept as a constraint.
_Atom = tuple[Any, Any, Any]


@dataclass(frozen=True, slots=True)
class PropertyUse:
    """One plain-IRI property used in a query, with what is needed to sample its subject.

    Attributes:
        subject: The subject as a type-state key: ``?name`` for a variable (fresh ones for
            unfolded paths and blank nodes start with ``?_``), or the IRI of a constant.
        property_iri: The property, unescaped.
        object: The object as SPARQL text (``?name``, ``<iri>`` or a literal).
        block: The triples connected to this one in its basic graph pattern, as SPARQL text.
    """

    subject: str
    property_iri: str
    object: str
    block: tuple[str, ...]

    @property
    def subject_is_variable(self) -> bool:
        """True when the subject is a variable (its entities must be sampled)."""
        return self.subject.startswith("?")

    def binding_query(self, limit: int) -> str:
        """A query for up to ``limit`` distinct entities the subject variable stands for.

        Raises:
            ValueError: The subject is a constant.
        """
        if not self.subject_is_variable:
            raise ValueError(f"the subject {self.subject} is a constant; look it up directly")
        body = " .\n  ".join(self.block)
        return f"SELECT DISTINCT {self.subject} WHERE {{\n  {body} .\n  FILTER(isIRI({self.subject}))\n}} LIMIT {limit}"


def property_uses(
    sparql: str,
    *,
    type_predicates: Iterable[str] = DEFAULT_TYPE_PREDICATES,
    prefixes: Mapping[str, str] | None = None,
) -> list[PropertyUse]:
    """Return every plain-IRI property use of a query, in order of appearance.

    Args:
        sparql: The query text.
        type_predicates: Predicates that type their subject; their patterns are
            constraints in blocks but not property uses.
        prefixes: Prefixes assumed when the query does not declare them.

    Raises:
        QueryRejected: The text is not a SPARQL query.
    """
    types = frozenset(type_predicates)
    fresh = (Variable(f"_path{n}") for n in itertools.count(1))
    uses: dict[tuple[str, str, str], PropertyUse] = {}
    for node in iter_nodes(parse_algebra(sparql, prefixes)):
        if node.name != "BGP":
            continue
        atoms = [atom for triple in node.triples for atom in _unfold(triple, fresh)]
        components = _components(atoms)
        for index, (subject, predicate, obj) in enumerate(atoms):
            if not isinstance(predicate, URIRef):
                continue
            property_iri = unescape_local_name(str(predicate))
            key = _subject_key(subject)
            if property_iri in types or key is None:
                continue
            found = (key, property_iri, _render(obj))
            if found not in uses:  # the same triple written twice is one use
                block = tuple(_render_triple(atoms[i]) for i in components[index])
                uses[found] = PropertyUse(*found, block=block)
    return list(uses.values())


def _unfold(triple: _Atom, fresh: Iterator[Variable]) -> list[_Atom]:
    """Rewrite inverse and sequence paths into plain triples (other paths stay whole)."""
    subject, predicate, obj = triple
    if isinstance(predicate, InvPath):
        return _unfold((obj, predicate.arg, subject), fresh)
    if isinstance(predicate, SequencePath):
        steps = list(predicate.args)
        nodes = [subject, *(next(fresh) for _ in steps[1:]), obj]
        return [atom for i, step in enumerate(steps) for atom in _unfold((nodes[i], step, nodes[i + 1]), fresh)]
    return [triple]


def _components(atoms: list[_Atom]) -> list[list[int]]:
    """For each atom, the indexes of the atoms connected to it through shared variables."""
    parent = list(range(len(atoms)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_seen: dict[str, int] = {}
    for index, (subject, _predicate, obj) in enumerate(atoms):
        for term in (subject, obj):
            if isinstance(term, (Variable, BNode)):
                name = _render(term)
                if name in first_seen:
                    parent[find(index)] = find(first_seen[name])
                else:
                    first_seen[name] = index
    groups: dict[int, list[int]] = {}
    for index in range(len(atoms)):
        groups.setdefault(find(index), []).append(index)
    return [groups[find(index)] for index in range(len(atoms))]


def _subject_key(term: Any) -> str | None:
    if isinstance(term, (Variable, BNode)):
        return _render(term)
    if isinstance(term, URIRef):
        return unescape_local_name(str(term))
    return None  # a literal subject (legal in SPARQL) matches nothing in RDF data


def _render_triple(atom: _Atom) -> str:
    return " ".join(_render(term) for term in atom)


def _render(term: Any) -> str:
    """SPARQL text for an algebra term or path, IRIs unescaped and checked."""
    if isinstance(term, Variable):
        return f"?{term}"
    if isinstance(term, BNode):
        # A blank node in a pattern is a variable that cannot be projected; give it a name.
        return f"?_bnode_{''.join(ch if ch.isalnum() else '_' for ch in str(term))}"
    if isinstance(term, URIRef):
        return iri(unescape_local_name(str(term)))
    if isinstance(term, Literal):
        return str(term.n3())
    if isinstance(term, InvPath):
        inner = _render(term.arg)
        return f"^{inner}" if isinstance(term.arg, URIRef) else f"^({inner})"
    if isinstance(term, SequencePath):
        return "(" + "/".join(_render(arg) for arg in term.args) + ")"
    if isinstance(term, AlternativePath):
        return "(" + "|".join(_render(arg) for arg in term.args) + ")"
    if isinstance(term, MulPath):
        return f"({_render(term.path)}){term.mod}"
    if isinstance(term, NegatedPath):
        return "!(" + "|".join(_render(arg) for arg in term.args) + ")"
    raise ValueError(f"cannot render algebra term {term!r}")
