"""The structured output of the MCP source tools (catalog, summary, resolution, expansion, bridging).

Each model carries the facts of a :mod:`saga_kgqa.sources` result (its own pydantic parts,
without the text, which is the tool result's text content) and the fields every tool
result has (:class:`~saga_kgqa.serve.mcp.models.ToolOutput`).
"""

from __future__ import annotations

from pydantic import Field

from saga_kgqa.serve.mcp.models import ToolOutput
from saga_kgqa.sources.bridging import BridgeCandidate
from saga_kgqa.sources.catalog_search import CategoryCount, FoundSource, SourceEntry
from saga_kgqa.sources.expansion import PathEdge
from saga_kgqa.sources.resolution import EntityCandidate
from saga_kgqa.sources.summary import ClassSummary


class CatalogListOutput(ToolOutput):
    """Every configured source (``source`` is the default one)."""

    sources: list[SourceEntry] = Field(default_factory=list)


class CategoriesOutput(ToolOutput):
    """The catalog's categories, each with its sources (``source`` is the default one)."""

    categories: list[CategoryCount] = Field(default_factory=list)


class FindOutput(ToolOutput):
    """Sources ranked for a query, best first (``source`` is the default one)."""

    query: str = ""
    found: list[FoundSource] = Field(default_factory=list)


class SummaryOutput(ToolOutput):
    """One source's classes, predicates, graphs and coverage, from its bounded survey."""

    title: str = ""
    description: str = ""
    declared_schema: bool = False
    built_at: str = ""
    graphs: list[str] = Field(default_factory=list)
    named_graphs: list[str] = Field(default_factory=list)
    coverage: list[str] = Field(default_factory=list, description="What the survey did not cover.")
    classes: list[ClassSummary] = Field(default_factory=list)


class ResolutionOutput(ToolOutput):
    """The IRIs a name or identifier may refer to, best first."""

    query: str = ""
    candidates: list[EntityCandidate] = Field(default_factory=list)
    index_size: int = 0
    engine: str = Field(default="tantivy", description="The text index searched: tantivy, or virtuoso (its own).")
    notes: list[str] = Field(default_factory=list)


class ExpansionOutput(ToolOutput):
    """An entity's outgoing and incoming paths (one hop further through blank and untyped nodes)."""

    entity: str = ""
    types: list[str] = Field(default_factory=list)
    paths: list[PathEdge] = Field(default_factory=list)
    hidden: list[str] = Field(default_factory=list, description="Properties the type filter hid.")
    notes: list[str] = Field(default_factory=list)


class BridgeOutput(ToolOutput):
    """Join candidates from ``source`` (the left one) to ``right``, strongest first, each with a two-step plan."""

    right: str = ""
    candidates: list[BridgeCandidate] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
