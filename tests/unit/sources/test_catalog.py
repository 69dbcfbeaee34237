"""The operator's catalog: TOML records, names, and the caller rule (infrastructure by name only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.config.caller import INFRASTRUCTURE_FIELDS, CallerContextRefused, check_caller_context
from saga_kgqa.config.catalog import EXAMPLE_SOURCE, Catalog, UnknownName
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.errors import ConfigurationError

CATALOG = """
default_source = "people"

[sources.people]
data = ["graphs/people.ttl"]
title = "People"
categories = ["test"]

[sources.remote]
endpoint = "http://127.0.0.1:9/sparql"
profile = "generic"

[models.local]
model = "tiny"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "TEST_LOCAL_KEY"

[limits]
max_steps = 30
"""


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    path = tmp_path / "catalog.toml"
    path.write_text(CATALOG)
    return Catalog.load(path)


def test_relative_paths_are_relative_to_the_catalog_file(catalog: Catalog, tmp_path: Path) -> None:
    people = catalog.source("people")
    assert people.data == (tmp_path / "graphs" / "people.ttl",)
    assert catalog.source(None) is people
    assert catalog.source("remote").endpoint == "http://127.0.0.1:9/sparql"


def test_unknown_names_list_what_is_configured(catalog: Catalog) -> None:
    with pytest.raises(UnknownName, match="configured sources: people, remote"):
        catalog.source("elsewhere")
    with pytest.raises(UnknownName, match="configured models: local"):
        catalog.model("gpt-5")


def test_model_keys_come_from_the_named_variable(catalog: Catalog) -> None:
    record = catalog.model("local")
    assert record is not None
    assert record.api_key({"TEST_LOCAL_KEY": "k-123"}) == "k-123"
    with pytest.raises(ConfigurationError, match="TEST_LOCAL_KEY"):
        record.api_key({})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[sources.a]\ndata = ['x.ttl']\nendpoint = 'http://h/s'\n", "exactly one of data, store or endpoint"),
        ("[sources.a]\n", "exactly one of data, store or endpoint"),
        ("[sources.a]\nendpoint = 'file:///etc/passwd'\n", "http"),
        ("[sources.a]\ndata = ['x.ttl']\nurl = 'x'\n", "url"),
        ("[sources.a]\ndata = ['x.ttl']\n[colours]\n", "unknown catalog key"),
        ("default_source = 'b'\n[sources.a]\ndata = ['x.ttl']\n", "default_source"),
        ("[sources.a\n", "not valid TOML"),
        ("title = 'nothing'\n", "unknown catalog key|no \\[sources"),
    ],
)
def test_bad_catalogs_are_configuration_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "catalog.toml"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=message):
        Catalog.load(path)


def test_missing_catalog_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read the catalog"):
        Catalog.from_env({"SAGA_CATALOG": str(tmp_path / "absent.toml")})


def test_environment_catalog_has_the_example_and_the_env_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.config/saga-kgqa/catalog.toml
    bare = Catalog.from_env({})
    assert list(bare.sources) == [EXAMPLE_SOURCE]
    assert bare.source(None).data == (example_graph_path(),)
    configured = Catalog.from_env({"SAGA_ENDPOINT": "http://127.0.0.1:9/sparql", "SAGA_PROFILE": "generic"})
    assert configured.source(None).name == "default"
    assert configured.source(None).profile == "generic"
    assert configured.model(None) is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base_url", "http://127.0.0.1:9/v1"),
        ("endpoint", "http://127.0.0.1:9/sparql"),
        ("data", "/etc/passwd"),
        ("profile", "wikidata"),
        ("schema_index", "/tmp/index.json"),
        ("entity_search", "wikidata-api"),
        ("dialect", "wikidata"),
        ("embedding_base_url", "http://127.0.0.1:9/v1"),
        ("embedding_model", "e5-passage"),
        ("examples_file", "/etc/passwd"),
    ],
)
def test_caller_contexts_may_not_set_infrastructure(catalog: Catalog, field: str, value: str) -> None:
    assert field in INFRASTRUCTURE_FIELDS
    with pytest.raises(CallerContextRefused, match=f"may not set {field}"):
        check_caller_context(SagaContext(**{field: value}), catalog)


def test_caller_contexts_name_sources_and_models(catalog: Catalog) -> None:
    source, model = check_caller_context(SagaContext(source="remote", model="local", max_steps=5), catalog)
    assert source.name == "remote"
    assert model is not None and model.model == "tiny"
    with pytest.raises(UnknownName):
        check_caller_context(SagaContext(source="nope"), catalog)


def test_caller_budgets_stay_within_the_operator_limits(catalog: Catalog) -> None:
    with pytest.raises(CallerContextRefused, match="max_steps=31 exceeds the operator's limit of 30"):
        check_caller_context(SagaContext(max_steps=31), catalog)
    check_caller_context(SagaContext(max_steps=30), catalog)


def test_limits_below_the_defaults_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "catalog.toml"
    path.write_text("[sources.a]\ndata = ['x.ttl']\n[limits]\nmax_steps = 5\n")
    with pytest.raises(ConfigurationError, match="max_steps=5 is below the default of 20"):
        Catalog.load(path)
