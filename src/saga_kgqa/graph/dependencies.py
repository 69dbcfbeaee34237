"""What the graph's nodes need from outside: a chat model per role, the knowledge-graph tools, named sources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.model_calls import ModelFactory
from saga_kgqa.tools.toolbox import SagaToolbox, ToolView

if TYPE_CHECKING:
    from saga_kgqa.sources.session import SourceSet

#: Returns the toolbox (graph + schema index) for a run's context.
ToolboxFactory = Callable[[SagaContext], SagaToolbox]
#: Returns the operator's named sources for a run's context (``None``: the run has only its one graph).
SourcesFactory = Callable[[SagaContext], "SourceSet | None"]


def no_sources(_context: SagaContext) -> SourceSet | None:
    """No named sources: the run grounds over its one graph only."""
    return None


@dataclass(frozen=True, slots=True)
class GraphDependencies:
    """The factories the nodes call at run time (so a compiled graph holds no client or store itself)."""

    model_factory: ModelFactory
    toolbox_factory: ToolboxFactory
    sources_factory: SourcesFactory = no_sources

    def tools(self, context: SagaContext) -> ToolView:
        """The tools under the run's switches."""
        return self.toolbox_factory(context).view(context)

    def sources(self, context: SagaContext) -> SourceSet | None:
        """The named sources the run may ground over (``None`` when none are configured)."""
        return self.sources_factory(context)
