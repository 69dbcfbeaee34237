"""The agent's toolbox follows the context's dialect and schema index (LangGraph server and eval paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.app.defaults import toolbox_from_context
from saga_kgqa.cli.eval.run import ToolSettings, open_toolbox
from saga_kgqa.config.context import SagaContext
from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.schema import build_dialect_index
from tests.support.dialect_data import write_wikidata_sources
from tests.support.wikidata_shaped import WD, WDT, write_wikidata_shaped


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_wikidata_shaped(tmp_path_factory.mktemp("wikidata_shaped"))


@pytest.fixture(scope="module")
def offline_schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_wikidata_sources(tmp_path_factory.mktemp("sources"))
    out = root / "wikidata_schema.json"
    build_dialect_index("wikidata", data_dir=root).save(out)
    return out


def test_wikidata_context_gives_p31_types_to_lookup(graph_file: Path) -> None:
    context = SagaContext(data=str(graph_file), dialect="wikidata")
    toolbox = toolbox_from_context(context)
    assert toolbox.dialect is WIKIDATA_DIALECT
    result = toolbox.view(context).lookup("wd:Q1", theta=None, step=1)
    assert 'Types: "human" (wd:Q5)' in result.text
    assert {e.type_iri for found in result.type_delta.entries.values() for e in found} == {WD + "Q5"}
    # Wikidata's P31 is the type predicate, not a property of the entity.
    assert "wdt:P31" not in result.text
    assert "wdt:P27" in result.text


def test_generic_context_does_not_read_p31_as_a_type(graph_file: Path) -> None:
    context = SagaContext(data=str(graph_file))
    result = toolbox_from_context(context).view(context).lookup(f"<{WD}Q1>", theta=None, step=1)
    assert "Types: none declared." in result.text
    assert "wdt:P31" in result.text


def test_profile_implied_dialect_reaches_the_toolbox(graph_file: Path) -> None:
    context = SagaContext.from_env({}, data=str(graph_file), profile="wikidata")
    assert toolbox_from_context(context).dialect is WIKIDATA_DIALECT


def test_context_schema_index_is_loaded(
    graph_file: Path, offline_schema: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = SagaContext(data=str(graph_file), dialect="wikidata", schema_index=str(offline_schema))
    schema = toolbox_from_context(context).schema
    # P57's curated domain (film) comes only from the offline sources, never from this graph.
    assert schema.properties[WDT + "P57"].domain >= {WD + "Q11424"}
    # With no data directory anywhere (none named, the default absent) the dialect's index is induced.
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "absent"))
    induced = toolbox_from_context(SagaContext(data=str(graph_file), dialect="wikidata")).schema
    assert WDT + "P57" not in induced.properties
    assert induced.type_predicates == WIKIDATA_DIALECT.vocabulary.type_predicates


def test_eval_toolbox_uses_the_dialect_and_its_offline_index(graph_file: Path, offline_schema: Path) -> None:
    sources = offline_schema.parent
    toolbox = open_toolbox([graph_file], None, None, None, CacheMode.OFF, ToolSettings("wikidata", None, sources))
    assert toolbox.dialect is WIKIDATA_DIALECT
    assert toolbox.schema.properties[WDT + "P57"].domain >= {WD + "Q11424"}
    saved = open_toolbox([graph_file], None, None, None, CacheMode.OFF, ToolSettings("wikidata", offline_schema, None))
    assert saved.schema.properties[WDT + "P57"].domain >= {WD + "Q11424"}
    context = SagaContext(dialect="wikidata")
    assert 'Types: "human" (wd:Q5)' in toolbox.view(context).lookup("wd:Q1", theta=None, step=1).text
