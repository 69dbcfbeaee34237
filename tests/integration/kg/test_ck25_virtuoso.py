"""The 50 CK25 reference queries on a real Virtuoso 7.2.5, compared with the embedded store (issue 12, item 3).

Both run the same guarded query text over the same data (Virtuoso: the CK25 named graph
as the default graph). 45 of 50 always give the same set of values; the five others are
checked below for what makes them differ:

* 25: Virtuoso divides integers as integers, so ``?w * ?d * ?h / 1000000000`` is 0 and
  the next division fails with SQLSTATE 22012; written with decimal divisors it gives
  the embedded store's answer;
* 29, 46, 50: ORDER BY ... LIMIT windows whose edge falls inside a tie: each store picks
  an equally correct set of tied rows, the same or not (Virtuoso's choice varied between runs);
* 41: the same values, but Virtuoso's integer division makes the percentage an
  ``xsd:integer`` where the embedded store gives an ``xsd:decimal``.

(37 and 42 use the ``xsd:int()`` cast, which pyoxigraph lacks; the embedded store has had it as a
custom function since faults AE2, and both stores give the official answer.)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from saga_kgqa.errors import QueryEvaluationError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from tests.support.virtuoso_server import CK25_GRAPH, VirtuosoServer

pytestmark = pytest.mark.shared_data

XSD = "http://www.w3.org/2001/XMLSchema#"
INTEGER_DIVISION_FAILS = {25}
# Their xsd:int() cast: Virtuoso has it; the embedded store has it since faults AE2 (both give the official answer).
XSD_INT_QUERIES = {37, 42}
# question id -> (identifying variable, sort variable, LIMIT, OFFSET)
ORDER_TIES = {
    29: ("name", "price", 5, 10),
    46: ("result", "averageReliabilityIndex", 5, 0),
    50: ("result", "count", 1, 0),
}
INTEGER_RESULT = {41}
EXPLAINED = INTEGER_DIVISION_FAILS | set(ORDER_TIES) | INTEGER_RESULT
LIMITS = ExecutionLimits(deadline_s=30, max_rows=10_000)

Stores = tuple[KnowledgeGraph, KnowledgeGraph, dict[int, str], dict[str, dict[str, int]]]


def _values(result: QueryResult) -> set[str]:
    if result.form == "ASK":
        return {"true" if result.boolean else "false"}
    return {term.value for row in result.rows for term in row.values()}


@pytest.fixture(scope="module")
def stores(virtuoso: VirtuosoServer, data_dir: Path) -> Iterator[Stores]:
    base = data_dir / "text2sparql_ck25"
    virtuoso.load(base / "prod-inst.ttl", CK25_GRAPH)
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    gold = json.loads((base / "ck25_true_result_set.json").read_text(encoding="utf-8"))
    remote = KnowledgeGraph(open_backend(endpoint=virtuoso.url, profile="virtuoso", default_graphs=[CK25_GRAPH]))
    embedded = KnowledgeGraph(open_backend(data=[base / "prod-inst.ttl"]))
    yield remote, embedded, {q["id"]: q["query"]["sparql"] for q in questions}, gold
    remote.close()
    embedded.close()


def test_45_reference_queries_agree_with_the_embedded_store(stores: Stores) -> None:
    remote, embedded, queries, _gold = stores
    assert len(queries) == 50
    agreed = []
    for qid, text in queries.items():
        if qid in EXPLAINED:
            continue
        on_virtuoso, locally = remote.query(text, limits=LIMITS), embedded.query(text, limits=LIMITS)
        assert on_virtuoso.complete and not on_virtuoso.truncated, qid
        assert _values(on_virtuoso) == _values(locally), f"question {qid}"
        agreed.append(qid)
    assert len(agreed) == 45


def test_integer_division_by_zero_fails_on_virtuoso_only(stores: Stores) -> None:
    remote, embedded, queries, _gold = stores
    text = queries[25]
    with pytest.raises(QueryEvaluationError, match="22012"):
        remote.query(text, limits=LIMITS)
    decimal = text.replace("/ 1000000000 ", "/ 1000000000.0 ").replace("/ 1000 ", "/ 1000.0 ")
    assert decimal != text
    assert _values(remote.query(decimal, limits=LIMITS)) == _values(embedded.query(text, limits=LIMITS))


def test_xsd_int_cast_gives_the_official_answer_on_both_stores(stores: Stores) -> None:
    remote, embedded, queries, gold = stores
    for qid in XSD_INT_QUERIES:
        assert "xsd:int(" in queries[qid]
        official = set(gold[f"ck25:{qid}-en"])
        assert _values(remote.query(queries[qid], limits=LIMITS)) == official, qid
        assert _values(embedded.query(queries[qid], limits=LIMITS)) == official, qid  # faults AE2


def test_tied_order_windows_are_both_valid(stores: Stores) -> None:
    remote, embedded, queries, _gold = stores
    for qid, (ident, key, limit, offset) in ORDER_TIES.items():
        text = queries[qid]
        window = f"LIMIT {limit} OFFSET {offset}" if offset else f"LIMIT {limit}"
        assert window in text
        ranked = embedded.query(text.replace(window, f"LIMIT {offset + limit + 50}"), limits=LIMITS).rows
        keys = [float(row[key].value) for row in ranked]
        low, high = keys[offset + limit - 1], keys[offset]
        in_window = {row[ident].value for row, k in zip(ranked, keys, strict=True) if low <= k <= high}
        answers = [{row[ident].value for row in store.query(text, limits=LIMITS).rows} for store in (remote, embedded)]
        # Which tied rows a store returns is its own choice (Virtuoso's can change between loads).
        assert all(len(found) == limit and found <= in_window for found in answers), qid
        assert keys.count(low) > 1 or keys.count(high) > 1


def test_percentage_is_an_integer_on_virtuoso(stores: Stores) -> None:
    remote, embedded, queries, _gold = stores
    on_virtuoso, locally = remote.query(queries[41], limits=LIMITS), embedded.query(queries[41], limits=LIMITS)
    assert _values(on_virtuoso) == _values(locally)
    assert {row["pct"].datatype for row in on_virtuoso.rows} == {XSD + "integer"}
    assert {row["pct"].datatype for row in locally.rows} == {XSD + "decimal"}
