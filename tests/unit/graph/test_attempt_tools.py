"""A cross-source answer is re-run and checked with the run's own tools over its source (issue 41, divergence b).

``attempt_tools`` used to build a view of its own over the source the attempt ran on: the
survey's caps, no dialect, no entity search, none of the run's switches. The final re-run and
the answer checks then saw another graph's tools than the run did. Now the view is the run's
view of the source's one toolbox, the toolbox ``saga ask --source`` runs with.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.app.sources import source_set, source_toolbox
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.source_tools import attempt_tools
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.state import QueryAttempt

SPACE = "http://example.org/space/"


def _no_model(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("no model is called here")


@pytest.fixture()
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SourceSet]:
    # No offline Wikidata sources: the source's schema index is induced from the graph (app.open.open_schema).
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "no-data"))
    record = SourceRecord(name="space", data=(example_graph_path(),), dialect="wikidata", entity_search="wikidata-api")
    catalog = Catalog(sources={"space": record}, default_source="space")
    # The composition root's source set, as `saga ask --source` opens it (closed with the set).
    with source_set(catalog, survey_dir=tmp_path / "cache", release=True) as opened:
        yield opened


def test_a_cross_source_attempt_is_rerun_with_the_runs_own_view(sources: SourceSet) -> None:
    # The run's switches differ from every default, so a view of another making shows it.
    context = SagaContext(source="space", lookup_values=0, max_observation_bytes=500, matching="exact", language="de")
    dependencies = GraphDependencies(
        model_factory=_no_model,
        toolbox_factory=lambda _context: source_toolbox(sources.get("space")),
        sources_factory=lambda _context: sources,
    )
    run_view = dependencies.tools(context)
    attempt = QueryAttempt(step=3, sparql="SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", status="ok", row_count=1)
    rerun_view = attempt_tools(dependencies, context, attempt.model_copy(update={"source": "space"}))

    assert rerun_view is run_view
    # The dialect's prefixes (wd:) and the data file's (ex:), as the run's tools show them.
    assert rerun_view.prefixes == run_view.prefixes
    assert rerun_view.resolve("wd:Q42") == "http://www.wikidata.org/entity/Q42"
    assert rerun_view.resolve("ex:Apollo11") == SPACE + "Apollo11"
    # The run's caps: no sample values and its observation bytes (the lookup text is the run's).
    entity = f"<{SPACE}Apollo11>"
    assert rerun_view.lookup(entity, theta=None, step=3).text == run_view.lookup(entity, theta=None, step=3).text
    # And the run's own graph when the attempt names no source.
    assert attempt_tools(dependencies, context, attempt) is run_view
