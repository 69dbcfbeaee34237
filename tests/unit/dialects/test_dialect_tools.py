"""Which dialect a run's tools speak: explicit, else implied by the profile or the benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.app.dialects import (
    benchmark_dialect,
    dialect_implied_by_profile,
    open_entity_search,
    tool_dialect,
)
from saga_kgqa.cli.eval.run import tool_settings
from saga_kgqa.config.context import SagaContext
from saga_kgqa.dialects import FREEBASE_DIALECT, WIKIDATA_DIALECT
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.remote.wikidata_search import WIKIDATA_API


@pytest.mark.parametrize(("profile", "expected"), [("wikidata", "wikidata"), ("qlever", "wikidata")])
def test_a_wikidata_profile_implies_the_wikidata_dialect(profile: str, expected: str) -> None:
    assert SagaContext.from_env({}, profile=profile).dialect == expected
    assert dialect_implied_by_profile(profile) == expected


def test_other_profiles_keep_the_generic_dialect() -> None:
    assert SagaContext.from_env({}, profile="embedded").dialect == "generic"
    assert SagaContext.from_env({}).dialect == "generic"
    assert dialect_implied_by_profile(None) is None


def test_an_explicit_or_environment_dialect_beats_the_profile() -> None:
    assert SagaContext.from_env({}, profile="wikidata", dialect="generic").dialect == "generic"
    assert SagaContext.from_env({"SAGA_DIALECT": "freebase", "SAGA_PROFILE": "wikidata"}).dialect == "freebase"
    assert SagaContext.from_env({"SAGA_PROFILE": "qlever"}).dialect == "wikidata"


def test_the_plain_constructor_takes_no_implied_dialect() -> None:
    assert SagaContext(profile="wikidata").dialect == "generic"


def test_context_dialects_map_to_the_tool_dialects() -> None:
    assert tool_dialect("wikidata") is WIKIDATA_DIALECT
    assert tool_dialect("freebase") is FREEBASE_DIALECT
    assert tool_dialect("generic") is None


@pytest.mark.parametrize(
    ("benchmark", "expected"),
    [
        ("qald10", "wikidata"),
        ("qald7-test", "wikidata"),
        ("wwq-dev", "wikidata"),
        ("spinach-test", "wikidata"),
        ("cwq-test", "freebase"),
        ("grailqa-sample", "freebase"),
        ("ck25", "generic"),
        ("spider4sparql-dev", "generic"),
    ],
)
def test_a_benchmark_implies_the_dialect_of_its_graph(benchmark: str, expected: str) -> None:
    assert benchmark_dialect(benchmark) == expected


def test_eval_tool_settings_prefer_explicit_then_profile_then_benchmark(tmp_path: Path) -> None:
    assert tool_settings("ck25", "qlever", None, None, tmp_path, "off").dialect == "wikidata"
    assert tool_settings("qald10", None, "generic", None, tmp_path, "off").dialect == "generic"
    chosen = tool_settings("cwq-test", None, None, None, tmp_path, "off")
    assert (chosen.dialect, chosen.data_dir) == ("freebase", tmp_path)
    # A generic run builds its index from the graph, so it needs no offline sources.
    assert tool_settings("ck25", None, None, None, tmp_path, "off").data_dir is None


def test_entity_search_is_off_unless_turned_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGA_CONTACT", "ops@example.org")
    assert open_entity_search("off") is None
    client = open_entity_search("wikidata-api")
    assert client is not None
    assert client.url == WIKIDATA_API
    assert "ops@example.org" in client.user_agent
    assert open_entity_search("wikidata-api", url="http://127.0.0.1:9/w/api.php") is not None


def test_unknown_entity_search_or_dialect_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown entity search"):
        open_entity_search("google")
    with pytest.raises(ConfigurationError):
        SagaContext.from_env({"SAGA_ENTITY_SEARCH": "google"})
