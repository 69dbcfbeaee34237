"""saga-kgqa: a schema-aware agent that answers questions over knowledge graphs with SPARQL.

The package door names the public API; each name loads on first use, so ``import saga_kgqa`` (and every
command that starts through it) stays cheap:

* :func:`build_graph` (from :mod:`saga_kgqa.app.graphs`): the compiled SAGA graph with today's defaults.
* :func:`toolbox_from_context` (from :mod:`saga_kgqa.app.defaults`): the default toolbox for a run context.
* :func:`run_config`, :func:`recursion_limit` (from :mod:`saga_kgqa.graph.builder`): the invoke config.
* :func:`checkpoint_serde` (from :mod:`saga_kgqa.state.checkpointing`): the serializer a parent graph's
  checkpointer needs to revive saga's records.
* :class:`SagaContext` (from :mod:`saga_kgqa.config.context`): the per-run context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from saga_kgqa.lazy_names import lazy_names

__version__ = "0.1.0"

if TYPE_CHECKING:
    from saga_kgqa.app.defaults import toolbox_from_context
    from saga_kgqa.app.graphs import build_graph
    from saga_kgqa.config.context import SagaContext
    from saga_kgqa.graph.builder import recursion_limit, run_config
    from saga_kgqa.state.checkpointing import checkpoint_serde

#: public name -> the module that defines it (loaded on first access).
_HOMES = {
    "build_graph": "saga_kgqa.app.graphs",
    "toolbox_from_context": "saga_kgqa.app.defaults",
    "run_config": "saga_kgqa.graph.builder",
    "recursion_limit": "saga_kgqa.graph.builder",
    "checkpoint_serde": "saga_kgqa.state.checkpointing",
    "SagaContext": "saga_kgqa.config.context",
}


__getattr__ = lazy_names(__name__, _HOMES, globals())


__all__ = [
    "SagaContext",
    "__version__",
    "build_graph",
    "checkpoint_serde",
    "recursion_limit",
    "run_config",
    "toolbox_from_context",
]
