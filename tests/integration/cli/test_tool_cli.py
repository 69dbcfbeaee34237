"""``saga index build``, ``saga search``, ``saga lookup`` and ``saga examples`` through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.kg.embedded.declared_prefixes import read_declared_prefixes
from saga_kgqa.schema import SchemaIndex
from tests.support.grounding import EX, MINI_TTL, RES

runner = CliRunner()
CK25_KAREN = "http://ld.company.org/prod-instances/empl-Karen.Brant%40company.org"
PV = "http://ld.company.org/prod-vocab/"


def saga(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def mini_schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("schema") / "mini.json"
    code, _stdout, stderr = saga("index", "build", "--data", str(MINI_TTL), "--out", str(out))
    assert code == 0, stderr
    return out


def test_index_build_prints_coverage_and_writes_the_index(mini_schema: Path) -> None:
    index = SchemaIndex.load(mini_schema)
    assert index.properties[EX + "price"].domain == frozenset({EX + "Product"})
    code, stdout, _ = saga("index", "build", "--data", str(MINI_TTL), "--out", str(mini_schema), "--json")
    assert code == 0
    coverage = json.loads(stdout)
    formal = sum(1 for p in index.properties.values() if p.domain_source == "formal")
    assert coverage["domain_by_source"]["formal"] == formal
    assert coverage["properties"] == len(index.properties)
    assert coverage["with_domain"] == sum(coverage["domain_by_source"].values())
    code, stdout, _ = saga("index", "build", "--data", str(MINI_TTL), "--out", str(mini_schema))
    assert f"properties indexed: {len(index.properties)}" in stdout
    assert f"with domain: {coverage['with_domain']} (formal {formal}" in stdout


def test_lookup_plain_shows_the_observation(mini_schema: Path) -> None:
    code, stdout, _ = saga("lookup", "--data", str(MINI_TTL), "--schema", str(mini_schema), "res:alice")
    assert code == 0
    assert stdout.startswith('Entity "Alice Smith" (res:alice)')
    assert (
        "1 property hidden (subclass check), domain conflicts with the types above: ex:price (domain ex:Product)"
        in stdout
    )


def test_lookup_json_and_exact_mode(mini_schema: Path) -> None:
    code, stdout, _ = saga(
        "lookup", "--data", str(MINI_TTL), "--schema", str(mini_schema), "--json", "--exact", RES + "alice"
    )
    assert code == 0
    data = json.loads(stdout)
    assert data["mode"] == "exact"
    hidden = {h["info"]["property"]["id"]: h["reason"] for h in data["hidden"]}
    assert set(hidden) == {"ex:price", "ex:email", "ex:livesIn", "ex:manages"}
    assert "Person" in hidden["ex:email"]
    assert "text" not in data


def test_search_and_examples_build_the_schema_on_the_fly() -> None:
    code, stdout, stderr = saga("search", "--data", str(MINI_TTL), "Alice")
    assert code == 0
    assert '"Alice Smith" (res:alice)' in stdout
    # Built in this command, or by an earlier one over the same content (kept per content: issue 27).
    assert "schema index on the fly" in stderr or "schema index built on the fly" in stderr
    code, stdout, _ = saga("examples", "--data", str(MINI_TTL), "ex:memberOf", "--json")
    assert code == 0
    assert json.loads(stdout)["found"] is True


def test_bad_argument_exits_2_with_a_reason(mini_schema: Path) -> None:
    code, stdout, stderr = saga("lookup", "--data", str(MINI_TTL), "--schema", str(mini_schema), "Alice Smith")
    assert code == 2
    assert stdout == ""
    assert "looks like text" in stderr


def test_missing_schema_file_is_a_configuration_error(tmp_path: Path) -> None:
    code, _, stderr = saga("lookup", "--data", str(MINI_TTL), "--schema", str(tmp_path / "none.json"), "res:alice")
    assert code == 2
    assert "schema index not found" in stderr


def test_declared_prefixes_are_read_from_the_file_head() -> None:
    prefixes = read_declared_prefixes([MINI_TTL])
    assert prefixes["ex"] == EX
    assert prefixes["res"] == RES
    assert "" not in prefixes


@pytest.mark.shared_data
def test_ck25_lookup_of_an_employee(data_dir: Path, tmp_path: Path) -> None:
    ck25 = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    schema = tmp_path / "ck25.json"
    assert saga("index", "build", "--data", ck25, "--out", str(schema))[0] == 0
    code, stdout, _ = saga("lookup", "--data", ck25, "--schema", str(schema), "--json", CK25_KAREN)
    assert code == 0
    data = json.loads(stdout)
    assert [t["iri"] for t in data["types"]] == [PV + "Employee"]
    kept = {k["info"]["property"]["iri"]: k for k in data["kept"]}
    assert {PV + "memberOf", PV + "hasManager", PV + "email"} <= set(kept)
    assert kept[PV + "memberOf"]["basis"] == "subclass"  # Employee ⊑ Agent
    assert [r["iri"] for r in kept[PV + "memberOf"]["info"]["domain"]] == [PV + "Agent"]
    assert data["hidden"] == []

    code, stdout, _ = saga("lookup", "--data", ck25, "--schema", str(schema), "--json", "--exact", CK25_KAREN)
    exact = json.loads(stdout)
    hidden = {h["info"]["property"]["iri"]: h for h in exact["hidden"]}
    assert PV + "memberOf" in hidden
    assert hidden[PV + "memberOf"]["basis"] == "conflict"
    assert "Agent" in hidden[PV + "memberOf"]["reason"]

    code, stdout, _ = saga("lookup", "--data", ck25, "--schema", str(schema), CK25_KAREN)
    assert stdout.startswith('Entity "Karen Brant" (prodi:empl-Karen.Brant%40company.org)')
    member_line = next(line for line in stdout.splitlines() if line.startswith("- pv:memberOf"))
    # Its domain pv:Agent admits pv:Employee, so only the header says so; the range stays on the line.
    assert "hidden), whose domains admit the types above unless stated:" in stdout
    assert member_line.startswith('- pv:memberOf: "The department to which an agents belongs" — range: pv:Department')
    assert "0 properties hidden: none conflicts with the types above" in stdout
    assert " — value: " in member_line
    code, stdout, _ = saga("lookup", "--data", ck25, "--schema", str(schema), "--values", "0", CK25_KAREN)
    counted_line = next(line for line in stdout.splitlines() if line.startswith("- pv:memberOf"))
    assert counted_line == member_line.split(" — value: ")[0] + " — 1 value"
    code, stdout, _ = saga("lookup", "--data", ck25, "--schema", str(schema), "--exact", CK25_KAREN)
    assert "5 properties hidden (exact check), domain conflicts with the types above: " in stdout
    assert "pv:memberOf (domain pv:Agent)" in stdout
