"""The SAGA graph names its runs: one per question, one ``tool:<name>`` per tool call with its argument."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.graph.builder import question_run_config, recursion_limit
from saga_kgqa.graph.tracing import AGENT_TAG, TOOL_TAG
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox
from tests.support.run_recorder import Recorder
from tests.support.scripted_model import ScriptedChatModel, answer_type, model_factory, tool_call

QUESTION = "Which moons orbit Jupiter?"
SPARQL = "PREFIX ex: <http://example.org/space/> SELECT ?moon WHERE { ?moon ex:orbits ex:Jupiter }"


@pytest.fixture(scope="module")
def toolbox() -> Iterator[SagaToolbox]:
    box = open_toolbox([example_graph_path()])
    yield box
    box.graph.close()


def test_question_and_each_tool_call_are_named_runs(toolbox: SagaToolbox) -> None:
    model = ScriptedChatModel(
        [
            answer_type("moon", "ex:Moon"),
            tool_call("search", text="Jupiter"),
            tool_call("lookup", entity="ex:Jupiter"),
            tool_call("execute", sparql=SPARQL),
            tool_call("stop"),
        ]
    )
    graph = build_graph(model_factory=model_factory(model), toolbox_factory=lambda _context: toolbox)
    context = SagaContext()
    recorder = Recorder()
    config = question_run_config(QUESTION, model="scripted", recursion_limit=recursion_limit(context.max_steps))
    config["callbacks"] = [recorder]

    out = graph.invoke({"question": QUESTION}, config, context=context)

    assert out["status"] == "answered"
    assert recorder.runs[0][0] == f"saga: {QUESTION}"
    assert AGENT_TAG in recorder.runs[0][1]
    tool_runs = [(name, meta) for name, tags, meta in recorder.runs if TOOL_TAG in tags]
    assert [name for name, _ in tool_runs] == ["tool:search", "tool:lookup", "tool:execute"]
    assert [meta["tool_arguments"]["argument"] for _, meta in tool_runs] == ["Jupiter", "ex:Jupiter", SPARQL]
    assert [meta["step"] for _, meta in tool_runs] == [1, 2, 3]
    assert all(meta["question"] == QUESTION for _, meta in tool_runs)
