"""``langgraph dev`` serves the shipped graph: one question through the HTTP API with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from saga_kgqa.config.settings import example_graph_path
from tests.conftest import REPO_ROOT
from tests.support.langgraph_dev import langgraph_dev

pytestmark = pytest.mark.slow

QUESTION = "Which missions did Jim Lovell fly?"
SPARQL = (
    "PREFIX ex: <http://example.org/space/> "
    'SELECT ?mission WHERE { ?mission ex:crewMember ?a . ?a ex:name "Jim Lovell" }'
)
SCRIPT = [
    json.dumps({"answer_type_label": "space mission", "answer_type_id": "ex:Mission"}),
    {"tool": "search", "args": {"text": "Jim Lovell"}},
    {"tool": "execute", "args": {"sparql": SPARQL}},
    {"tool": "stop"},
]


def expected_missions() -> set[str]:
    """The answer straight from pyoxigraph, independent of the agent."""
    store = ox.Store()
    store.load(path=example_graph_path(), format=ox.RdfFormat.TURTLE)
    return {solution["mission"].value for solution in store.query(SPARQL)}


def test_langgraph_json_exports_an_uncheckpointed_graph() -> None:
    config = json.loads((REPO_ROOT / "langgraph.json").read_text())
    assert config["graphs"] == {"saga": "saga_kgqa.app.studio:graph", "mars": "saga_kgqa.app.mars_studio:graph"}
    from saga_kgqa.app.mars_studio import graph as mars
    from saga_kgqa.app.studio import graph

    assert graph.checkpointer is None and mars.checkpointer is None
    assert {"link", "retrieve", "reason", "execute", "verify", "finalize"} <= set(mars.nodes)


def test_one_question_through_the_http_api(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {
        "SAGA_MODEL_FACTORY": "tests.support.studio_models:scripted_factory",
        "SAGA_TEST_SCRIPT": str(script),
        "PYTHONPATH": str(REPO_ROOT),
    }
    with langgraph_dev(REPO_ROOT / "langgraph.json", tmp_path, env) as server:
        assert server.request("GET", "/info")["flags"]["langsmith"] is False
        assistants = server.request("POST", "/assistants/search", {"graph_id": "saga"})
        assert [a["graph_id"] for a in assistants] == ["saga"]
        mars = server.request("POST", "/assistants/search", {"graph_id": "mars"})
        assert [a["graph_id"] for a in mars] == ["mars"]
        thread = server.request("POST", "/threads", {})
        events = server.stream(
            f"/threads/{thread['thread_id']}/runs/stream",
            {"assistant_id": "saga", "input": {"question": QUESTION}, "stream_mode": ["updates"]},
        )
        state = server.request("GET", f"/threads/{thread['thread_id']}/state")
    nodes = [next(iter(data)) for event, data in events if event == "updates"]
    assert nodes == [
        "predict_answer_type",
        "controller",
        "search",
        "controller",
        "execute",
        "controller",
        "check_answer",  # the answer checks run when the controller stops (issue 13)
        "finalize",
        "evidence",  # the triples behind each answer row (issue 37)
    ]
    # A watcher sees which action each controller step chose, and its argument (not a null delta).
    chosen = [data["controller"]["pending_action"] for event, data in events if "controller" in data]
    assert [(a["tool"], a["argument"]) for a in chosen] == [("search", "Jim Lovell"), ("execute", SPARQL), ("stop", "")]
    assert [data["search"]["history"][0]["outcome"] for _e, data in events if "search" in data] == ["ok"]
    values = state["values"]
    assert values["status"] == "answered"
    assert values["final_sparql"] == SPARQL
    assert {row["mission"] for row in values["answer"]["rows"]} == expected_missions()
    assert not (REPO_ROOT / ".langgraph_api").exists() or (tmp_path / ".langgraph_api").exists()
