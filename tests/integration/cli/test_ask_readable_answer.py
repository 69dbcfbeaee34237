"""``saga ask`` shows the 47-row CK25 staff directory readably in 80 columns; ``--json`` keeps the exact IRIs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.loaders import load_benchmark
from tests.support.http_servers import SAGA, server_env
from tests.support.openai_mock import MockReply, MockToolCall, serve_openai_mock

pytestmark = pytest.mark.shared_data

ANSWER_TYPE = MockReply(content=json.dumps({"answer_type_label": "employee", "answer_type_id": ""}))
STOP = MockReply(tool_calls=(MockToolCall("stop", {}),))


def ask(data_dir: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    (question,) = [q for q in load_benchmark("ck25", data_dir).questions if q.id == "ck25:27-en"]
    assert question.gold_sparql
    script = [ANSWER_TYPE, MockReply(tool_calls=(MockToolCall("execute", {"sparql": question.gold_sparql}),)), STOP]
    graph = data_dir / "text2sparql_ck25" / "prod-inst.ttl"
    with serve_openai_mock(script) as mock:
        args = [SAGA, "ask", question.question, "--data", str(graph), "--base-url", mock.base_url, "--model", "m"]
        args += ["--checkpoint-db", str(tmp_path / f"c{len(extra)}.sqlite"), "--quiet", *extra]
        return subprocess.run(
            args, env=server_env({"COLUMNS": "80"}), capture_output=True, text=True, timeout=300, check=False
        )


def test_a_47_row_answer_fits_80_columns_with_labels_and_short_names(data_dir: Path, tmp_path: Path) -> None:
    done = ask(data_dir, tmp_path)
    assert done.returncode == 0, done.stderr
    Path("/tmp/web21").mkdir(parents=True, exist_ok=True)
    Path("/tmp/web21/ck25-47-rows-80-columns.txt").write_text(done.stdout, encoding="utf-8")
    table = [line for line in done.stdout.splitlines() if line.startswith(("│", "┃"))]
    assert all(len(line) <= 80 for line in done.stdout.splitlines() if line.startswith(("┏", "│", "└")))
    assert "47 rows" in done.stdout  # the one wording of counts (issue 37 point 3)
    assert "http://ld.company.org/pr…" not in done.stdout  # the bare, cut IRI of before
    # Each employee by its label, then its short prefixed name (wrapped in the cell, never cut).
    first_column = "".join(line.split("│")[1].strip() for line in table[1:])
    assert first_column.count("(prodi:empl-") == 47
    assert first_column.startswith("Adolfina Hoch(prodi:empl-")  # ORDER BY ?name: the first name's label


def test_json_keeps_the_exact_iris_and_adds_their_views(data_dir: Path, tmp_path: Path) -> None:
    done = ask(data_dir, tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    rows = result["answer"]["rows"]
    assert len(rows) == 47 and all(row["empl"].startswith("http://ld.company.org/") for row in rows)
    views = result["answer_views"]
    assert set(views) == {row["empl"] for row in rows}
    assert all(view["label"] and not view["short"].startswith("<http") for view in views.values())
