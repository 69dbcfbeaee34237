"""Durable resume (faults.md E2): a tool node fails after a completed model call; a new saver resumes the run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Durability

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import run_config
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget
from saga_kgqa.state import TypeState
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.tools import LookupResult
from saga_kgqa.tools.toolbox import SagaToolbox, ToolView
from tests.support.agent import open_toolbox
from tests.support.postgres_server import PostgresServer
from tests.support.scripted_model import ScriptedChatModel, answer_type, model_factory, tool_call

pytestmark = pytest.mark.shared_data

HOCH = "prodi:empl-Heinrich.Hoch%40company.org"


class InjectedFailure(RuntimeError):
    """The failure a test injects into a tool node."""


class FlakyView(ToolView):
    """A tool view whose first lookup fails (a crash inside the tool node, not a graph error)."""

    def __init__(self, view: ToolView, failures: list[str]) -> None:
        super().__init__(view.context, view.graph, view.schema, type_filter=view.type_filter)
        self.failures = failures

    def lookup(self, entity: str, *, theta: TypeState | None = None, step: int | None = None) -> LookupResult:
        if not self.failures:
            self.failures.append(entity)
            raise InjectedFailure(f"injected failure while looking up {entity}")
        return super().lookup(entity, theta=theta, step=step)


class FlakyToolbox(SagaToolbox):
    def __init__(self, inner: SagaToolbox) -> None:
        super().__init__(inner.graph, inner.schema)
        self.inner = inner
        self.failures: list[str] = []

    def view(self, context: SagaContext) -> ToolView:
        return FlakyView(self.inner.view(context), self.failures)


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield toolbox
    toolbox.graph.close()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> CheckpointTarget:
    if request.param == "sqlite":
        return tmp_path / "checkpoints.sqlite"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_resume_after_a_tool_failure_does_not_repeat_the_model_call(
    ck25: SagaToolbox, database: CheckpointTarget, durability: Durability
) -> None:
    model = ScriptedChatModel([answer_type("person"), tool_call("lookup", entity=HOCH), tool_call("stop")])
    toolbox = FlakyToolbox(ck25)
    context = SagaContext()
    config: Any = run_config(context, thread_id=f"resume-{durability}")

    first = CheckpointStore(database, serde=checkpoint_serde())
    graph = build_graph(
        model_factory=model_factory(model), toolbox_factory=lambda _c: toolbox, checkpointer=first.saver
    )
    with pytest.raises(InjectedFailure):
        graph.invoke({"question": "Who is Heinrich Hoch?"}, config, context=context, durability=durability)
    assert model.calls == 2  # the answer type and the controller's lookup decision
    snapshot = graph.get_state(config)
    assert snapshot.next == ("lookup",)
    assert any(task.error is not None for task in snapshot.tasks)
    first.close()

    # A new connection, as a new process would open: only the failed node runs again.
    second = CheckpointStore(database, serde=checkpoint_serde())
    resumed = build_graph(
        model_factory=model_factory(model), toolbox_factory=lambda _c: toolbox, checkpointer=second.saver
    )
    output = resumed.invoke(None, config, context=context, durability=durability)
    assert model.calls == 3  # only the final "stop" decision was new
    assert toolbox.failures == [HOCH]
    state = resumed.get_state(config).values
    assert [s.tool for s in state["history"]] == ["lookup"]
    assert state["history"][0].outcome == "ok" and "Heinrich Hoch" in state["history"][0].observation
    assert output["status"] == "refused" and output["summary"].steps == 2
    second.close()
