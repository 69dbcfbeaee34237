"""Issue 11, point 5: on a plain RDF graph the answer-type prompt lists the graph's most used classes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.graph.prompting import answer_type_class_lines, answer_type_messages
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox
from tests.support.scripted_model import ScriptedChatModel, answer_type, model_factory, tool_call


@pytest.fixture(scope="module")
def toolbox() -> Iterator[SagaToolbox]:
    box = open_toolbox([example_graph_path()])
    yield box
    box.graph.close()


def test_class_lines_are_the_graphs_classes_bounded_and_without_datatypes(toolbox: SagaToolbox) -> None:
    prefixes = toolbox.view(SagaContext()).prefixes
    lines = answer_type_class_lines(toolbox.schema, prefixes)
    ids = [line.removeprefix("- ").split(" ")[0] for line in lines]
    assert {"ex:Astronaut", "ex:Mission"} <= set(ids)
    assert not any(i.startswith(("xsd:", "rdf:")) for i in ids)
    assert len(answer_type_class_lines(toolbox.schema, prefixes, limit=2)) == 2
    # Most used first: the two most sampled classes lead, in a stable order.
    assert answer_type_class_lines(toolbox.schema, prefixes, limit=2) == lines[:2]


def test_generic_prompt_lists_the_classes_and_dialects_keep_their_wording() -> None:
    lines = ["- ex:Astronaut", "- ex:Mission"]
    generic = str(answer_type_messages("Who flew Apollo 8?", SagaContext(), lines)[0].content)
    assert "- ex:Astronaut\n- ex:Mission" in generic
    assert "only when you are confident it exists" not in generic
    wikidata = str(answer_type_messages("Who flew Apollo 8?", SagaContext(dialect="wikidata"), lines)[0].content)
    assert "ex:Astronaut" not in wikidata


def test_the_agent_sends_the_class_list_in_its_answer_type_call(toolbox: SagaToolbox) -> None:
    model = ScriptedChatModel([answer_type("astronaut", "ex:Astronaut"), tool_call("stop")])
    graph = build_graph(model_factory=model_factory(model), toolbox_factory=lambda _context: toolbox)
    graph.invoke({"question": "Who commanded Apollo 13?"}, {"recursion_limit": 50}, context=SagaContext())
    prompt = model.prompt_text(0)
    assert "Classes of this graph, most used first" in prompt
    assert "- ex:Astronaut" in prompt


def test_the_class_list_is_read_once_per_view_and_sent_the_same_to_every_run(
    toolbox: SagaToolbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from saga_kgqa.graph import llm_nodes

    reads: list[int] = []
    original = llm_nodes.answer_type_class_lines

    def counted(*args: object, **kwargs: object) -> list[str]:
        reads.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(llm_nodes, "answer_type_class_lines", counted)
    model = ScriptedChatModel([answer_type("astronaut", "ex:Astronaut"), tool_call("stop")] * 2)
    graph = build_graph(model_factory=model_factory(model), toolbox_factory=lambda _context: toolbox)
    for question in ("Who commanded Apollo 13?", "Who flew Apollo 8?"):
        graph.invoke({"question": question}, {"recursion_limit": 50}, context=SagaContext())
    first, second = model.prompt_text(0), model.prompt_text(2)
    classes = [line for line in first.splitlines() if line.startswith("- ex:")]
    assert reads == [1] and classes and classes == [line for line in second.splitlines() if line.startswith("- ex:")]
