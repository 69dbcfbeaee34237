"""The execute tool's pre-execution type check on tests/data/execute/company.ttl.

Every blocked query is asserted never to reach the store: the counting backend sits below
the guard and the facade, so it sees every query text that is sent.
"""

from __future__ import annotations

import pytest

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.state import TypeState, answer_type_prior, declared_types, extract_type_patterns, merge_type_state
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute
from tests.support.execute_backends import CountingBackend

EX = "http://example.org/company/"
PREFIX = f"PREFIX ex: <{EX}>\n"


def run(
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    body: str,
    *,
    theta: TypeState | None = None,
    mode: str = "subclass",
    verify: bool = True,
) -> ExecuteOutcome:
    settings = ExecuteSettings(verify_blocks=verify)
    return execute(PREFIX + body, graph=graph, schema=schema, theta=theta, mode=mode, settings=settings)  # type: ignore[arg-type]


def assert_blocked_and_not_sent(outcome: ExecuteOutcome, backend: CountingBackend) -> None:
    assert outcome.status == "blocked", outcome.text
    assert outcome.text.startswith("[BLOCKED]")
    # Only template helper queries (types, confirmation) reached the store; the model's query never did.
    assert backend.texts("guard") == []
    assert outcome.query.strip().startswith("PREFIX ex:")
    assert all(outcome.query not in text for text in backend.texts())


def test_constant_subject_with_a_conflicting_declared_type_is_blocked(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    outcome = run(graph, schema, "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }")
    assert_blocked_and_not_sent(outcome, backend)
    (blocked,) = outcome.blocked
    assert (blocked.pattern, blocked.side, blocked.types_from) == ("ex:laptop ex:hasManager ?m", "subject", "graph")
    assert blocked.term_types == (EX + "Hardware",)
    assert blocked.constraint == (EX + "Employee",) and blocked.constraint_source == "formal"
    assert blocked.verified
    assert "`ex:laptop ex:hasManager ?m`: ex:laptop has type ex:Hardware (declared in the graph)" in outcome.text
    assert "ex:hasManager expects a subject of type ex:Employee (domain declared in the ontology)" in outcome.text
    # The constant's declared types are facts and enter Θ even though the query was blocked.
    assert outcome.theta_delta.types_of(EX + "laptop") == {EX + "Hardware"}
    assert {e.provenance for e in outcome.theta_delta.evidence(EX + "laptop")} == {"declared"}


def test_variable_typed_in_the_same_query_is_blocked(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    outcome = run(graph, schema, "SELECT ?x ?m WHERE { ?x a ex:Hardware . ?x ex:hasManager ?m }")
    assert_blocked_and_not_sent(outcome, backend)
    (blocked,) = outcome.blocked
    assert (blocked.term, blocked.types_from, blocked.property_iri) == ("?x", "query", EX + "hasManager")
    assert "from a type pattern in this query" in outcome.text
    # A blocked query's own type patterns are a guess that failed: they do not enter Θ.
    assert "?x" not in outcome.theta_delta


def test_variable_typed_only_through_theta_is_blocked(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    body = "SELECT ?m WHERE { ?x ex:hasManager ?m }"
    theta = extract_type_patterns(PREFIX + "SELECT ?x WHERE { ?x a ex:Hardware }", step=1)
    outcome = run(graph, schema, body, theta=theta)
    assert_blocked_and_not_sent(outcome, backend)
    assert outcome.blocked[0].types_from == "type_state"
    assert "(from earlier steps)" in outcome.text
    # Without Θ the same query runs and returns the managers.
    assert run(graph, schema, body).status == "ok"


def test_query_types_take_precedence_over_theta(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    theta = extract_type_patterns(PREFIX + "SELECT ?x WHERE { ?x a ex:Hardware }")
    outcome = run(graph, schema, "SELECT ?m WHERE { ?x a ex:Employee . ?x ex:hasManager ?m }", theta=theta)
    assert outcome.status == "ok", outcome.text


def test_the_answer_prior_never_blocks(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    theta = merge_type_state(answer_type_prior(EX + "Hardware"), None)
    theta = TypeState.model_construct(entries={"?x": theta.evidence("@answer")})
    outcome = run(graph, schema, "SELECT ?m WHERE { ?x ex:hasManager ?m }", theta=theta)
    assert outcome.status == "ok", outcome.text


def test_subclass_mode_keeps_a_manager_and_exact_mode_blocks_it(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    body = "SELECT ?m WHERE { ex:bob ex:hasManager ?m }"  # bob is a Manager ⊑ Employee, without a manager
    subclass = run(graph, schema, body)
    assert subclass.status == "empty"
    assert len(backend.texts("guard")) >= 1
    backend.queries.clear()
    exact = run(graph, schema, body, mode="exact")
    assert_blocked_and_not_sent(exact, backend)
    assert exact.blocked[0].term_types == (EX + "Manager",)


def test_the_graph_overrules_a_conflict_it_contradicts(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    # Exact mode finds Employee ∉ {Agent} for ex:memberOf, but employees do have memberOf triples.
    body = "SELECT ?d WHERE { ?x a ex:Employee ; ex:memberOf ?d }"
    confirmed = run(graph, schema, body, mode="exact")
    assert confirmed.status == "ok" and confirmed.row_count == 2
    assert any("the graph has such triples" in note for note in confirmed.notes)
    schema_only = run(graph, schema, body, mode="exact", verify=False)
    assert schema_only.status == "blocked"
    assert not schema_only.blocked[0].verified
    assert "The graph has no such triple" not in schema_only.text
    # ex:robot is Hardware yet has ex:supervisedBy (domain Employee): the data breaks the schema.
    robot = run(graph, schema, "SELECT ?m WHERE { ex:robot ex:supervisedBy ?m }")
    assert robot.status == "ok" and robot.row_count == 1
    assert run(graph, schema, "SELECT ?m WHERE { ex:robot ex:supervisedBy ?m }", verify=False).status == "blocked"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("SELECT ?n WHERE { ex:laptop ex:name ?n }", id="unknown-domain"),
        pytest.param("SELECT ?m WHERE { ex:thing ex:hasManager ?m }", id="untyped-constant"),
        pytest.param("SELECT ?x ?m WHERE { ?x ex:hasManager ?m }", id="untyped-variable"),
        pytest.param("SELECT ?d WHERE { ex:alice ex:memberOf ?d }", id="compatible-subclass"),
        pytest.param("SELECT ?p WHERE { ?x a ex:Hardware ; ex:price ?p }", id="subclass-of-domain"),
        pytest.param("SELECT ?x WHERE { ?x ex:price 100 }", id="numeric-literal-vs-decimal-range"),
        pytest.param(
            "SELECT ?x ?m WHERE { ?x a ex:Hardware OPTIONAL { ?x ex:hasManager ?m } }", id="conflict-in-optional"
        ),
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Hardware . { ?x ex:hasManager ?m } UNION { ?x ex:name ?m } }",
            id="conflict-in-one-union-branch",
        ),
        pytest.param("SELECT ?x WHERE { ?x a ex:Hardware MINUS { ?x ex:hasManager ?m } }", id="conflict-in-minus"),
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Hardware FILTER NOT EXISTS { ?x ex:hasManager ?m } }",
            id="conflict-in-not-exists",
        ),
        pytest.param(
            "SELECT ?x ?y WHERE { ?x a ex:Hardware . { SELECT ?y WHERE { ?x ex:hasManager ?y } } }",
            id="subquery-local-variable",
        ),
    ],
)
def test_no_block_without_a_known_conflict_in_a_required_pattern(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, body: str
) -> None:
    outcome = run(graph, schema, body, verify=False)
    assert outcome.status in ("ok", "empty"), outcome.text
    assert outcome.blocked == ()
    assert len(backend.texts("guard")) >= 1  # the query itself was sent


@pytest.mark.parametrize(
    ("body", "side"),
    [
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Hardware . { ?x ex:hasManager ?m } UNION { ?x ex:supervisedBy ?m } }",
            "subject",
            id="conflict-in-every-union-branch",
        ),
        pytest.param(
            "SELECT ?x ?y WHERE { ?x a ex:Hardware . { SELECT ?x ?y WHERE { ?x ex:hasManager ?y } } }",
            "subject",
            id="subquery-projecting-the-variable",
        ),
        pytest.param("SELECT ?x WHERE { ?x ex:hasManager ex:laptop }", "object", id="constant-object-vs-range"),
        pytest.param('SELECT ?x WHERE { ?x ex:hasManager "Bob" }', "object", id="literal-vs-class-range"),
        pytest.param("SELECT ?x WHERE { ex:laptop ^ex:hasManager ?x }", "object", id="inverse-path"),
        pytest.param("SELECT ?n WHERE { ?x a ex:Hardware ; ex:hasManager/ex:name ?n }", "subject", id="sequence-path"),
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Hardware . FILTER(?x != ex:robot) ?x ex:hasManager ?m }",
            "subject",
            id="pattern-under-filter",
        ),
    ],
)
def test_blocks_in_required_positions(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, body: str, side: str
) -> None:
    outcome = run(graph, schema, body, verify=False)
    assert_blocked_and_not_sent(outcome, backend)
    assert {b.side for b in outcome.blocked} == {side}


def test_range_blocks_name_the_range(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    outcome = run(graph, schema, "SELECT ?x WHERE { ?x ex:hasManager ex:laptop }")
    assert "ex:hasManager expects an object of type ex:Manager (range declared in the ontology)" in outcome.text


def test_no_schema_means_no_block(graph: KnowledgeGraph, backend: CountingBackend) -> None:
    outcome = execute(PREFIX + "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }", graph=graph, schema=SchemaIndex())
    assert outcome.status == "empty"
    assert backend.texts("template") == []  # no schema: no helper queries either


def test_theta_constant_types_are_used_when_the_graph_has_none(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    theta = declared_types(EX + "thing", [EX + "Hardware"])
    outcome = run(graph, schema, "SELECT ?m WHERE { ex:thing ex:hasManager ?m }", theta=theta, verify=False)
    assert outcome.status == "blocked"
    assert outcome.blocked[0].types_from == "type_state"


def test_type_check_can_be_switched_off(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    settings = ExecuteSettings(type_check=False)
    outcome = execute(
        PREFIX + "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }", graph=graph, schema=schema, settings=settings
    )
    assert outcome.status == "empty"


def test_only_trusted_schema_sources_block(graph: KnowledgeGraph, schema: SchemaIndex) -> None:
    body = "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }"
    settings = ExecuteSettings(block_sources=frozenset({"induced"}))
    assert execute(PREFIX + body, graph=graph, schema=schema, settings=settings).status == "empty"
    assert run(graph, schema, body).status == "blocked"
