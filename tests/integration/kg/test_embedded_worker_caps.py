"""Issue 10, holes 6 and 8: the embedded query worker is capped and never runs the host's ``__main__``.

Every memory bomb runs in a driver child under ``RLIMIT_AS`` (``tests/support/capped``), which
the query worker inherits: a regression that lets the worker grow without bound fails the test
(the worker dies at the driver's cap) instead of the machine.

* The bombs of the issue: a cartesian ``ORDER BY`` on CK25, a ``BIND(CONCAT(?a, ?a))`` doubling
  chain, and one huge cell. The first two must end in a typed "narrow it" error after a single
  worker start (never a retry of the query that killed the worker); the cell must come back cut
  to the cell cap with the result marked truncated.
* A plain user script without ``if __name__ == "__main__":`` that embeds the store runs its body
  once and gets its answer.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.capped import run_capped
from tests.support.required import missing

#: The worker's own cap in these tests, and the driver's cap (which the worker inherits).
WORKER_MEMORY_MB = 1536
DRIVER_MEMORY_MB = 3072

DRIVER = """
import json
from pathlib import Path
from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.core.query import CheckedQuery

files = [Path(p) for p in {files!r}]
text = {text!r}
store = EmbeddedStore.from_files(files)
outcome = {{}}
try:
    result = store.execute(
        CheckedQuery(text=text, form="SELECT", origin="guard", source_text=text),
        ExecutionLimits(deadline_s=90.0, max_rows=10),
    )
    outcome = {{
        "status": "ok",
        "truncated": result.truncated,
        "notes": result.notes,
        "cells": [len(term.value) for row in result.rows for term in row.values()],
    }}
except SagaError as exc:
    outcome = {{
        "status": "error",
        "type": type(exc).__name__,
        "message": exc.message,
        "query_at_fault": exc.query_at_fault,
        "retryable": exc.retryable,
    }}
ask = "ASK {{ ?s ?p ?o }}"
outcome["after"] = store.execute(CheckedQuery(text=ask, form="ASK", origin="guard", source_text=ask)).boolean
outcome["worker_starts"] = getattr(store, "worker_starts", None)
store.close()
print(json.dumps(outcome))
"""


def run_bomb(files: list[Path], text: str) -> dict[str, object]:
    run = run_capped(
        DRIVER.format(files=[str(path) for path in files], text=text),
        address_space_mb=DRIVER_MEMORY_MB,
        timeout_s=240.0,
        env={"SAGA_WORKER_MEMORY_MB": str(WORKER_MEMORY_MB)},
    )
    assert run.outcome is not None, f"the driver died (status {run.returncode}): {run.stderr}"
    return run.outcome


@pytest.fixture(scope="module")
def ck25_files(data_dir: Path) -> list[Path]:
    folder = data_dir / "text2sparql_ck25"
    files = [folder / "prod-inst.ttl", folder / "prod-vocab.ttl"]
    if not all(path.is_file() for path in files):
        missing(f"CK25 graph files are absent under {folder}")
    return files


def assert_memory_error_without_retry(outcome: dict[str, object]) -> None:
    assert outcome["status"] == "error", outcome
    assert outcome["type"] == "QueryMemoryExhausted", outcome
    assert "exhausted the worker's memory" in str(outcome["message"])
    assert "narrow it" in str(outcome["message"])
    assert outcome["query_at_fault"] is True and outcome["retryable"] is False
    # One worker ran the bomb and died; the follow-up ASK started the second one. A retry
    # of the bomb would have made it three.
    assert outcome["worker_starts"] == 2, outcome
    assert outcome["after"] is True


def test_cartesian_order_by_on_ck25_is_a_typed_memory_error_never_retried(ck25_files: list[Path]) -> None:
    text = "SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 10"
    assert_memory_error_without_retry(run_bomb(ck25_files, text))


def test_concat_doubling_chain_is_a_typed_memory_error_never_retried(tmp_path: Path) -> None:
    graph = tmp_path / "one.ttl"
    graph.write_text('<http://example.org/s> <http://example.org/p> "o" .\n', encoding="utf-8")
    binds = "".join(f"BIND(CONCAT(?a{i}, ?a{i}) AS ?a{i + 1}) " for i in range(40))
    text = 'SELECT ?a40 WHERE { BIND("' + "x" * 64 + '" AS ?a0) ' + binds + "}"
    assert len(text) < 1500  # a small query: the was 1.1 KB
    assert_memory_error_without_retry(run_bomb([graph], text))


def test_huge_single_cell_is_cut_to_the_cell_cap_and_marked_truncated(tmp_path: Path) -> None:
    graph = tmp_path / "one.ttl"
    graph.write_text('<http://example.org/s> <http://example.org/p> "o" .\n', encoding="utf-8")
    binds = "".join(f"BIND(CONCAT(?a{i}, ?a{i}) AS ?a{i + 1}) " for i in range(26))
    text = 'SELECT ?a26 WHERE { BIND("x" AS ?a0) ' + binds + "}"  # one 64 MiB cell
    outcome = run_bomb([graph], text)
    assert outcome["status"] == "ok", outcome
    cells = outcome["cells"]
    assert isinstance(cells, list) and len(cells) == 1
    assert 0 < cells[0] <= 1024 * 1024, "the cell crossed into the host uncut"
    assert outcome["truncated"] is True
    assert any("cell cap" in note for note in outcome["notes"]), outcome  # type: ignore[attr-defined]


PLAIN_SCRIPT = """\
import json
from pathlib import Path

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend

with Path({marker!r}).open("a", encoding="utf-8") as handle:
    handle.write("body ran\\n")
with KnowledgeGraph(open_backend(data=[Path({graph!r})])) as graph:
    result = graph.query("SELECT ?o WHERE {{ ?s ?p ?o }}")
print(json.dumps([term.value for term in result.column("o")]))
"""


def test_plain_script_without_main_guard_embeds_the_store_and_runs_once(tmp_path: Path) -> None:
    graph = tmp_path / "one.ttl"
    graph.write_text('<http://example.org/s> <http://example.org/p> "answer" .\n', encoding="utf-8")
    marker = tmp_path / "marker.txt"
    script = tmp_path / "user_script.py"
    script.write_text(PLAIN_SCRIPT.format(marker=str(marker), graph=str(graph)), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout.strip().splitlines()[-1]) == ["answer"]
    assert marker.read_text(encoding="utf-8") == "body ran\n", "the worker re-ran the user's script"
