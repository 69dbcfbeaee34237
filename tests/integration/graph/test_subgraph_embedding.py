"""The SAGA graph embedded in parent graphs: as a wrapped node with a different state, and with shared keys."""

from __future__ import annotations

import json
import operator
from typing import Annotated, Any, TypedDict

import pyoxigraph as ox
import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.config.context import SagaContext
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.graph.embedding import saga_node
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.state.graph_state import InputState, OutputState
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox
from tests.support.scripted_model import ScriptedChatModel, answer_type, model_factory, tool_call

QUESTION = "Which missions did Jim Lovell fly?"
SPARQL = (
    "PREFIX ex: <http://example.org/space/> "
    'SELECT ?mission WHERE { ?mission ex:crewMember ?a . ?a ex:name "Jim Lovell" }'
)


def script() -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            answer_type("space mission", "ex:Mission"),
            tool_call("search", text="Jim Lovell"),
            tool_call("execute", sparql=SPARQL),
            tool_call("stop"),
        ]
    )


def expected_missions() -> set[str]:
    store = ox.Store()
    store.load(path=example_graph_path(), format=ox.RdfFormat.TURTLE)
    return {solution["mission"].value for solution in store.query(SPARQL)}


@pytest.fixture(scope="module")
def toolbox() -> Any:
    box = open_toolbox([example_graph_path()])
    yield box
    box.graph.close()


class ChatState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    log: Annotated[list[str], operator.add]


def ask_from_chat(state: ChatState) -> InputState:
    return {"question": str(state["messages"][-1].content)}


def reply_to_chat(output: OutputState) -> dict[str, Any]:
    answer = output.get("answer")
    rows = sorted(row["mission"] for row in answer.rows) if answer is not None else []
    return {"messages": [AIMessage(json.dumps({"sparql": output.get("final_sparql"), "rows": rows}))]}


def test_wrapped_node_in_a_parent_with_a_different_state(toolbox: SagaToolbox) -> None:
    model = script()
    saga = build_graph(model_factory=model_factory(model), toolbox_factory=lambda _context: toolbox)
    parent: StateGraph[ChatState, None, ChatState, ChatState] = StateGraph(ChatState)
    parent.add_node("greet", lambda state: {"log": ["greeted"]})
    parent.add_node("saga", saga_node(saga, to_input=ask_from_chat, to_parent=reply_to_chat, context=SagaContext()))
    parent.add_edge(START, "greet")
    parent.add_edge("greet", "saga")
    parent.add_edge("saga", END)
    app = parent.compile(checkpointer=InMemorySaver(serde=checkpoint_serde()))
    config = {"configurable": {"thread_id": "chat-1"}}

    chunks = list(app.stream({"messages": [HumanMessage(QUESTION)]}, config, stream_mode="updates", subgraphs=True))

    final = app.get_state(config).values
    reply = json.loads(final["messages"][-1].content)
    assert reply["sparql"] == SPARQL
    assert set(reply["rows"]) == expected_missions()
    assert final["log"] == ["greeted"]
    # The parent's state holds only its own keys; SAGA's working memory stays inside.
    assert set(final) == {"messages", "log"}
    # Streaming with subgraphs shows SAGA's own steps under the node's namespace.
    inner = [next(iter(update)) for namespace, update in chunks if namespace and namespace[0].startswith("saga:")]
    assert inner[0] == "predict_answer_type" and inner[-1] == "evidence"
    assert model.calls == 4


class SharedState(TypedDict, total=False):
    question: str
    status: str
    final_sparql: str | None
    notes: Annotated[list[str], operator.add]


def test_compiled_graph_as_a_node_with_shared_keys(toolbox: SagaToolbox) -> None:
    saga = build_graph(model_factory=model_factory(script()), toolbox_factory=lambda _context: toolbox)
    parent: StateGraph[SharedState, SagaContext, SharedState, SharedState] = StateGraph(
        SharedState, context_schema=SagaContext
    )
    parent.add_node("saga", saga)
    parent.add_node("report", lambda state: {"notes": [f"{state['status']}: {state['final_sparql']}"]})
    parent.add_edge(START, "saga")
    parent.add_edge("saga", "report")
    parent.add_edge("report", END)

    out = parent.compile().invoke({"question": QUESTION}, context=SagaContext())

    assert out["status"] == "answered"
    assert out["notes"] == [f"answered: {SPARQL}"]
    assert "theta" not in out and "history" not in out
