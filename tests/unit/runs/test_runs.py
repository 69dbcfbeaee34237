"""The one run-streaming loop: observers see every delta in order; a stop or an error closes the stream."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph
from saga_kgqa.runs.stream import stream_run


class _Graph:
    """Streams scripted supersteps and records how it was asked and whether the stream was closed."""

    def __init__(self, chunks: list[dict[str, Any]], fail_after: int | None = None) -> None:
        self.chunks = chunks
        self.fail_after = fail_after
        self.closed = False
        self.asked: dict[str, Any] = {}

    def stream(self, inputs: Any, config: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
        self.asked = {"inputs": inputs, **kwargs}
        try:
            for sent, chunk in enumerate(self.chunks):
                if sent == self.fail_after:
                    raise RuntimeError("model connection closed")
                yield chunk
        except GeneratorExit:
            self.closed = True
            raise


class _Seen:
    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []

    def update(self, node: str, delta: Any) -> None:
        self.updates.append((node, delta))


CHUNKS = [{"predict_answer_type": {"answer_type": "x"}}, {"controller": {"steps": 1}, "search": None}, {"finalize": {}}]


def _run(graph: _Graph, observers: list[_Seen], **kwargs: Any) -> bool:
    return stream_run(cast(SagaGraph, graph), {"question": "q"}, {}, SagaContext(), observers, **kwargs)


def test_every_observer_sees_every_delta_in_order() -> None:
    graph, first, second = _Graph(CHUNKS), _Seen(), _Seen()
    assert _run(graph, [first, second], durability="sync") is False
    expected = [("predict_answer_type", {"answer_type": "x"}), ("controller", {"steps": 1}), ("search", None)]
    assert first.updates == second.updates == [*expected, ("finalize", {})]
    assert graph.asked["stream_mode"] == "updates" and graph.asked["durability"] == "sync"


def test_a_stop_ends_the_run_after_its_superstep_and_closes_the_stream() -> None:
    graph, seen = _Graph(CHUNKS), _Seen()
    asked: list[int] = []

    def stop() -> bool:
        asked.append(len(seen.updates))
        return len(seen.updates) >= 3

    assert _run(graph, [seen], stop=stop) is True
    assert "durability" not in graph.asked  # the graph's default: the keyword is not sent at all
    assert asked == [1, 3] and graph.closed
    assert [node for node, _ in seen.updates] == ["predict_answer_type", "controller", "search"]


def test_an_error_reaches_the_caller() -> None:
    graph, seen = _Graph(CHUNKS, fail_after=1), _Seen()
    with pytest.raises(RuntimeError, match="connection closed"):
        _run(graph, [seen])
    assert seen.updates == [("predict_answer_type", {"answer_type": "x"})]
