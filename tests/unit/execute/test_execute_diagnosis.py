"""The execute tool's empty-result diagnosis on tests/data/execute/company.ttl."""

from __future__ import annotations

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.empty_diagnosis import DiagnosisSettings
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute
from tests.support.execute_backends import CountingBackend

PREFIX = "PREFIX ex: <http://example.org/company/>\n"


def run(backend: CountingBackend, schema: SchemaIndex, body: str, **settings: object) -> ExecuteOutcome:
    # The diagnosis is under test: the pre-execution block of patterns that match nothing is off here
    # (tests/unit/tools/test_vacuous_patterns.py covers it).
    settings.setdefault("check_vacuous", False)
    graph = KnowledgeGraph(backend)
    return execute(PREFIX + body, graph=graph, schema=schema, settings=ExecuteSettings(**settings))  # type: ignore[arg-type]


def test_a_dead_first_pattern_is_named(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, 'SELECT ?x WHERE { ?d ex:name "Nope" . ?x ex:memberOf ?d }')
    assert outcome.status == "empty"
    assert outcome.diagnosis is not None
    assert (outcome.diagnosis.kind, outcome.diagnosis.pattern) == ("dead_pattern", '?d ex:name "Nope"')
    assert 'Diagnosis: The pattern `?d ex:name "Nope"` matches nothing in the graph.' in outcome.text


def test_a_dead_middle_pattern_is_named(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(
        backend, schema, "SELECT ?x WHERE { ?x ex:memberOf ?d . ?d ex:headcount ?h . ?x ex:name ?n . ?d ex:name ?dn }"
    )
    assert outcome.diagnosis is not None
    assert outcome.diagnosis.kind == "dead_pattern"
    assert outcome.diagnosis.dead_patterns == ("?d ex:headcount ?h",)


def test_every_dead_pattern_is_listed(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, 'SELECT ?x WHERE { ?x ex:nickname ?n . ?x ex:name "Nobody" . ?x ex:name ?m }')
    assert outcome.diagnosis is not None
    assert set(outcome.diagnosis.dead_patterns) == {"?x ex:nickname ?n", '?x ex:name "Nobody"'}
    assert "Nor do:" in outcome.diagnosis.message


def test_patterns_that_match_alone_but_not_together(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "SELECT ?x WHERE { ?x ex:memberOf ?d . ?x ex:weight ?w }")
    assert outcome.diagnosis is not None
    diagnosis = outcome.diagnosis
    assert diagnosis.kind == "join"
    assert diagnosis.shared_variables == ("x",)
    assert {diagnosis.pattern, *diagnosis.partners} == {"?x ex:memberOf ?d", "?x ex:weight ?w"}
    assert "matches nothing together with" in outcome.text and "on ?x" in outcome.text


def test_join_probes_follow_connected_order(backend: CountingBackend, schema: SchemaIndex) -> None:
    # rdflib's algebra orders this BGP as [?d name ?p, ?m memberOf ?e, ?p weight ?w, ?x hasManager ?m]:
    # probing its prefixes would pair two patterns that share nothing (a cartesian product) and blame
    # ?p ex:weight ?w together with an unrelated partner. Connected order probes ?d name ?p, then ?p weight ?w.
    body = "SELECT ?x WHERE { ?p ex:weight ?w . ?d ex:name ?p . ?x ex:hasManager ?m . ?m ex:memberOf ?e }"
    outcome = run(backend, schema, body)
    assert outcome.diagnosis is not None
    diagnosis = outcome.diagnosis
    assert diagnosis.kind == "join"
    assert diagnosis.pattern == "?p ex:weight ?w"
    assert diagnosis.partners == ("?d ex:name ?p",)
    assert diagnosis.shared_variables == ("p",)


def test_the_filter_that_removes_everything_is_named(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "SELECT ?x WHERE { ?x ex:price ?p FILTER(?p > 1) FILTER(?p > 5000) }")
    assert outcome.diagnosis is not None
    assert (outcome.diagnosis.kind, outcome.diagnosis.filter) == ("filter", "(?p > 5000)")
    assert "FILTER (?p > 5000) removes every solution" in outcome.text


def test_a_string_filter_is_written_back_faithfully(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, 'SELECT ?x WHERE { ?x ex:name ?n FILTER(CONTAINS(LCASE(?n), "quote\\"d")) }')
    assert outcome.diagnosis is not None
    assert outcome.diagnosis.kind == "filter"
    assert outcome.diagnosis.filter == '(CONTAINS(LCASE(?n), "quote\\"d"))'


def test_filters_that_only_fail_together(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "SELECT ?x WHERE { ?x ex:price ?p FILTER(?p > 600 && ?p < 200) }")
    assert outcome.diagnosis is not None
    assert outcome.diagnosis.kind == "filters_combined"


def test_values_restrict_the_probes(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "SELECT ?d WHERE { VALUES ?x { ex:laptop ex:phone } ?x ex:memberOf ?d }")
    assert outcome.diagnosis is not None
    assert (outcome.diagnosis.kind, outcome.diagnosis.pattern) == ("dead_pattern", "?x ex:memberOf ?d")
    assert "for the values the query's VALUES block gives" in outcome.diagnosis.message


def test_emptiness_from_an_unprobed_part_is_said(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(
        backend, schema, 'SELECT ?x WHERE { ?x ex:name "Sales" . { ?x ex:price ?p } UNION { ?x ex:weight ?p } }'
    )
    assert outcome.diagnosis is not None
    assert outcome.diagnosis.kind == "elsewhere"
    assert "UNION" in outcome.diagnosis.unprobed
    assert "the emptiness comes from: UNION" in outcome.text


def test_a_filter_on_an_optional_variable_is_not_blamed(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "SELECT ?x WHERE { ?x ex:name ?n OPTIONAL { ?x ex:weight ?w } FILTER(?w > 100) }")
    assert outcome.diagnosis is not None
    assert outcome.diagnosis.kind == "elsewhere"
    assert "FILTER conditions on variables bound elsewhere" in outcome.diagnosis.unprobed
    assert "OPTIONAL" in outcome.diagnosis.unprobed


def test_a_false_ask_is_answered_and_diagnosed(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, "ASK { ex:alice ex:memberOf ex:rnd }")
    assert (outcome.status, outcome.boolean) == ("ok", False)
    assert outcome.diagnosis is not None and outcome.diagnosis.pattern == "ex:alice ex:memberOf ex:rnd"


def test_probes_pass_the_guard_and_are_counted(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, 'SELECT ?x WHERE { ?x ex:memberOf ?d . ?d ex:name "Nope" }')
    assert outcome.diagnosis is not None
    guard_texts = backend.texts("guard")
    # The query itself, then one ASK per probe (and one SELECT of a dead pattern's literal datatypes),
    # each of them checked by the guard.
    assert len(guard_texts) == 1 + outcome.diagnosis.probes
    assert all(text.lstrip().startswith(("ASK", "SELECT ?o WHERE")) for text in guard_texts[1:])


def test_the_probe_budget_is_respected(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(
        backend,
        schema,
        'SELECT ?x WHERE { ?x ex:memberOf ?d . ?d ex:name "Nope" }',
        diagnosis=DiagnosisSettings(max_probes=1),
    )
    assert outcome.diagnosis is not None
    assert (outcome.diagnosis.kind, outcome.diagnosis.complete, outcome.diagnosis.probes) == ("unknown", False, 1)
    assert "probe budget" in outcome.diagnosis.message


def test_diagnosis_can_be_switched_off(backend: CountingBackend, schema: SchemaIndex) -> None:
    outcome = run(backend, schema, 'SELECT ?x WHERE { ?d ex:name "Nope" }', diagnose_empty=False)
    assert outcome.status == "empty" and outcome.diagnosis is None
    assert len(backend.texts("guard")) == 1
