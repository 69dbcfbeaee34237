"""What the graph's nodes need from outside: a chat model per role and the knowledge-graph tools."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from saga_kgqa.context import SagaContext
from saga_kgqa.graph.model_calls import ModelFactory
from saga_kgqa.graph.toolbox import SagaToolbox, ToolView

#: Returns the toolbox (graph + schema index) for a run's context.
ToolboxFactory = Callable[[SagaContext], SagaToolbox]


@dataclass(frozen=True, slots=True)
class GraphDependencies:
    """The factories the nodes call at run time (so a compiled graph holds no client or store itself)."""

    model_factory: ModelFactory
    toolbox_factory: ToolboxFactory

    def tools(self, context: SagaContext) -> ToolView:
        """The tools under the run's switches."""
        return self.toolbox_factory(context).view(context)
