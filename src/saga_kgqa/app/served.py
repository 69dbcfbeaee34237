"""The agent of a server: one compiled graph over the operator's catalog, for every run the server is asked.

The web page, MCP's ``kg_ask`` and the TEXT2SPARQL API keep one :class:`ServedAgent` for
their life and ask it for a :class:`~saga_kgqa.app.run.Run` per question (:meth:`ServedAgent.run`),
which they stream as ``saga ask`` streams its own. A caller names the source and the model only
by catalog name: the graph's factories (:mod:`saga_kgqa.app.caller`) check each run's context
before anything is opened. Runs are checkpointed in the server's one store when it has one.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.runnables import RunnableConfig
from langgraph.types import StateSnapshot

from saga_kgqa.app.caller import CallerModelFactory, CallerSourcesFactory, CallerToolboxFactory
from saga_kgqa.app.graphs import build_graph
from saga_kgqa.app.run import Run
from saga_kgqa.app.sources import toolbox_for_source
from saga_kgqa.closing import Closing
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.context import SagaContext
from saga_kgqa.graph.builder import SagaGraph
from saga_kgqa.graph.dependencies import SourcesFactory, no_sources
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.tools.toolbox import SagaToolbox

#: Which named sources a served run may ground over: the catalog's (``catalog``), those of the
#: catalog file the process is configured with (``environment``, as the public ``build_graph``),
#: or none (each run answers over its one source).
SourcesChoice = Literal["catalog", "environment", "none"]


class ServedAgent(Closing):
    """One compiled SAGA graph over a catalog, its runs checkpointed in one store (closed with :meth:`close`)."""

    def __init__(
        self, catalog: Catalog, checkpoints: CheckpointTarget | None = None, *, sources: SourcesChoice = "catalog"
    ) -> None:
        """Compile the graph over ``catalog``'s sources and models; checkpoint runs in ``checkpoints`` when given.

        Raises:
            ConfigurationError: The checkpoint database cannot be opened.
        """
        self.catalog = catalog
        self.store = CheckpointStore(checkpoints, serde=checkpoint_serde()) if checkpoints is not None else None
        sources_factory: SourcesFactory | None = {
            "catalog": CallerSourcesFactory(catalog),
            "environment": None,  # the public build_graph's default: the configured catalog file's sources
            "none": no_sources,
        }[sources]
        self.graph: SagaGraph = build_graph(
            model_factory=CallerModelFactory(catalog),
            toolbox_factory=CallerToolboxFactory(catalog),
            sources_factory=sources_factory,
            checkpointer=self.store.saver if self.store is not None else None,
        )

    def close(self) -> None:
        """Close the checkpoint store (the sources stay open for the process)."""
        if self.store is not None:
            self.store.close()

    def toolbox(self, source: str | None) -> SagaToolbox:
        """The toolbox over a catalog source (the catalog's default for ``None``), opened once per process.

        Raises:
            UnknownName: The source is not in the catalog.
            ConfigurationError: The source's settings are unusable.
        """
        return toolbox_for_source(self.catalog.source(source))

    def state(self, config: RunnableConfig) -> StateSnapshot:
        """The last checkpointed state of the thread ``config`` names."""
        return self.graph.get_state(config)

    def run(
        self, context: SagaContext, config: RunnableConfig, *, thread_id: str | None = None, question: str | None = None
    ) -> Run:
        """The run of one question (or of the thread ``thread_id``, to resume) under ``context`` and ``config``.

        Raises:
            UnknownName: The context's source is not in the catalog.
            ConfigurationError: The source's settings are unusable.
        """
        return Run(
            graph=self.graph,
            context=context,
            config=config,
            toolbox=self.toolbox(context.source),
            checkpointer=self.store.saver if self.store is not None else None,
            thread_id=thread_id,
            question=question,
        )
