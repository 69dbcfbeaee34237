"""The class hierarchy with its ancestor closure, computed once and safe against cycles.

Real hierarchies contain cycles (Wikidata's P279 has several, and OWL files declare
equivalent classes as mutual subclasses), so the closure is computed over strongly
connected components: every member of a cycle is an ancestor of every other member.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from saga_kgqa.schema.vocab import XSD_PARENTS


class ClassHierarchy:
    """Direct parents and the transitive ancestors of every class.

    The XSD datatype derivation tree is built in, so datatype ranges are checked with the
    same subclass logic as class domains.
    """

    def __init__(self, parents: Mapping[str, Iterable[str]]) -> None:
        """Compute the ancestor closure.

        Args:
            parents: Direct superclasses of each class (``rdfs:subClassOf``, ``wdt:P279``, ...).
        """
        merged: dict[str, frozenset[str]] = dict(XSD_PARENTS)
        for child, supers in parents.items():
            merged[child] = merged.get(child, frozenset()) | frozenset(supers)
        self._parents = merged
        self._ancestors = _ancestor_closure(merged)

    def parents(self, class_iri: str) -> frozenset[str]:
        """Return the direct superclasses of a class (empty when unknown)."""
        return self._parents.get(class_iri, frozenset())

    def ancestors(self, class_iri: str) -> frozenset[str]:
        """Return every strict ancestor of a class; a class on a cycle is its own ancestor."""
        return self._ancestors.get(class_iri, frozenset())

    def closure(self, class_iri: str) -> frozenset[str]:
        """Return the class together with all its ancestors."""
        return self._ancestors.get(class_iri, frozenset()) | {class_iri}

    def is_subclass(self, child: str, parent: str) -> bool:
        """Return True when ``child`` equals ``parent`` or has it as an ancestor."""
        return child == parent or parent in self._ancestors.get(child, frozenset())

    def knows(self, class_iri: str) -> bool:
        """Return True when the hierarchy records parents for the class."""
        return class_iri in self._parents


def _ancestor_closure(parents: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """Return the strict ancestors of every node, via Tarjan's SCC algorithm (iterative).

    Tarjan emits a component only after every component reachable from it, so the
    ancestors of a component's parents are always known when the component is closed.
    """
    index_of: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    ancestors: dict[str, frozenset[str]] = {}
    counter = 0
    nodes = set(parents) | {p for supers in parents.values() for p in supers}
    for root in nodes:
        if root in index_of:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(parents.get(root, ())))]
        index_of[root] = lowlink[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index_of:
                    index_of[nxt] = lowlink[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(parents.get(nxt, ()))))
                elif nxt in on_stack:
                    lowlink[node] = min(lowlink[node], index_of[nxt])
                continue
            work.pop()
            if work:
                caller = work[-1][0]
                lowlink[caller] = min(lowlink[caller], lowlink[node])
            if lowlink[node] != index_of[node]:
                continue
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            members = frozenset(component)
            reached: set[str] = set()
            for member in component:
                for parent in parents.get(member, ()):
                    reached.add(parent)
                    if parent not in members:
                        reached |= ancestors[parent]
            # A component of one node without a self-loop is not a cycle: keep it out of its own ancestors.
            if len(component) == 1 and node not in parents.get(node, ()):
                reached.discard(node)
            closed = frozenset(reached)
            for member in component:
                ancestors[member] = closed
    return ancestors
