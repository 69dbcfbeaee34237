"""The settings the toolbox, its views and the tool context share (``ToolboxOptions`` / ``ToolOptions``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saga_kgqa.config.context import SagaContext
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools import ToolCaps
from saga_kgqa.tools.context import ToolContext
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.grounding import MINI_TTL


@pytest.fixture(scope="module")
def mini() -> Iterator[tuple[KnowledgeGraph, SchemaIndex]]:
    with EmbeddedStore.from_files([MINI_TTL]) as store:
        yield KnowledgeGraph(store), build_schema_index(store, induce=True)


def test_a_misspelt_setting_is_refused_as_a_signature_would(mini: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    graph, schema = mini
    with pytest.raises(TypeError, match="'prefix'"):
        ToolContext(graph, schema, prefix={"ex": "http://example.org/"})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'prefix'"):
        SagaToolbox(graph, schema, prefix={"ex": "http://example.org/"})  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'mode'"):
        SagaToolbox(graph, schema, mode="exact")  # type: ignore[call-arg]  # a run's view sets the mode


def test_a_view_takes_the_toolbox_settings_and_the_runs(mini: tuple[KnowledgeGraph, SchemaIndex]) -> None:
    graph, schema = mini
    prefixes = {"mini": "http://example.org/mini/"}
    toolbox = SagaToolbox(graph, schema, prefixes=prefixes, caps=ToolCaps(entity_hits=3))
    prefixes["late"] = "http://example.org/late/"  # the toolbox holds its own copy
    context = SagaContext(matching="exact", language="de", lookup_values=1)
    tools = toolbox.view(context).context
    assert tools.mode == "exact" and tools.language == "de"
    assert tools.caps.entity_hits == 3 and tools.caps.values_per_property == 1
    assert tools.prefixes["mini"] == "http://example.org/mini/" and "late" not in tools.prefixes
