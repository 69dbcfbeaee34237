"""How a command opens a graph's tools: its dialect, its schema index (a file, or offline sources), its name search.

The data only; the rule that turns it into a schema index is :func:`saga_kgqa.app.open.open_schema`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from saga_kgqa.config.context import DialectName, EntitySearch


@dataclass(frozen=True)
class OpenOptions:
    """How the tools read a graph: its dialect, its schema index and its name search.

    Attributes:
        dialect: The graph dialect.
        schema_file: A saved schema index, else the dialect's (from ``data_dir``) or one built from the graph.
        data_dir: Offline sources of the dialect's schema index (used without ``schema_file``).
        entity_search: ``off`` or ``wikidata-api``.
    """

    dialect: DialectName = "generic"
    schema_file: Path | None = None
    data_dir: Path | None = None
    entity_search: EntitySearch = "off"
