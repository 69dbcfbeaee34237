"""The three SPARQL-algebra walkers pass through the same solution modifiers; each adds only what it means to.

Pinned from the sets each walker carried before they shared one vocabulary
(:mod:`saga_kgqa.kg.guard.sparql_algebra`): the type-pattern extractor also passes through
slices, groupings and ``GRAPH``; the scope checker slices, groupings and filters (``GRAPH``
never grounds it to block); the empty-result diagnosis handles slices, groupings and filters
each on its own (OFFSET and HAVING are noted, not walked through).
"""

from __future__ import annotations

from saga_kgqa.kg.guard.sparql_algebra import SOLUTION_MODIFIERS
from saga_kgqa.state import type_patterns
from saga_kgqa.tools.execute import empty_diagnosis, type_scopes

FORMS = {"SelectQuery", "AskQuery", "ConstructQuery", "DescribeQuery"}
MODIFIERS = FORMS | {"Project", "Distinct", "Reduced", "OrderBy", "Extend"}


def test_the_shared_modifiers_are_the_query_forms_and_the_binding_keepers() -> None:
    assert SOLUTION_MODIFIERS == MODIFIERS


def test_each_walker_passes_through_what_it_did() -> None:
    assert empty_diagnosis._PASS_THROUGH == MODIFIERS
    assert MODIFIERS | {"Slice", "Group", "AggregateJoin", "Graph"} == type_patterns._PASS_THROUGH
    assert MODIFIERS | {"Slice", "Group", "AggregateJoin", "Filter"} == type_scopes._PASS_THROUGH


def test_a_graph_clause_is_walked_for_types_but_not_for_scope_conflicts() -> None:
    assert "Graph" in type_patterns._PASS_THROUGH and "Graph" not in type_scopes._PASS_THROUGH
