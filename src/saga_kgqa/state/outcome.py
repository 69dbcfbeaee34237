"""How a run ended: one outcome, derived once by ``finalize`` and carried unchanged by every face.

A run ends in exactly one of seven outcomes (:data:`RunStatus`):

``answered``
    The final query (the last one the controller executed, as SAGA's ``stop()`` says) ran and
    returned rows, or an ASK answer, all of them.
``partial``
    The final query returned rows, but not all of them: a row cap cut the result, the endpoint
    said it may be incomplete, or the step budget ran out before the controller stopped.
``empty``
    The final query ran and returned nothing (the outcome carries why, when the probes can tell).
``failed``
    A typed error: the final query failed to run, the run was cancelled, or the step budget ran
    out before any query ran.
``timed_out``
    The final query, or the run itself, ran past its deadline.
``refused``
    The read-only guard or the type check refused the final query, or the model stopped
    without running any query (it declined to answer).
``needs_clarification``
    The question names something the run could not decide between; the caller must choose.

An earlier attempt that returned rows is never the answer when the final query did not: it is
kept as :attr:`RunOutcome.earlier` ("an earlier result, not the answer").

Row counts come from here too (:class:`RowCounts`, :func:`counts_text`), so every channel of
every face says the same number. Checkpoints written before this module existed hold the old
four statuses and no outcome; :func:`outcome_of` reads them (:data:`LEGACY_STATUS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

_FROZEN = ConfigDict(frozen=True, extra="forbid")

#: How a run ended (see the module docstring).
RunStatus = Literal["answered", "partial", "empty", "failed", "timed_out", "refused", "needs_clarification"]
RUN_STATUSES: tuple[RunStatus, ...] = get_args(RunStatus)

#: Why a run ended as it did: a short machine-readable code beside the status.
OutcomeReason = Literal[
    "stop",  # the controller stopped on its final query
    "row_cap",  # the answer row cap cut the result
    "endpoint_partial",  # the endpoint said its answer may be incomplete
    "step_budget",  # the step budget ran out before the controller stopped
    "no_query",  # the controller stopped without running any query
    "guard",  # the read-only guard refused the final query
    "type_check",  # the type check blocked the final query
    "query_error",  # the final query failed (store error, syntax, ...)
    "query_timeout",  # the final query ran past its deadline
    "run_deadline",  # the run ran past the caller's time budget
    "cancelled",  # the caller cancelled the run
    "ambiguous",  # the question names more than one thing the run could not decide between
    "legacy",  # read from a checkpoint written before outcomes existed
]

#: The statuses of checkpoints written before outcomes existed, read as today's.
#: ``budget_exhausted`` (the step budget ran out; the last answering query was kept) had rows or not;
#: ``gave_up`` (the controller stopped and no query answered) is read as ``refused`` with no rows.
LEGACY_STATUS: dict[str, RunStatus] = {"budget_exhausted": "partial", "gave_up": "refused"}


class RowCounts(BaseModel):
    """The answer's size, said the same way everywhere.

    Attributes:
        total: Rows the final query returned (before any face shortened the list).
        truncated: True when the result was cut (the row cap, or an endpoint's partial answer): more rows exist.
    """

    model_config = _FROZEN

    total: int = 0
    truncated: bool = False


class EarlierResult(BaseModel):
    """An earlier query that returned rows, shown as "an earlier result, not the answer".

    Attributes:
        step: The step that ran it.
        sparql: Its text.
        row_count: Rows it returned then.
    """

    model_config = _FROZEN

    step: int
    sparql: str
    row_count: int


class RunOutcome(BaseModel):
    """How a run ended: the status every face reports, why, and the counts and notes that go with it.

    Attributes:
        status: One of :data:`RunStatus`.
        reason: Why (:data:`OutcomeReason`).
        message: One sentence for a person.
        rows: The answer's row counts.
        diagnosis: Why the final query is empty, when the probes could tell.
        earlier: The last earlier query that returned rows, when the final one did not answer.
    """

    model_config = _FROZEN

    status: RunStatus
    reason: OutcomeReason
    message: str = ""
    rows: RowCounts = RowCounts()
    diagnosis: str | None = None
    earlier: EarlierResult | None = None

    @property
    def is_answer(self) -> bool:
        """True when the rows are the answer to the question (``answered`` or ``partial``)."""
        return self.status in ("answered", "partial")


def status_of(value: object) -> RunStatus:
    """A status as today's :data:`RunStatus`: legacy names mapped, anything unknown read as ``failed``."""
    text = str(value or "")
    if text in RUN_STATUSES:
        return text
    return LEGACY_STATUS.get(text, "failed")


def outcome_of(values: Mapping[str, Any]) -> RunOutcome:
    """The outcome of a finished run's output state (``status`` plus ``outcome``; old checkpoints too).

    A state with no ``outcome`` (written before outcomes existed) gets one from its old status and
    answer; a state with neither is ``failed`` (the run never reached ``finalize``).
    """
    found = values.get("outcome")
    if isinstance(found, RunOutcome):
        return found
    if isinstance(found, Mapping):
        return RunOutcome.model_validate(dict(found))
    answer = values.get("answer")
    total = int(getattr(answer, "row_count", 0) or 0) if answer is not None else 0
    if isinstance(answer, Mapping):
        total = int(answer.get("row_count") or 0)
    raw = str(values.get("status") or "")
    if not raw:
        return RunOutcome(status="failed", reason="cancelled", message="the run stopped before it finished")
    status = status_of(raw)
    if raw == "budget_exhausted" and total == 0:
        status = "failed"
    return RunOutcome(status=status, reason="legacy", message=f"recorded as {raw!r}", rows=RowCounts(total=total))


def counts_text(rows: RowCounts, shown: int | None = None) -> str:
    """The answer's size in words, the one sentence every face's text uses: ``47 rows (showing 20)``.

    Args:
        rows: The counts of the run's outcome.
        shown: Rows the face lists; ``None`` or the total when it lists them all.
    """
    more = "+" if rows.truncated else ""
    text = f"{rows.total}{more} row{'' if rows.total == 1 and not more else 's'}"
    notes = []
    if rows.truncated:
        notes.append("cut: more rows exist")
    if shown is not None and shown < rows.total:
        notes.append(f"showing {shown}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def stopped_outcome(why: Literal["run_deadline", "cancelled"], earlier: EarlierResult | None = None) -> RunOutcome:
    """The outcome of a run a face stopped before ``finalize`` (its deadline passed, or it was cancelled)."""
    if why == "run_deadline":
        return RunOutcome(status="timed_out", reason=why, message="the run ran past its time budget", earlier=earlier)
    return RunOutcome(status="failed", reason=why, message="the run was cancelled before it finished", earlier=earlier)


class FinalRun(BaseModel):
    """What running the final query once more (in ``finalize``) gave, as the outcome rules need it.

    Attributes:
        status: The execute tool's status: ``ok``, ``empty``, ``blocked``, ``rejected`` or ``error``.
        row_count: Rows returned.
        exact: False when the row cap may have cut the result.
        complete: False when the endpoint said its answer may be incomplete.
        error_kind: The error class of a failed run (``QueryTimeout``, ``QueryRejected``, ...).
        error_reason: The guard's reason code of a rejected query.
        message: The error's message, or the empty result's diagnosis.
    """

    model_config = _FROZEN

    status: Literal["ok", "empty", "blocked", "rejected", "error"]
    row_count: int = 0
    exact: bool = True
    complete: bool = True
    error_kind: str | None = None
    error_reason: str | None = None
    message: str = ""


#: Guard reasons that mean the query is malformed rather than refused by policy.
_MALFORMED = frozenset({"syntax", "empty"})


def derive_outcome(
    stop_reason: str,
    final: FinalRun | None,
    *,
    earlier: EarlierResult | None = None,
    clarification: bool = False,
) -> RunOutcome:
    """The run's outcome, from why the loop ended and what its final query gave (the one place it is decided).

    Args:
        stop_reason: ``stop`` (the controller stopped), ``max_steps`` (the step budget ran out) or
            ``hop_limit`` (MARS's expansion budget ran out).
        final: The final query's run, or ``None`` when the controller ran no query.
        earlier: The last earlier query with rows, kept beside an outcome that is not an answer.
        clarification: The run waits for the caller to choose between candidates.
    """
    budget = stop_reason in ("max_steps", "hop_limit")  # MARS's expansion budget is a step budget too
    if clarification:
        return RunOutcome(
            status="needs_clarification", reason="ambiguous", message="the question is ambiguous: choose one"
        )
    if final is None:
        if budget:
            return RunOutcome(
                status="failed", reason="step_budget", message="the step budget ran out before any query ran"
            )
        return RunOutcome(status="refused", reason="no_query", message="the model stopped without running a query")
    kept = None if final.status == "ok" else earlier
    rows = RowCounts(total=final.row_count, truncated=not (final.exact and final.complete))
    if final.status == "ok":
        if not final.complete:
            return RunOutcome(
                status="partial",
                reason="endpoint_partial",
                message="the endpoint said its answer may be incomplete",
                rows=rows,
            )
        if not final.exact:
            return RunOutcome(
                status="partial", reason="row_cap", message="the row cap cut the result: more rows exist", rows=rows
            )
        if budget:
            return RunOutcome(
                status="partial",
                reason="step_budget",
                message="the step budget ran out before the controller stopped on this query",
                rows=rows,
            )
        return RunOutcome(status="answered", reason="stop", rows=rows)
    if final.status == "empty":
        return RunOutcome(
            status="empty",
            reason="step_budget" if budget else "stop",
            message="the final query returned no rows",
            diagnosis=final.message or None,
            earlier=kept,
        )
    if final.status == "blocked":
        return RunOutcome(
            status="refused", reason="type_check", message="the type check blocked the final query", earlier=kept
        )
    if final.status == "rejected" and final.error_reason not in _MALFORMED:
        return RunOutcome(
            status="refused",
            reason="guard",
            message=_with("the read-only guard refused the final query", final.message),
            earlier=kept,
        )
    if final.error_kind == "QueryTimeout":
        return RunOutcome(
            status="timed_out",
            reason="query_timeout",
            message=_with("the final query timed out", final.message),
            earlier=kept,
        )
    return RunOutcome(
        status="failed", reason="query_error", message=_with("the final query failed", final.message), earlier=kept
    )


def _with(head: str, detail: str) -> str:
    return f"{head}: {detail}" if detail else head
