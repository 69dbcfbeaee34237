"""The 50 TEXT2SPARQL'25 CK25 reference queries through saga's guard and embedded store.

The official result set (``ck25_true_result_set.json``) maps each question to the set of
distinct cell values of its result (counts are all 1, except the ASK question 33). The
data directory's README (§5A) finds 44 of the 50 reproduce on an in-memory pyoxigraph
store and explains the other 6. On saga's on-disk store 44 reproduce exactly (42 before
faults AE2 gave the store the ``xsd:int`` cast of 37 and 42): two more than the README's
6 (29, 46) are ORDER BY ... LIMIT windows whose edge falls inside a tie, where the store's
storage order picks among equally correct answers. All 6 are checked below, each for
what makes it differ.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend

pytestmark = pytest.mark.shared_data

# Explained differences between local evaluation and the official result set.
OFFICIAL_EMPTY = {25, 41}  # the official set is empty although the query has answers (reference-endpoint quirk)
ASK_DISAGREES = {33}  # official {"true": 0}; the query is false on the published data
# ORDER BY ... LIMIT over tied sort keys: any tie-break is a correct answer. The data README
# counts 50 only; 29 and 46 also tie at the window's edge, and which tied rows a store
# returns depends on its storage order (pyoxigraph's on-disk store, which saga uses so the
# killable worker can share it, breaks these ties differently from its in-memory store).
# question id -> (identifying variable, sort variable, LIMIT, OFFSET, descending)
ORDER_TIES = {
    29: ("name", "price", 5, 10),
    46: ("result", "averageReliabilityIndex", 5, 0),
    50: ("result", "count", 1, 0),
}
# 37 and 42 use the xsd:int() cast pyoxigraph lacks; they reproduce since the store has it (faults AE2).
EXPLAINED = OFFICIAL_EMPTY | ASK_DISAGREES | set(ORDER_TIES)


def _value_set(result: QueryResult) -> set[str]:
    if result.form == "ASK":
        return {"true" if result.boolean else "false"}
    return {term.value for row in result.rows for term in row.values()}


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[tuple[KnowledgeGraph, list[dict[str, Any]], dict[str, dict[str, int]]]]:
    base = data_dir / "text2sparql_ck25"
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    gold = json.loads((base / "ck25_true_result_set.json").read_text(encoding="utf-8"))
    graph = KnowledgeGraph(open_backend(data=[base / "prod-inst.ttl"]))
    yield graph, questions, gold
    graph.close()


def _run(graph: KnowledgeGraph, text: str) -> QueryResult:
    return graph.query(text, limits=ExecutionLimits(deadline_s=30, max_rows=10_000))


def test_reference_queries_reproduce_the_official_result_set(ck25: Any) -> None:
    graph, questions, gold = ck25
    assert len(questions) == 50
    matched = []
    for question in questions:
        qid = question["id"]
        if qid in EXPLAINED:
            continue
        result = _run(graph, question["query"]["sparql"])
        assert not result.truncated, qid
        assert _value_set(result) == set(gold[f"ck25:{qid}-en"]), f"question {qid}"
        matched.append(qid)
    assert len(matched) == 50 - len(EXPLAINED) == 44


def _assert_tie_consistent(graph: KnowledgeGraph, text: str, qid: int, gold: dict[str, dict[str, int]]) -> None:
    """The official and the local answer are both valid tie-breaks of the same ORDER BY window."""
    ident, key, limit, offset = ORDER_TIES[qid]
    window = f"LIMIT {limit} OFFSET {offset}" if offset else f"LIMIT {limit}"
    assert window in text
    ranked = _run(graph, text.replace(window, f"LIMIT {offset + limit + 50}")).rows
    local = _run(graph, text).rows
    assert len(local) == limit
    keys = [float(row[key].value) for row in ranked]
    low, high = keys[offset + limit - 1], keys[offset]
    in_window = {row[ident].value for row, k in zip(ranked, keys, strict=True) if low <= k <= high}
    official_ids = {v for v in gold[f"ck25:{qid}-en"] if v in {row[ident].value for row in ranked}}
    assert len(official_ids) == limit
    assert official_ids <= in_window, f"question {qid}: official answer outside the tie window"
    assert {row[ident].value for row in local} <= in_window
    # A tie really exists at the edge of the window, or the answers could not differ.
    assert keys.count(low) > 1 or keys.count(high) > 1


def test_the_six_explained_differences(ck25: Any) -> None:
    graph, questions, gold = ck25
    by_id = {q["id"]: q["query"]["sparql"] for q in questions}
    for qid in OFFICIAL_EMPTY:
        assert gold[f"ck25:{qid}-en"] == {}
        assert _run(graph, by_id[qid]).rows, f"question {qid} has local answers"
    assert gold["ck25:33-en"] == {"true": 0}
    assert _run(graph, by_id[33]).boolean is False
    for qid in ORDER_TIES:
        _assert_tie_consistent(graph, by_id[qid], qid, gold)


def test_saga_sparql_cli_answers_a_reference_query(data_dir: Path) -> None:
    base = data_dir / "text2sparql_ck25"
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    gold = json.loads((base / "ck25_true_result_set.json").read_text(encoding="utf-8"))
    query = questions[0]["query"]["sparql"]
    proc = subprocess.run(
        [sys.executable, "-m", "saga_kgqa", "sparql", "--data", str(base / "prod-inst.ttl"), "--json", query],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = QueryResult.from_sparql_json(json.loads(proc.stdout)["result"])
    assert _value_set(result) == set(gold["ck25:1-en"])


def test_saga_sparql_cli_rejects_an_update_with_exit_status_2(data_dir: Path) -> None:
    base = data_dir / "text2sparql_ck25"
    proc = subprocess.run(
        [sys.executable, "-m", "saga_kgqa", "sparql", "--data", str(base / "prod-inst.ttl"), "DROP ALL"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "QueryRejected" in lines[0]
