"""The type check's variable scopes (subqueries, UNION and MINUS of sub-selects) and path middle nodes.

On tests/data/execute/company.ttl: ex:hasManager and ex:supervisedBy have domain
ex:Employee and range ex:Manager (⊑ Employee ⊑ Agent), ex:memberOf has domain ex:Agent,
ex:price has domain ex:Product and range xsd:decimal; laptops and phones are ex:Hardware.
The shapes follow Spider4SPARQL's gold queries (MINUS and UNION of sub-selects, nested
``SELECT ... LIMIT 1``). Block tests run schema-only (``verify=False``) unless they say
otherwise, so a block comes from the scope rules and not from an empty graph.
"""

from __future__ import annotations

import pytest

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.state import TypeState, extract_type_patterns
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute
from saga_kgqa.tools.execute.type_scopes import VariableScope
from tests.support.execute_backends import CountingBackend

EX = "http://example.org/company/"
PREFIX = f"PREFIX ex: <{EX}>\n"

# A sub-select whose local ?t is typed Hardware inside it and then given an Employee-only property.
HARDWARE_MANAGER = "SELECT (?n AS ?c) WHERE { ?t a ex:Hardware ; ex:hasManager ?n }"
HARDWARE_SUPERVISOR = "SELECT (?n AS ?c) WHERE { ?t a ex:Hardware ; ex:supervisedBy ?n }"
EMPLOYEE_NAME = "SELECT (?n AS ?c) WHERE { ?t a ex:Employee ; ex:name ?n }"


def run(
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    body: str,
    *,
    theta: TypeState | None = None,
    mode: str = "subclass",
    verify: bool = False,
    settings: ExecuteSettings | None = None,
) -> ExecuteOutcome:
    settings = settings or ExecuteSettings(verify_blocks=verify)
    return execute(PREFIX + body, graph=graph, schema=schema, theta=theta, mode=mode, settings=settings)  # type: ignore[arg-type]


def assert_not_sent(backend: CountingBackend) -> None:
    assert backend.texts("guard") == []


def assert_sent(backend: CountingBackend, body: str) -> None:
    """The query itself reached the store first (an empty result's diagnosis may follow it)."""
    assert backend.texts("guard")[0].startswith(PREFIX + body)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(f"SELECT ?c WHERE {{ {{ {HARDWARE_MANAGER} }} }}", id="local-variable-of-a-subquery"),
        pytest.param(
            f"SELECT DISTINCT ?c WHERE {{ {{ {HARDWARE_MANAGER} }} MINUS {{ {EMPLOYEE_NAME} }} }}",
            id="left-sub-select-of-minus",
        ),
        pytest.param(
            f"SELECT DISTINCT ?c WHERE {{ {{ {HARDWARE_MANAGER} }} UNION {{ {HARDWARE_SUPERVISOR} }} }}",
            id="every-sub-select-branch-of-union",
        ),
        pytest.param(
            f"SELECT (COUNT(*) AS ?k) WHERE {{ {{ {EMPLOYEE_NAME} }} {{ {HARDWARE_MANAGER} }} }}",
            id="one-of-two-joined-sub-selects",
        ),
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Employee ; ex:name ?n . FILTER(?n != ?top) "
            "{ SELECT (?m AS ?top) WHERE { ?t a ex:Hardware ; ex:hasManager ?m } ORDER BY ?m LIMIT 1 } }",
            id="nested-select-limit-1",
        ),
        pytest.param(
            "SELECT ?x WHERE { ?x a ex:Employee ; ex:memberOf ?d . FILTER(?d = ?first) "
            "{ SELECT (MIN(?m) AS ?first) WHERE { ?t a ex:Hardware ; ex:hasManager ?m } } }",
            id="aggregate-sub-select",
        ),
        pytest.param(
            "SELECT ?c WHERE { { SELECT ?c WHERE { { SELECT ?c ?t WHERE { ?t a ex:Hardware ; ex:name ?c } } "
            "?t ex:hasManager ?m } } }",
            id="type-projected-from-a-nested-sub-select",
        ),
    ],
)
def test_a_conflict_in_a_required_sub_select_blocks(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, body: str
) -> None:
    outcome = run(graph, schema, body)
    assert outcome.status == "blocked", outcome.text
    assert {(b.term, b.types_from, b.term_types) for b in outcome.blocked} == {("?t", "query", (EX + "Hardware",))}
    assert_not_sent(backend)


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            f"SELECT DISTINCT ?c WHERE {{ {{ {EMPLOYEE_NAME} }} MINUS {{ {HARDWARE_MANAGER} }} }}",
            id="only-the-minus-sub-select",
        ),
        pytest.param(
            f"SELECT DISTINCT ?c WHERE {{ {{ {EMPLOYEE_NAME} }} UNION {{ {HARDWARE_MANAGER} }} }}",
            id="one-sub-select-branch-of-union",
        ),
        pytest.param(
            f"SELECT ?x ?c WHERE {{ ?x a ex:Employee OPTIONAL {{ {HARDWARE_MANAGER} }} }}",
            id="sub-select-in-optional",
        ),
        pytest.param(
            f"SELECT ?x WHERE {{ ?x a ex:Employee FILTER NOT EXISTS {{ {{ {HARDWARE_MANAGER} }} }} }}",
            id="sub-select-in-not-exists",
        ),
        pytest.param(
            "SELECT ?x ?m WHERE { ?x a ex:Hardware . { SELECT ?m WHERE { ?x a ex:Employee ; ex:hasManager ?m } } }",
            id="outer-types-do-not-reach-a-local-namesake",
        ),
        pytest.param(
            "SELECT ?m WHERE { ?t ex:hasManager ?m . { SELECT ?n WHERE { ?t a ex:Hardware ; ex:name ?n } } }",
            id="local-types-do-not-leak-out",
        ),
        pytest.param(
            f"SELECT DISTINCT ?c WHERE {{ {{ {HARDWARE_MANAGER} }} UNION {{ ?e a ex:Employee ; ex:name ?c }} }}",
            id="union-with-a-plain-branch",
        ),
    ],
)
def test_no_block_where_the_conflicting_sub_select_cannot_empty_the_query(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, body: str
) -> None:
    outcome = run(graph, schema, body)
    assert outcome.status in ("ok", "empty"), outcome.text
    assert outcome.blocked == ()
    assert_sent(backend, body)


def test_earlier_types_reach_a_projected_variable_but_not_a_local_one(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    theta = extract_type_patterns(PREFIX + "SELECT ?x WHERE { ?x a ex:Hardware }", step=1)
    projected = run(graph, schema, "SELECT ?x ?m WHERE { { SELECT ?x ?m WHERE { ?x ex:hasManager ?m } } }", theta=theta)
    assert projected.status == "blocked"
    assert projected.blocked[0].types_from == "type_state"
    local = run(graph, schema, "SELECT ?m WHERE { { SELECT ?m WHERE { ?x ex:hasManager ?m } } }", theta=theta)
    assert local.status == "ok", local.text


def test_a_verified_sub_select_block_names_the_local_type(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    outcome = run(graph, schema, f"SELECT ?c WHERE {{ {{ {HARDWARE_MANAGER} }} }}", verify=True)
    assert outcome.status == "blocked"
    (blocked,) = outcome.blocked
    assert blocked.verified
    assert "?t has type ex:Hardware (from a type pattern in this query)" in outcome.text
    assert_not_sent(backend)


def test_variable_scope_follows_projections_up_to_the_top() -> None:
    top = VariableScope(pattern_types=extract_type_patterns(PREFIX + "SELECT * WHERE { ?x a ex:Hardware }"))
    inner_types = extract_type_patterns(PREFIX + "SELECT * WHERE { ?x a ex:Product . ?y a ex:Employee }")
    inner = VariableScope(pattern_types=inner_types, shared=frozenset({"x"}), parent=top)
    assert inner.types_of("x") == (frozenset({EX + "Hardware", EX + "Product"}), True)
    assert inner.types_of("y") == (frozenset({EX + "Employee"}), False)
    assert inner.types_of("z") == (frozenset(), False)
    assert top.types_of("y") == (frozenset(), True)


def test_a_path_middle_node_typed_by_the_range_blocks(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    # The object of ex:hasManager is an ex:Manager (its declared range); ex:price needs an ex:Product.
    outcome = run(graph, schema, "SELECT ?x ?p WHERE { ?x ex:hasManager/ex:price ?p }", verify=True)
    assert outcome.status == "blocked", outcome.text
    (blocked,) = outcome.blocked
    assert (blocked.term, blocked.types_from, blocked.property_iri) == (
        "the object of ex:hasManager",
        "range",
        EX + "price",
    )
    assert blocked.term_types == (EX + "Manager",) and blocked.verified
    assert "the object of ex:hasManager has type ex:Manager (the range of the path step before it)" in outcome.text
    assert_not_sent(backend)
    # A third step is checked too: the middle node after ex:supervisedBy is a Manager as well.
    longer = run(graph, schema, "SELECT ?d WHERE { ?y ex:hasManager/ex:supervisedBy/ex:price ?d }")
    assert longer.status == "blocked" and longer.blocked[0].term == "the object of ex:supervisedBy"


def test_a_path_middle_node_blocks_only_on_trusted_sources(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    body = "SELECT ?x ?p WHERE { ?x ex:hasManager/ex:price ?p }"
    # The node's types are placed (a range is always in the index): the open-world setting still blocks.
    open_world = ExecuteSettings(verify_blocks=False, unplaced_types_block=False)
    assert run(graph, schema, body, settings=open_world).status == "blocked"
    # Formal ranges and domains untrusted: neither the node's type nor ex:price's domain may block.
    untrusted = ExecuteSettings(verify_blocks=False, block_sources=frozenset({"induced"}))
    outcome = run(graph, schema, body, settings=untrusted)
    assert outcome.status in ("ok", "empty"), outcome.text
    assert_sent(backend, body)


@pytest.mark.parametrize(
    ("body", "term", "lenient"),
    [
        pytest.param(
            "SELECT ?d WHERE { ?x a ex:Unplaced ; ex:hasManager/ex:memberOf ?d }",
            "?x",
            ExecuteSettings(verify_blocks=False, unplaced_types_block=False, check_vacuous=False),
            id="unplaced-subject-type-of-a-path",
        ),
        pytest.param(
            'SELECT ?x WHERE { ?x ex:price "12" }',
            '"12"',
            ExecuteSettings(verify_blocks=False, plain_literals_typed=False),
            id="plain-literal-against-a-decimal-range",
        ),
    ],
)
def test_uncertain_conflicts_block_only_under_the_strict_settings(
    graph: KnowledgeGraph, schema: SchemaIndex, body: str, term: str, lenient: ExecuteSettings
) -> None:
    strict = run(graph, schema, body)
    assert strict.status == "blocked" and strict.blocked[0].term == term, strict.text
    outcome = run(graph, schema, body, settings=lenient)
    assert outcome.status in ("ok", "empty"), outcome.text


@pytest.mark.parametrize(
    ("body", "mode"),
    [
        pytest.param("SELECT ?d WHERE { ?x ex:hasManager/ex:memberOf ?d }", "subclass", id="range-below-the-domain"),
        # Exact mode would find Manager ∉ {Agent}; an instance of a range may belong to a subclass.
        pytest.param(
            "SELECT ?d WHERE { ?x ex:hasManager/ex:memberOf ?d }", "exact", id="exact-mode-stays-subclass-aware"
        ),
        pytest.param("SELECT ?m WHERE { ?x ex:price/ex:hasManager ?m }", "subclass", id="datatype-range-types-nothing"),
        pytest.param("SELECT ?n WHERE { ?x ex:memberOf/ex:name ?n }", "subclass", id="next-step-without-domain"),
        pytest.param(
            "SELECT ?p WHERE { ?x (ex:hasManager|ex:memberOf)/ex:price ?p }", "subclass", id="alternative-step"
        ),
        pytest.param("SELECT ?p WHERE { ?x ^ex:hasManager/ex:price ?p }", "subclass", id="inverse-step"),
    ],
)
def test_no_block_on_a_path_middle_node_without_a_known_conflict(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, body: str, mode: str
) -> None:
    outcome = run(graph, schema, body, mode=mode)
    assert outcome.status in ("ok", "empty"), outcome.text
    assert_sent(backend, body)
