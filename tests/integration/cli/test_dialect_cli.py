"""``saga index build --dialect wikidata|freebase`` through typer's CliRunner."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.schema import SchemaIndex
from tests.support.dialect_data import write_freebase_sources, write_wikidata_sources
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

runner = CliRunner()
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
NS = "http://rdf.freebase.com/ns/"
CONSTRAINTS = Path(__file__).resolve().parents[2] / "data" / "wikidata" / "constraints.ttl"


def saga(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    write_wikidata_sources(root)
    write_freebase_sources(root)
    return root


def test_freebase_build_prints_coverage_and_writes_the_index(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "freebase.json"
    code, stdout, stderr = saga(
        "index", "build", "--dialect", "freebase", "--data-dir", str(data_root), "--out", str(out)
    )
    assert code == 0, stderr
    index = SchemaIndex.load(out)
    with_domain = sum(1 for p in index.properties.values() if p.domain)
    assert f"properties indexed: {len(index.properties)}" in stdout
    assert f"with domain: {with_domain} (formal {with_domain})" in stdout
    assert f"domain by origin: fb_roles {with_domain}" in stdout
    assert index.properties[NS + "film.film.directed_by"].domain == {NS + "film.film"}


def test_wikidata_build_reports_every_origin_as_json(data_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "wikidata.json"
    args = ("index", "build", "--dialect", "wikidata", "--data-dir", str(data_root), "--out", str(out), "--json")
    code, stdout, stderr = saga(*args)
    assert code == 0, stderr
    coverage = json.loads(stdout)
    index = SchemaIndex.load(out)
    assert coverage["properties"] == len(index.properties)
    assert coverage["with_domain"] == sum(1 for p in index.properties.values() if p.domain)
    assert set(coverage["domain_by_source"]) == {"curated", "induced"}
    assert set(coverage["domain_by_origin"]) == {
        "yago45_schema",
        "text2kgbench_wikidata_ontologies",
        "codex:codex-m/train",
    }
    assert coverage["domain_by_origin"]["yago45_schema"] == sum(
        1 for p in index.properties.values() if "yago45_schema" in p.domain_origins
    )


@pytest.fixture(scope="module")
def wikidata_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    with serving_in_test(CONSTRAINTS, tmp_path_factory) as server:
        yield server


def test_wikidata_build_from_an_endpoint_reads_p2302(
    wikidata_server: OxigraphServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No offline sources where the default data directory points: the constraints alone, and it says so.
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "absent"))
    out = tmp_path / "p2302.json"
    code, stdout, stderr = saga(
        "index", "build", "--dialect", "wikidata", "--endpoint", wikidata_server.url, "--out", str(out)
    )
    assert code == 0, stderr
    assert "offline fill skipped" in stderr
    index = SchemaIndex.load(out)
    assert index.properties[WDT + "P57"].domain == {WD + "Q11424", WD + "Q21191270"}
    # P57, P2670, P54 and P6 have readable subject-type constraints in the fixture.
    assert "domain by origin: wikidata:P2302 4" in stdout


def test_wikidata_endpoint_constraints_filled_from_offline_sources(
    wikidata_server: OxigraphServer, data_root: Path, tmp_path: Path
) -> None:
    out = tmp_path / "combined.json"
    args = ("--dialect", "wikidata", "--endpoint", wikidata_server.url, "--data-dir", str(data_root))
    code, _stdout, stderr = saga("index", "build", *args, "--out", str(out))
    assert code == 0, stderr
    index = SchemaIndex.load(out)
    director = index.properties[WDT + "P57"]
    assert (director.domain, director.domain_origins) == ({WD + "Q11424", WD + "Q21191270"}, ("wikidata:P2302",))
    author = index.properties[WDT + "P50"]  # its P2302 subject type is deprecated: YAGO fills it
    assert author.domain_source == "curated" and author.range_origins == ("wikidata:P2302",)
    assert index.properties[WDT + "P27"].domain_origins == ("codex:codex-m/train",)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--dialect", "dbpedia"), "is not a dialect"),
        (("--dialect", "freebase", "--data", "x.ttl"), "not --data"),
        (("--dialect", "freebase", "--data-dir", "/nonexistent/saga"), "does not exist"),
        (("--data-dir", "/tmp"), "--data-dir is for --dialect"),
        (("--dialect", "freebase", "--endpoint", "http://127.0.0.1:9/sparql"), "only the wikidata dialect"),
    ],
)
def test_contradicting_options_are_clear_errors(extra: tuple[str, ...], message: str, tmp_path: Path) -> None:
    code, stdout, stderr = saga("index", "build", "--out", str(tmp_path / "x.json"), *extra)
    assert code != 0
    assert message in stdout + stderr
    assert not (tmp_path / "x.json").exists()
