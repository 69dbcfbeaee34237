"""The CLI's grounding toolkit over an opened graph, without the agent's controller.

``saga search``, ``lookup`` and ``examples`` need the tools and a schema index, not LangGraph
or a chat model: importing :mod:`saga_kgqa.app.toolboxes` (which builds the agent's toolbox)
cost those commands about three seconds of start-up (issue 27). This module imports only the
tools, the schema and the dialect model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from saga_kgqa.app.open import dialect_schema, load_or_build_schema
from saga_kgqa.dialects.model import Dialect
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.toolkit import GroundingToolkit


def toolkit_over(
    graph: KnowledgeGraph,
    *,
    dialect: Dialect,
    schema_file: Path | None,
    data_dir: Path | None,
    prefixes: dict[str, str],
    mode: CompatibilityMode,
    caps: ToolCaps | None,
    note: Callable[[str], None] | None = None,
    language: str = "en",
) -> GroundingToolkit:
    """The grounding tools a person calls from the CLI: a dialect's offline index, else the file or a built one.

    Raises:
        ConfigurationError: The schema file or the dialect's offline sources are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    schema: SchemaIndex
    if schema_file is None and dialect.name != "generic":
        schema = dialect_schema(dialect.name, data_dir=data_dir)
    else:
        schema = load_or_build_schema(graph, schema_file, note=note)
    return GroundingToolkit(graph, schema, prefixes=prefixes, mode=mode, dialect=dialect, caps=caps, language=language)
