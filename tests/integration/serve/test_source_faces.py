"""How each face opens the same catalog source: dialect, schema kind, entity search, graph scopes.

One catalog record, ``lab``, names an endpoint (a read-only oxigraph over the lab graph's two
named graphs) with a dialect, an online entity search and graph scopes. Every face that can
name a source (``saga ask --source``, ``saga mcp``, ``saga serve web``, TEXT2SPARQL, the
LangGraph server, ``saga eval run``) is asked for its stack over it, and the test pins what it
gets: these are characterisation tests, so a change in how a face opens a source shows here.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.app.caller import CallerSourcesFactory, CallerToolboxFactory
from saga_kgqa.app.run import opened_tools
from saga_kgqa.cli.ask.run import AskRequest
from saga_kgqa.cli.eval.run import ToolSettings, open_toolbox
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.serve.mcp.source_tools import SourceCalls
from saga_kgqa.serve.mcp.tooling import ToolHost
from saga_kgqa.serve.named_sources import NamedSources
from saga_kgqa.serve.text2sparql.main import AnswererKind, answerer_factory
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.conftest import TEST_DATA
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

LAB = TEST_DATA / "autoschema" / "lab.trig"
PEOPLE = "urn:lab:people"
PROTEINS = "urn:lab:proteins"


@pytest.fixture(scope="module")
def lab_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    """The lab graph (two named graphs) behind a read-only SPARQL endpoint."""
    with serving_in_test(LAB, tmp_path_factory) as server:
        yield server


@pytest.fixture()
def catalog_file(lab_endpoint: OxigraphServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A catalog whose one source names the endpoint with a dialect, entity search and graph scopes."""
    path = tmp_path / "catalog.toml"
    path.write_text(
        'default_source = "lab"\n[sources.lab]\n'
        f'endpoint = "{lab_endpoint.url}"\ndialect = "wikidata"\nentity_search = "wikidata-api"\n'
        f'default_graphs = ["{PEOPLE}"]\nnamed_graphs = ["{PROTEINS}"]\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("SAGA_CATALOG", str(path))
    monkeypatch.setenv("SAGA_SURVEY_DIR", str(tmp_path / "surveys"))
    monkeypatch.setenv("SAGA_CONTACT", "tests@example.org")
    _forget_opened_sources()
    return path


def _forget_opened_sources() -> None:
    """Drop the process's opened sources, so each test opens its catalog afresh (wherever they are held)."""
    for name in ("saga_kgqa.graph.defaults", "saga_kgqa.app.defaults", "saga_kgqa.app.sources"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # a room that does not exist (yet)
            continue
        for cache in ("_CACHE", "_SOURCE_CACHE", "_SOURCE_SETS"):
            if isinstance(getattr(module, cache, None), dict):
                getattr(module, cache).clear()
        if callable(getattr(module, "forget_opened", None)):
            module.forget_opened()


def stack(toolbox: SagaToolbox) -> dict[str, Any]:
    """What a face opened: the tools' dialect, the schema index's kind, the entity search, the scopes."""
    settings = toolbox.schema.settings
    # The survey keeps a property seen once (min_sample 1); graph induction needs three sightings.
    kind = "declared" if not settings.induce else "survey" if settings.min_sample == 1 else "induced"
    search = toolbox.view(SagaContext()).context.entity_search
    return {
        "dialect": toolbox.dialect.name if toolbox.dialect is not None else "generic",
        "schema": kind,
        "entity_search": type(search).__name__ if search is not None else None,
        **scopes(toolbox.graph),
    }


def scopes(graph: KnowledgeGraph) -> dict[str, Any]:
    """The graph scopes every query of ``graph`` is sent with."""
    return {"default_graphs": graph.profile.default_graphs, "named_graphs": graph.profile.named_graphs}


#: What every face opens for the record: its dialect, search and scopes over an induced index (which,
#: unlike the survey, reads the graph's own RDFS/OWL domains first).
SERVED = {
    "dialect": "wikidata",
    "schema": "induced",
    "entity_search": "WikidataEntitySearch",
    "default_graphs": (PEOPLE,),
    "named_graphs": (PROTEINS,),
}


def test_saga_ask_source(catalog_file: Path) -> None:
    request = AskRequest(question="Who works at the Institute of Proteins?", resume=None, source="lab")
    with opened_tools(request, SagaContext(), None) as (toolbox, sources):
        assert sources is not None
        opened = stack(toolbox)
        source_tools_graph = sources.get("lab").graph
        assert toolbox.graph is source_tools_graph  # the run's tools and its source tools share one graph
    assert opened == SERVED


def test_saga_mcp(catalog_file: Path) -> None:
    host = ToolHost(NamedSources(Catalog.from_env()), context=SagaContext())
    toolbox = host.sources.toolbox("lab")
    source_tools = SourceCalls(host).sources.get("lab")
    assert stack(toolbox) == SERVED
    # The source tools (resolve, expand, ...) and the agent's tools share one opened source.
    assert source_tools.graph is toolbox.graph


def test_saga_serve_web(catalog_file: Path) -> None:
    from saga_kgqa.serve.web.runs import WebRuns

    runs = WebRuns(Catalog.from_env(), catalog_file.parent / "checkpoints.sqlite")
    try:
        toolbox = CallerToolboxFactory(runs.catalog)(SagaContext(source="lab"))
        sources = CallerSourcesFactory(runs.catalog)(SagaContext(source="lab"))
    finally:
        runs.close()
    assert stack(toolbox) == SERVED
    assert sources is not None and sources.get("lab").graph is toolbox.graph


def test_text2sparql(catalog_file: Path) -> None:
    build = answerer_factory(Catalog.from_env(), AnswererKind.GOLD_REPLAY, None)
    answerer = build("lab", 5.0)
    graph = answerer._graph  # the graph the replayed gold queries run on
    assert isinstance(graph, KnowledgeGraph)
    assert scopes(graph) == {"default_graphs": (PEOPLE,), "named_graphs": (PROTEINS,)}
    assert stack(CallerToolboxFactory(Catalog.from_env())(SagaContext(source="lab"))) == SERVED


def test_langgraph_server(catalog_file: Path) -> None:
    catalog = Catalog.from_env()
    toolbox = CallerToolboxFactory(catalog)(SagaContext(source="lab"))
    assert stack(toolbox) == SERVED
    sources = CallerSourcesFactory(catalog)(SagaContext(source="lab"))
    assert sources is not None and sources.get("lab").graph is toolbox.graph


def test_saga_ask_source_and_saga_mcp_open_a_source_identically(catalog_file: Path) -> None:
    host = ToolHost(NamedSources(Catalog.from_env()), context=SagaContext())
    served = host.sources.toolbox("lab")
    request = AskRequest(question="Who works at the Institute of Proteins?", resume=None, source="lab")
    with opened_tools(request, SagaContext(), None) as (asked, _):
        assert stack(asked) == stack(served) == SERVED
        # One process, one stack per source: the same graph, schema index and tool views.
        assert asked is served
        assert asked.view(SagaContext()).prefixes == served.view(SagaContext()).prefixes


def test_saga_eval_run(catalog_file: Path, lab_endpoint: OxigraphServer) -> None:
    # `saga eval run` names no catalog source: it opens --endpoint with its own dialect and search options.
    tools = ToolSettings("wikidata", None, None, "wikidata-api")
    toolbox = open_toolbox(None, lab_endpoint.url, None, None, CacheMode.OFF, tools)
    assert stack(toolbox) == {
        "dialect": "wikidata",
        "schema": "induced",
        "entity_search": "WikidataEntitySearch",
        "default_graphs": (),
        "named_graphs": (),
    }
