"""One deadline for the whole execute tool: guard, type check, run, diagnosis (issue 10, hole 12).

``ExecuteSettings.deadline_s`` bounds the call: each stage gets what the earlier ones left,
and a stage that used all of it ends in a typed timeout observation naming that stage,
with the model's query never sent. The slow stages are simulated by sleeping in a
wrapper around the real guard or type check; the store is the company graph, and the
counting backend below the facade sees every query and the limits it arrived with.
"""

from __future__ import annotations

import time

import pytest

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute import preflight as preflight_module
from saga_kgqa.tools.execute.tool import ExecuteOutcome, ExecuteSettings, execute
from saga_kgqa.tools.execute.type_check import TypeCheckReport
from tests.support.execute_backends import CountingBackend

PREFIX = "PREFIX ex: <http://example.org/company/>\n"
MATCHING = PREFIX + "SELECT ?e WHERE { ?e ex:hasManager ex:bob }"
EMPTY = PREFIX + "SELECT ?e WHERE { ?e ex:hasManager ex:bob . ?e ex:memberOf ex:nowhere }"


def slow_guard(graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    real_check = graph.check

    def check(text: str | bytes, **kwargs: object) -> object:
        time.sleep(seconds)
        return real_check(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graph, "check", check)


def assert_timed_out_in(outcome: ExecuteOutcome, stage: str, backend: CountingBackend) -> None:
    assert outcome.status == "error", outcome.text
    assert outcome.error is not None and outcome.error.kind == "QueryTimeout"
    assert stage in outcome.error.message and stage in outcome.text
    assert backend.texts("guard") == [], "the model's query was sent after the deadline had passed"


def test_the_backend_gets_the_deadline_less_the_guards_time(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_guard(graph, monkeypatch, 0.3)
    outcome = execute(MATCHING, graph=graph, schema=schema, settings=ExecuteSettings(deadline_s=10))
    assert outcome.status == "ok", outcome.text
    (sent,) = [limits for query, limits in zip(backend.queries, backend.limits, strict=True) if query.origin == "guard"]
    assert sent.deadline_s <= 9.75, "the query got the whole deadline although the guard used 0.3 s of it"


def test_a_guard_slower_than_the_deadline_ends_in_a_timeout_with_nothing_sent(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_guard(graph, monkeypatch, 0.3)
    outcome = execute(MATCHING, graph=graph, schema=schema, settings=ExecuteSettings(deadline_s=0.2))
    assert_timed_out_in(outcome, "guard", backend)
    assert backend.queries == [], "a helper or the query reached the store after the guard used the deadline"


def test_a_type_check_slower_than_what_is_left_ends_in_a_timeout(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_check = preflight_module.check_query_types

    def slow_type_check(*args: object, **kwargs: object) -> TypeCheckReport:
        time.sleep(0.3)
        return real_check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(preflight_module, "check_query_types", slow_type_check)
    outcome = execute(MATCHING, graph=graph, schema=schema, settings=ExecuteSettings(deadline_s=0.2))
    assert_timed_out_in(outcome, "type check", backend)


def test_no_query_of_one_call_gets_more_than_the_calls_deadline(
    graph: KnowledgeGraph, backend: CountingBackend, schema: SchemaIndex
) -> None:
    # The helper budgets (5 s each, 20 s for the diagnosis) exceed the call's deadline:
    # each helper, the query and the diagnosis' probes get at most what is left of 1 s.
    outcome = execute(EMPTY, graph=graph, schema=schema, settings=ExecuteSettings(deadline_s=1.0))
    assert outcome.status == "empty", outcome.text
    assert outcome.diagnosis is not None and outcome.diagnosis.probes > 0
    assert {q.origin for q in backend.queries} == {"guard", "template"}
    assert max(limits.deadline_s for limits in backend.limits) <= 1.0
