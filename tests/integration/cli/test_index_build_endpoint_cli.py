"""`saga index build --dialect wikidata --endpoint` applies the default data directory as the offline path does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.schema import SchemaIndex
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

pytestmark = pytest.mark.shared_data

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "wikidata" / "constraints.ttl"


@pytest.fixture(scope="module")
def wikidata_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    with serving_in_test(FIXTURE, tmp_path_factory) as server:
        yield server


def _build(server: OxigraphServer, out: Path, *extra: str) -> SchemaIndex:
    outcome = CliRunner().invoke(
        app, ["index", "build", "--dialect", "wikidata", "--endpoint", server.url, "--out", str(out), *extra]
    )
    assert outcome.exit_code == 0, outcome.output
    return SchemaIndex.load(out)


def test_the_default_data_directory_fills_what_the_constraints_leave_open(
    wikidata_server: OxigraphServer, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_DATA_DIR", str(data_dir))
    implicit = _build(wikidata_server, tmp_path / "implicit.json")
    explicit = _build(wikidata_server, tmp_path / "explicit.json", "--data-dir", str(data_dir))
    sources = Counter(p.domain_source for p in implicit.properties.values())
    assert sources["curated"] > 100  # the offline fill ran
    assert implicit.properties.keys() == explicit.properties.keys()


def test_without_offline_sources_the_build_says_so(
    wikidata_server: OxigraphServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "absent"))
    command = ["index", "build", "--dialect", "wikidata", "--endpoint", wikidata_server.url]
    outcome = CliRunner().invoke(app, [*command, "--out", str(tmp_path / "i")])
    assert outcome.exit_code == 0, outcome.output
    assert "offline fill skipped" in outcome.output
    missing = CliRunner().invoke(
        app,
        ["index", "build", "--dialect", "wikidata", "--endpoint", wikidata_server.url, "--out", str(tmp_path / "j"),
         "--data-dir", str(tmp_path / "absent")],
    )  # fmt: skip
    assert missing.exit_code == 2 and "does not exist" in missing.output
