"""The guard's SERVICE checks one by one: the algebra walk alone, and the count behind it.

The guard has three SERVICE checks: a token precheck, a walk over the parsed query, and a
count that the walk saw every SERVICE keyword written. The tests in ``test_guard.py`` go
through all three at once, so each check here is isolated from the others.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard import query_guard as guard_module
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.query_guard import QueryGuard

TARGET = "<http://127.0.0.1:1/sparql>"
INNER = f"SERVICE {TARGET} {{ ?s ?p ?o }}"
#: SERVICE in every expression position the grammar allows a graph pattern.
PLACES = {
    "order_by": f"SELECT * WHERE {{ ?s ?p ?o }} ORDER BY (EXISTS {{ {INNER} }})",
    "group_by": f"SELECT (COUNT(*) AS ?c) WHERE {{ ?s ?p ?o }} GROUP BY (EXISTS {{ {INNER} }})",
    "having": f"SELECT ?s WHERE {{ ?s ?p ?o }} GROUP BY ?s HAVING (EXISTS {{ {INNER} }})",
    "bind": f"SELECT * WHERE {{ ?s ?p ?o BIND(EXISTS {{ {INNER} }} AS ?b) }}",
    "projection": f"SELECT (EXISTS {{ {INNER} }} AS ?b) WHERE {{ ?s ?p ?o }}",
    "if": f"SELECT * WHERE {{ ?s ?p ?o FILTER(IF(EXISTS {{ {INNER} }}, true, false)) }}",
    "in_list": f"SELECT * WHERE {{ ?s ?p ?o FILTER(true IN (EXISTS {{ {INNER} }})) }}",
    "minus": f"ASK {{ ?s ?p ?o MINUS {{ {INNER} }} }}",
    "graph": f"SELECT * WHERE {{ GRAPH ?g {{ {INNER} }} }}",
    "subquery_projection": f"SELECT * WHERE {{ {{ SELECT (EXISTS {{ {INNER} }} AS ?b) WHERE {{ ?s ?p ?o }} }} }}",
}


@pytest.fixture
def walk_only(monkeypatch: pytest.MonkeyPatch) -> QueryGuard:
    """A guard whose token precheck is off, so only the walk (and the count) can reject."""
    monkeypatch.setattr(QueryGuard, "_precheck_services", lambda self, tokens: None)
    return QueryGuard(get_profile("generic"))


@pytest.mark.parametrize("place", sorted(PLACES))
def test_the_walk_finds_service_in_every_position(walk_only: QueryGuard, place: str) -> None:
    with pytest.raises(QueryRejected, match="SERVICE") as raised:
        walk_only.check(PLACES[place])
    assert raised.value.reason == "service"
    assert "could not all be checked" not in raised.value.message  # the walk itself saw it, not the count


def test_the_count_rejects_a_service_the_walk_did_not_see(monkeypatch: pytest.MonkeyPatch) -> None:
    # wikibase:label is allowlisted on Wikidata, so the precheck passes it; a walk blind to SERVICE
    # (as a grammar change hiding the clause in a container it does not descend would make it) is the
    # one case where only the count stands between the clause and the endpoint.
    real = sparql_grammar.iter_components

    def blind(root: Any, name: str) -> Iterator[Any]:
        return iter(()) if name == "ServiceGraphPattern" else real(root, name)

    monkeypatch.setattr(guard_module.sparql_grammar, "iter_components", blind)
    text = 'SELECT ?x ?xLabel WHERE { ?x ?p ?o SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } }'
    with pytest.raises(QueryRejected, match="could not all be checked"):
        QueryGuard(get_profile("wikidata")).check(text)
