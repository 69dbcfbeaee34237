"""``with`` a resource closes it, after an error too, and gives back the resource itself."""

from __future__ import annotations

import pytest

from saga_kgqa.closing import Closing
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.runs.persistence import CheckpointStore
from saga_kgqa.runs.trajectory import TrajectoryWriter
from saga_kgqa.sources.session import SourceSet


class _Counted(Closing):
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_leaving_the_block_closes_once_even_after_an_error() -> None:
    resource = _Counted()
    with resource as entered:
        assert entered is resource and resource.closed == 0
    assert resource.closed == 1
    failing = _Counted()
    with pytest.raises(ValueError), failing:
        raise ValueError("boom")
    assert failing.closed == 1


@pytest.mark.parametrize("cls", [CheckpointStore, TrajectoryWriter, EmbeddedStore, KnowledgeGraph, SourceSet])
def test_the_resources_close_through_the_one_context_manager(cls: type) -> None:
    assert issubclass(cls, Closing) and cls.close is not Closing.close
