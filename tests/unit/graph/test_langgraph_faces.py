"""The LangGraph faces: build_graph()'s default model settings, the served graph's updates, the exported serializer."""

from __future__ import annotations

import logging

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from saga_kgqa import build_graph, checkpoint_serde, run_config
from saga_kgqa.app.studio import StudioOutput
from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.state import Action, Step
from saga_kgqa.state.records import Answer
from tests.support import gated_models

MODEL_ENV = ("SAGA_MODEL_FACTORY", "SAGA_MODEL", "SAGA_BASE_URL", "SAGA_API_KEY", "OPENAI_API_KEY")


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


def test_build_graph_without_a_factory_reads_the_cli_model_settings(
    no_model: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = build_graph()  # built first: the settings are read when a run first calls the model
    monkeypatch.setenv("SAGA_MODEL_FACTORY", "tests.support.gated_models:gated_factory")
    gated_models.GATE.set()
    while gated_models.WAITING.acquire(blocking=False):
        pass
    context = SagaContext(max_steps=2)
    output = graph.invoke({"question": "Which missions?"}, run_config(context), context=context)
    calls = 0
    while gated_models.WAITING.acquire(blocking=False):
        calls += 1
    assert calls >= 2 and output["status"] in {"refused", "answered", "partial", "failed", "empty"}


def test_build_graph_without_any_model_setting_says_what_to_set(no_model: None) -> None:
    graph = build_graph()
    context = SagaContext()
    with pytest.raises(ConfigurationError, match=r"SAGA_BASE_URL.*build_graph\(model_factory=\.\.\.\)"):
        graph.invoke({"question": "Where?"}, run_config(context), context=context)


def test_the_served_graph_streams_the_chosen_action_as_the_api_filters_updates(no_model: None) -> None:
    gated_models.GATE.set()
    served = build_graph(model_factory=gated_models.gated_factory, output_schema=StudioOutput)
    plain = build_graph(model_factory=gated_models.gated_factory)
    context = SagaContext(max_steps=2)
    for graph, shown in ((served, True), (plain, False)):
        # langgraph-api streams with output_keys=graph.output_channels: only output keys reach a watcher.
        updates = list(
            graph.stream(
                {"question": "Which missions?"},
                run_config(context),
                context=context,
                stream_mode="updates",
                output_keys=graph.output_channels,
            )
        )
        controller = [u["controller"] for u in updates if "controller" in u]
        if shown:
            assert controller and controller[0]["pending_action"].tool == "stop"
        else:
            assert controller and controller[0] is None  # what a watcher saw before


def test_the_exported_serializer_revives_saga_records_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    records = [Action(tool="search", argument="Lovell", call_id="c1"), Answer(variables=("m",), rows=({"m": "x"},))]
    records.append(Step(step=1, tool="search", argument="Lovell", outcome="ok", observation="found"))
    for serde, warned in ((JsonPlusSerializer(), True), (checkpoint_serde(), False)):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            revived = [serde.loads_typed(serde.dumps_typed(record)) for record in records]
        assert revived == records
        assert any("unregistered type" in r.getMessage() for r in caplog.records) is warned
