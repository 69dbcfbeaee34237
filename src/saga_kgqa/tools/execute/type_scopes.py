"""Which triple patterns of a query the type check may block on, and the variable scope each is read in.

A blocked query must be one that could never return a row from the blocked part, so only
patterns every solution of that part must match count:

* required patterns: the top-level group, both sides of a join, the left side of
  OPTIONAL and MINUS, the group a FILTER applies to, and required subqueries;
* an OPTIONAL part, a MINUS or FILTER (NOT) EXISTS group, GRAPH and SERVICE groups are
  never checked (a conflict there does not empty the result);
* a UNION blocks only when every branch has a conflict; a sub-select that is one branch
  of a UNION and can never match empties only that branch;
* a subquery (``{ SELECT ... }``) is checked in its own variable scope: its variables
  take the types of the type patterns inside it, and a variable it projects is also the
  outer variable of that name, so the outer types flow in as well. A variable the
  subquery does not project is local to it: the outer query's types and Θ say nothing
  about it. A subquery with an aggregate but no GROUP BY still yields one row of
  unbound values; it is checked like the top level, whose aggregates are too (a count
  over a pattern that can never match is a wrong query).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rdflib.plugins.sparql.parserutils import CompValue

from saga_kgqa.kg.guard.algebra_text import Triple
from saga_kgqa.kg.guard.sparql_algebra import GROUPING, SOLUTION_MODIFIERS
from saga_kgqa.state import TypeState, type_patterns_in

Found = TypeVar("Found")

# Nodes that only modify the solutions of the pattern below them.
# A slice, a grouping and a filter keep the scope of their pattern (GRAPH never grounds a block).
_PASS_THROUGH = SOLUTION_MODIFIERS | {"Slice", "Filter"} | GROUPING
# Between a sub-select's ToMultiSet and its projection.
_AROUND_PROJECTION = frozenset({"Slice", "Distinct", "Reduced", "OrderBy"})


@dataclass(frozen=True, slots=True)
class VariableScope:
    """The variables of one SELECT level.

    Attributes:
        pattern_types: The type patterns of this level (keys ``?var``), including those of
            nested subqueries for the variables they project.
        shared: Variables identified with the enclosing level (a subquery's projection);
            ``None`` at the top level.
        parent: The enclosing level; ``None`` at the top level.
    """

    pattern_types: TypeState
    shared: frozenset[str] | None = None
    parent: VariableScope | None = None

    def types_of(self, name: str) -> tuple[frozenset[str], bool]:
        """The types the query's patterns give a variable at this level, and whether it is a top-level variable.

        Args:
            name: The variable's name, without ``?``.

        Returns:
            The types from this level and every enclosing level the variable is shared
            with, and True when it reaches the top level (so Θ of earlier steps applies).
        """
        key = f"?{name}"
        found: frozenset[str] = frozenset()
        scope: VariableScope | None = self
        while scope is not None:
            found |= scope.pattern_types.types_of(key)
            if scope.parent is None:
                return found, True
            if scope.shared is None or name not in scope.shared:
                return found, False
            scope = scope.parent
        return found, True


class RequiredPatternWalk(Generic[Found]):
    """Collects the conflicts that empty a query, checking each required pattern in its scope.

    Args:
        check: Returns a conflict for one triple pattern read in a scope, or ``None``.
        type_predicates: Full IRIs of the type predicates (for the subqueries' type patterns).
        subclass_predicates: Full IRIs of the subclass predicates.
    """

    def __init__(
        self,
        check: Callable[[Triple, VariableScope], Found | None],
        *,
        type_predicates: Iterable[str],
        subclass_predicates: Iterable[str],
    ) -> None:
        self._check = check
        self._type_predicates = tuple(type_predicates)
        self._subclass_predicates = tuple(subclass_predicates)

    def conflicts(self, node: Any, scope: VariableScope) -> list[Found]:
        """Conflicts that empty ``node``'s solutions (see the module docstring for the rules)."""
        if not isinstance(node, CompValue):
            return []
        name = node.name
        if name in _PASS_THROUGH:
            return self.conflicts(node.p, scope)
        if name == "BGP":
            return [found for triple in node.triples if (found := self._check(triple, scope)) is not None]
        if name == "Join":
            return self.conflicts(node.p1, scope) + self.conflicts(node.p2, scope)
        if name in ("LeftJoin", "Minus"):
            return self.conflicts(node.p1, scope)
        if name == "Union":
            left = self.conflicts(node.p1, scope)
            right = self.conflicts(node.p2, scope)
            return left + right if left and right else []
        if name == "ToMultiSet":
            return self.conflicts(node.p, self._subquery_scope(node.p, scope))
        # values, Graph, ServiceGraphPattern and anything unknown: never grounds to block.
        return []

    def _subquery_scope(self, node: Any, parent: VariableScope) -> VariableScope:
        projection = _projection(node)
        if projection is None:
            return parent  # inline data, not a sub-select: same variables
        own = type_patterns_in(
            node, type_predicates=self._type_predicates, subclass_predicates=self._subclass_predicates
        )
        shared = frozenset(str(variable) for variable in projection.PV or [])
        return VariableScope(pattern_types=own, shared=shared, parent=parent)


def _projection(node: Any) -> CompValue | None:
    """The Project node of a sub-select (below its LIMIT, DISTINCT, ORDER BY), if it is one."""
    while isinstance(node, CompValue) and node.name in _AROUND_PROJECTION:
        node = node.p
    return node if isinstance(node, CompValue) and node.name == "Project" else None
