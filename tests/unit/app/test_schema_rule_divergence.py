"""``saga ask`` and ``saga lookup`` with the same options read the same schema index (issue 41, divergence b).

Before: ``saga ask --dialect wikidata`` without ``--data-dir`` passed no data directory, so its tools got
an index induced from the graph, while ``saga lookup`` with the same options resolved the data directory
(``$SAGA_DATA_DIR``, else ``../shared/data``) and read the dialect's offline Wikidata index: ``lookup``
could hide what ``ask`` showed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.app.open import open_graph
from saga_kgqa.app.sources import open_source, release, source_toolbox
from saga_kgqa.app.toolboxes import toolbox_over
from saga_kgqa.config.catalog import SourceRecord
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.config.settings import data_dir as resolved_data_dir
from saga_kgqa.config.settings import example_graph_path


@pytest.mark.shared_data
def test_ask_and_lookup_read_one_schema_index_for_the_same_options(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_DATA_DIR", str(data_dir))
    graph = open_graph(None, None, None)
    try:
        # saga ask --dialect wikidata (no --data-dir): cli/ask/run.py's options
        asked = toolbox_over(graph, OpenOptions(dialect="wikidata"), data=None).schema
        # saga lookup --dialect wikidata (no --data-dir): cli/tools/commands.py's options
        options = OpenOptions(dialect="wikidata", data_dir=resolved_data_dir(None))
        looked = toolbox_over(graph, options, data=None, prefixes={}).default_view().context.schema
    finally:
        graph.close()
    assert set(asked.properties) == set(looked.properties)
    assert "http://www.wikidata.org/prop/direct/P31" in asked.properties


@pytest.mark.shared_data
def test_a_catalog_source_reads_the_index_ask_reads(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: a source's toolbox applied a rule of its own (declared, else induced), so a Wikidata-dialect
    # source induced an index from the graph where saga ask with the same dialect read the offline one.
    monkeypatch.setenv("SAGA_DATA_DIR", str(data_dir))
    record = SourceRecord(name="space", data=(example_graph_path(),), dialect="wikidata")
    opened = open_source(record, survey_dir=tmp_path / "cache")
    try:
        sourced = source_toolbox(opened).schema
    finally:
        release(opened)
    graph = open_graph([example_graph_path()], None, None)
    try:
        asked = toolbox_over(graph, OpenOptions(dialect="wikidata"), data=None).schema
    finally:
        graph.close()
    assert set(sourced.properties) == set(asked.properties)
    assert "http://www.wikidata.org/prop/direct/P31" in sourced.properties
