"""``saga execute`` through typer's CliRunner: the observation, JSON, exit statuses, modes and schema files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app

runner = CliRunner()
COMPANY_TTL = Path(__file__).resolve().parents[2] / "data" / "execute" / "company.ttl"
PREFIX = "PREFIX ex: <http://example.org/company/> "


def saga(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def schema_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("schema") / "company.json"
    code, _stdout, stderr = saga("index", "build", "--data", str(COMPANY_TTL), "--out", str(out))
    assert code == 0, stderr
    return out


def test_a_blocked_query_prints_the_reason_and_exits_3(schema_file: Path) -> None:
    query = PREFIX + "SELECT ?m WHERE { ex:laptop ex:hasManager ?m }"
    code, stdout, _ = saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), query)
    assert code == 3
    assert stdout.startswith("[BLOCKED] Not run: 1 triple pattern contradicts the known types.")
    assert "ex:laptop has type ex:Hardware" in stdout


def test_a_result_prints_the_table_and_json_has_the_outcome(schema_file: Path) -> None:
    query = PREFIX + "SELECT ?x WHERE { ?x a ex:Manager }"
    code, stdout, _ = saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), query)
    assert code == 0
    assert stdout.splitlines()[0] == "[OK] Result: 1 row, showing all."
    args = ("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), "--json", "-")
    code, stdout, _ = saga(*args, stdin=query)
    assert code == 0
    outcome = json.loads(stdout)
    assert (outcome["status"], outcome["row_count"]) == ("ok", 1)
    assert "result" not in outcome  # the raw result stays out of the JSON
    assert outcome["theta_delta"]["entries"]["?x"][0]["provenance"] in ("pattern", "trace")


def test_exact_mode_and_schema_only_checks_from_the_shell(schema_file: Path) -> None:
    manager = PREFIX + "SELECT ?m WHERE { ex:bob ex:hasManager ?m }"
    assert saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), manager)[0] == 0
    assert saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), "--exact", manager)[0] == 3
    robot = PREFIX + "SELECT ?m WHERE { ex:robot ex:supervisedBy ?m }"
    assert saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), robot)[0] == 0
    assert saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), "--no-verify", robot)[0] == 3


def test_rejected_queries_exit_2_and_a_missing_schema_file_is_a_clear_error(schema_file: Path) -> None:
    code, stdout, _ = saga("execute", "--data", str(COMPANY_TTL), "--schema", str(schema_file), "CLEAR ALL")
    assert code == 2
    assert stdout.startswith("[REJECTED]")
    code, _stdout, stderr = saga("execute", "--data", str(COMPANY_TTL), "--schema", "/nonexistent/s.json", "ASK {}")
    assert code == 2
    assert "schema index not found" in stderr
