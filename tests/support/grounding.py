"""Test support for the grounding tools: the mini graph, its schema index, a query-recording reader, tool views."""

from __future__ import annotations

from pathlib import Path
from typing import Unpack

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.tools.context import ToolboxOptions
from saga_kgqa.tools.toolbox import SagaToolbox, ToolView

MINI_TTL = Path(__file__).resolve().parent.parent / "data" / "mini.ttl"
EX = "http://example.org/mini/vocab#"
RES = "http://example.org/mini/res/"
MINI_PREFIXES = {"ex": EX, "res": RES, "skos": "http://www.w3.org/2004/02/skos/core#"}


def tool_view(
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    *,
    mode: CompatibilityMode = "subclass",
    language: str = "en",
    **options: Unpack[ToolboxOptions],
) -> ToolView:
    """The tools over ``graph`` as a person calls them: one toolbox's default view, with exactly the caps given."""
    return SagaToolbox(graph, schema, **options).default_view(mode=mode, language=language)


class RecordingReader(KnowledgeGraph):
    """A :class:`KnowledgeGraph` that records every checked query the tools run."""

    def __init__(self, backend: KGBackend) -> None:
        super().__init__(backend)
        self.queries: list[CheckedQuery] = []

    def run(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.queries.append(query)
        return super().run(query, limits)


class FailingReader(RecordingReader):
    """A recording reader whose queries containing ``needle`` time out."""

    def __init__(self, backend: KGBackend, needle: str) -> None:
        super().__init__(backend)
        self.needle = needle

    def run(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        if self.needle in query.text:
            self.queries.append(query)
            raise QueryTimeout(f"timed out (scripted for {self.needle})")
        return super().run(query, limits)
