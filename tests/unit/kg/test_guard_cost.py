"""The guard's own cost is capped before parsing and counted against the deadline (issue 10, hole 12).

A 19 KB ``a.a.a…`` query cost 10 s in the tokenizer and a 3,000-argument CONCAT 11 s in
the parser. Timings are for bench/; here the checks are structural: the tokenizer's
work is linear (counted regex steps are not timed, so a proxy is used: a text 4x longer
must not cost 16x), and oversized expressions are refused before the parser runs.
"""

from __future__ import annotations

import gc
import time

import pytest

from saga_kgqa.errors import QueryRejected, QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard import query_guard as guard_module
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.kg.guard.sparql_lexer import tokenize
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

GUARD = QueryGuard(get_profile("generic"))


class LimitsBackend:
    """A KGBackend that records the limits each query reached it with."""

    def __init__(self, profile: EndpointProfile) -> None:
        self._profile = profile
        self.executed: list[CheckedQuery] = []
        self.limits: list[ExecutionLimits] = []

    @property
    def endpoint_id(self) -> str:
        return "limits"

    @property
    def profile(self) -> EndpointProfile:
        return self._profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.executed.append(query)
        self.limits.append(limits or ExecutionLimits())
        return QueryResult(form=query.form, variables=[], rows=[])

    def close(self) -> None:
        pass


@pytest.mark.parametrize("unit", ["a.", "a-", "a.1.", "ab.c-"])
def test_tokenizing_runs_of_names_and_dots_is_linear(unit: str) -> None:
    # 16x the text: linear work costs about 16x, the old quadratic scan about 256x. The
    # threshold sits far from both, and the best of several runs (garbage collector off)
    # keeps a busy shared machine from deciding the outcome.
    def cost(repeat: int) -> float:
        text = "SELECT * WHERE { ?s ?p " + unit * repeat + "a }"
        best = float("inf")
        gc.disable()
        try:
            for _ in range(5):
                started = time.perf_counter()
                tokenize(text)
                best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
        return best

    small, large = cost(1000), cost(16000)
    assert large < 80 * max(small, 1e-4), f"16x the text cost {large / max(small, 1e-4):.0f}x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.b.c", ["word:a", "punct:.", "word:b", "punct:.", "word:c"]),
        ("true.FILTER", ["word:true", "punct:.", "word:FILTER"]),
        ("a.5", ["word:a", "number:.5"]),
        ("a-b.c", ["word:a", "punct:-", "word:b", "punct:.", "word:c"]),
        ("ex:a.b", ["pname:ex:a.b"]),
        ("a.b:c", ["pname:a.b:c"]),
        ("SELECT", ["word:SELECT"]),
    ],
)
def test_runs_are_split_into_the_same_tokens_as_before(text: str, expected: list[str]) -> None:
    assert [f"{t.kind}:{t.text}" for t in tokenize(text)] == expected


@pytest.mark.parametrize(
    "query",
    [
        "SELECT (CONCAT(" + ",".join(['"x"'] * 3000) + ") AS ?c) {}",
        "SELECT (" + "+".join(["1"] * 3000) + " AS ?c) {}",
        "SELECT ?x { ?x ?p ?o FILTER(?o IN (" + ",".join(str(i) for i in range(3000)) + ")) }",
    ],
)
def test_huge_expressions_are_refused_before_parsing(query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_parse(text: str) -> object:
        raise AssertionError("the parser ran")

    monkeypatch.setattr(guard_module.sparql_grammar, "parse_query", no_parse)
    with pytest.raises(QueryRejected) as caught:
        GUARD.check(query)
    assert caught.value.reason == "too_complex"
    assert "limit" in caught.value.message


def test_many_tokens_are_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard_module.sparql_grammar, "parse_query", lambda text: pytest.fail("the parser ran"))
    query = "SELECT ?x { VALUES ?x { " + " ".join(["1"] * 6000) + " } }"
    with pytest.raises(QueryRejected, match="tokens") as caught:
        GUARD.check(query)
    assert caught.value.reason == "too_complex"


def test_the_guards_time_counts_against_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = LimitsBackend(get_profile("generic"))
    graph = KnowledgeGraph(backend)
    real_check = graph.guard.check

    def slow_check(text: str | bytes, **kwargs: object) -> object:
        time.sleep(0.3)
        return real_check(text, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graph.guard, "check", slow_check)
    graph.query("SELECT ?s WHERE { ?s ?p ?o }", ExecutionLimits(deadline_s=10))
    sent = backend.limits[-1]
    assert sent.deadline_s <= 9.75, "the backend got the whole deadline although the guard used 0.3 s of it"
    with pytest.raises(QueryTimeout, match="guard"):
        graph.query("SELECT ?s WHERE { ?s ?p ?o }", ExecutionLimits(deadline_s=0.2))
    assert len(backend.executed) == 1
