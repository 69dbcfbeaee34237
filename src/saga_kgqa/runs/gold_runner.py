"""What runs a benchmark's reference queries: the executor protocol and its limits.

The batch runner, the agent answerer (re-running an answer's final query without the exploratory
cap) and the MCP server's ``kg_ask`` run queries through these; the gold store in
:mod:`saga_kgqa.eval.qa.gold` uses the same pair, so a gold answer and a re-run answer are cut at
the same size.
"""

from __future__ import annotations

from typing import Protocol

from saga_kgqa.errors import QueryRejected, SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.state.outcome import FinalRun, RunStatus, derive_outcome

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


def replay_outcome(result: QueryResult | None = None, error: SagaError | None = None) -> RunStatus:
    """The run outcome of a query replayed as the answer (gold-replay), by the rules ``finalize`` applies.

    Rows or an ASK answer: ``answered`` (``partial`` when a cap or the endpoint cut them); no rows:
    ``empty``; the guard refused it: ``refused`` (``failed`` for a malformed query); a timeout:
    ``timed_out``; any other error: ``failed``; no query at all (neither given): ``refused`` (``no_query``).
    """
    final: FinalRun | None = None
    if error is not None:
        rejected = isinstance(error, QueryRejected)
        final = FinalRun(
            status="rejected" if rejected else "error",
            error_kind=type(error).__name__,
            error_reason=error.reason if isinstance(error, QueryRejected) else None,
        )
    elif result is not None:
        answered = bool(result.rows) or result.boolean is not None
        final = FinalRun(
            status="ok" if answered else "empty",
            row_count=len(result.rows),
            exact=not result.truncated,
            complete=result.complete,
        )
    return derive_outcome("stop", final).status
