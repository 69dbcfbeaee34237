from __future__ import annotations

from saga_kgqa.tools.graph_reads import Texts
from saga_kgqa.tools.search.tool import _with_fallback


def test_graph_texts_win_field_by_field_and_the_api_fills_gaps() -> None:
    graph = {
        "wd:Q1": Texts(label="Isfahan", description=None),
        "wd:Q2": Texts(label=None, description="graph description"),
        "wd:Q3": Texts(label="graph only", description="graph only"),
    }
    api = {
        "wd:Q1": Texts(label="Esfahan", description="city in Iran"),
        "wd:Q2": Texts(label="api label", description="api description"),
        "wd:Q4": Texts(label="api only", description="api only"),
    }
    merged = _with_fallback(graph, api)
    assert merged["wd:Q1"] == Texts(label="Isfahan", description="city in Iran")
    assert merged["wd:Q2"] == Texts(label="api label", description="graph description")
    assert merged["wd:Q3"] == graph["wd:Q3"]
    assert merged["wd:Q4"] == api["wd:Q4"]
