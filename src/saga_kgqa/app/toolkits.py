"""The CLI's grounding toolkit over an opened graph, without the agent's controller.

``saga search``, ``lookup`` and ``examples`` need the tools and a schema index, not LangGraph
or a chat model: importing :mod:`saga_kgqa.app.toolboxes` (which builds the agent's toolbox)
cost those commands about three seconds of start-up (issue 27). This module imports only the
tools, the schema and the dialect model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

from saga_kgqa.app.open import OpenOptions, open_schema
from saga_kgqa.config.context import DialectName
from saga_kgqa.dialects.model import Dialect
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode
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
    """The grounding tools a person calls from the CLI, over the schema index :func:`open_schema` picks.

    Raises:
        ConfigurationError: The schema file or the dialect's offline sources are unusable.
        BackendError: The graph failed while the schema index was built.
    """
    name = cast(DialectName, dialect.name)  # a registered dialect's name is one of DialectName
    schema = open_schema(graph, OpenOptions(name, schema_file, data_dir), note=note)
    return GroundingToolkit(graph, schema, prefixes=prefixes, mode=mode, dialect=dialect, caps=caps, language=language)
