"""``saga source …`` and ``saga search/lookup/execute --source`` on an embedded store and a loopback endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.schema.survey_cache import SURVEY_DIR_ENV, forget_surveys
from tests.conftest import TEST_DATA
from tests.support.oxigraph_server import OxigraphServer, serving_in_test
from tests.support.virtuoso_server import VirtuosoServer

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"
runner = CliRunner()
BLOCKED = f"SELECT ?i WHERE {{ ?p a <{L}Protein> ; <{L}worksAt> ?i }}"


def saga(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def lab_triples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab graph without its named graphs (the loopback server's default graph is not their union)."""
    store = ox.Store()
    store.bulk_load(path=str(LAB), format=ox.RdfFormat.TRIG)
    out = tmp_path_factory.mktemp("lab") / "lab.nt"
    ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in store], str(out), ox.RdfFormat.N_TRIPLES)
    return out


@pytest.fixture(scope="module")
def server(lab_triples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    with serving_in_test(lab_triples, tmp_path_factory) as running:
        yield running


@pytest.fixture()
def catalog(tmp_path: Path, server: OxigraphServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    forget_surveys()
    monkeypatch.setenv(SURVEY_DIR_ENV, str(tmp_path / "cache"))
    store = tmp_path / "store"
    code, _out, err = saga("load", str(LAB), "--store", str(store))
    assert code == 0, err
    assert (store / "saga-fulltext").is_dir()  # built with the store
    path = tmp_path / "catalog.toml"
    path.write_text(
        f'[sources.lab]\nstore = "{store}"\ncategories = ["biology"]\n'
        f'[sources.remote]\nendpoint = "{server.url}"\ntitle = "Lab over HTTP"\n',
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize("source", ["lab", "remote"])
def test_source_commands_on_store_and_endpoint(catalog: Path, source: str) -> None:
    _every_source_command(catalog, source)


@pytest.mark.shared_data
def test_source_commands_on_virtuoso(
    virtuoso: VirtuosoServer, lab_triples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real Virtuoso of the session, the lab graph in a named graph of its own as the source's default graph.
    forget_surveys()
    monkeypatch.setenv(SURVEY_DIR_ENV, str(tmp_path / "cache"))
    virtuoso.load(lab_triples, "http://saga.test/source-cli-lab")
    catalog = tmp_path / "catalog.toml"
    catalog.write_text(
        f'[sources.virt]\nendpoint = "{virtuoso.url}"\nprofile = "virtuoso"\n'
        'default_graphs = ["http://saga.test/source-cli-lab"]\n',
        encoding="utf-8",
    )
    _every_source_command(catalog, "virt")


def _every_source_command(catalog: Path, source: str) -> None:
    code, out, err = saga("source", "survey", source, "--catalog", str(catalog))
    assert code == 0, err
    assert "surveyed 4 classes of 4" in out
    code, out, _ = saga("source", "summary", source, "--catalog", str(catalog))
    assert code == 0 and "Scientist" in out and "coverage: " in out
    code, out, _ = saga("source", "resolve", source, "UniProt:P12345", "--catalog", str(catalog), "--json")
    assert code == 0
    assert json.loads(out)["candidates"][0]["iri"] == L + "p1"
    code, out, _ = saga("search", "Gene Centre", "--source", source, "--catalog", str(catalog), "--json")
    assert code == 0
    assert json.loads(out)["hits"][0]["resource"]["iri"] == L + "inst2"
    code, out, err = saga("lookup", f"<{L}alice>", "--source", source, "--catalog", str(catalog))
    assert code == 0 and "worksAt" in out, err
    code, out, _ = saga("execute", BLOCKED, "--source", source, "--catalog", str(catalog))
    assert code == 3 and "[BLOCKED]" in out
    code, out, _ = saga("source", "expand", source, f"<{L}alice>", "--catalog", str(catalog))
    assert code == 0 and "Basel" in out  # one hop through the address blank node


def test_catalog_list_find_categories_and_bridge(catalog: Path) -> None:
    code, out, _ = saga("source", "list", "--catalog", str(catalog))
    assert code == 0
    assert "- remote: Lab over HTTP" in out
    assert "- lab: graph of Protein, Scientist, Institute [biology]" in out  # derived from the survey
    code, out, _ = saga("source", "find", "protein", "--catalog", str(catalog), "--json")
    assert code == 0 and {f["entry"]["name"] for f in json.loads(out)} == {"lab", "remote"}
    code, out, _ = saga("source", "categories", "--catalog", str(catalog))
    assert code == 0 and out.strip() == "biology: lab"
    code, out, _ = saga("source", "bridge", "lab", "remote", "--catalog", str(catalog), "--json")
    assert code == 0 and json.loads(out)["candidates"][0]["kind"] == "same_iri"


def test_unknown_source_and_conflicting_flags_are_configuration_errors(catalog: Path) -> None:
    code, _out, err = saga("source", "summary", "nope", "--catalog", str(catalog))
    assert code == 2 and "configured sources: lab, remote" in err
    # One rule in the source layer for every face: MCP kg_bridge_sources refused it, saga source bridge bridged it.
    code, out, err = saga("source", "bridge", "lab", "lab", "--catalog", str(catalog), "--json")
    assert (code, out) == (2, "") and "left and right name the same source (lab)" in err, (code, out, err)
    code, _out, err = saga("search", "x", "--source", "lab", "--data", str(LAB), "--catalog", str(catalog))
    assert code == 2 and "--source names the graph" in err
