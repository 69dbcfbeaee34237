"""What runs a benchmark's reference queries: the executor protocol and its limits.

The batch runner, the agent answerer (re-running an answer's final query without the exploratory
cap) and the MCP server's ``kg_ask`` run queries through these; the gold store in
:mod:`saga_kgqa.eval.qa.gold` uses the same pair, so a gold answer and a re-run answer are cut at
the same size.
"""

from __future__ import annotations

from typing import Protocol

from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult

#: Limits for running gold queries: generous, since a cut gold answer is unusable.
GOLD_LIMITS = ExecutionLimits(deadline_s=60.0, max_rows=100_000)


class GoldRunner(Protocol):
    """Runs query text behind the read-only guard (``KnowledgeGraph`` satisfies it)."""

    @property
    def endpoint_id(self) -> str:
        """A stable identifier of the store or endpoint."""
        ...

    def query(self, text: str | bytes, limits: ExecutionLimits | None = None) -> QueryResult:
        """Check and run one query."""
        ...
