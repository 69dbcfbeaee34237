"""What the execute tool returns, and the switches and caps it takes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from saga_kgqa.kg.core.result import QueryForm, QueryResult
from saga_kgqa.schema import SchemaSource
from saga_kgqa.state import TypeState
from saga_kgqa.tools.execute.empty_diagnosis import DiagnosisSettings, EmptyDiagnosis
from saga_kgqa.tools.execute.type_check_models import BlockedPattern
from saga_kgqa.tools.execute.vacuous_patterns import VacuousPattern

ExecuteStatus = Literal["ok", "empty", "blocked", "rejected", "error"]


class ExecuteError(BaseModel):
    """A typed failure, as the model needs it: what happened, whose fault, whether to retry.

    Attributes:
        kind: The error class name (``QueryTimeout``, ``QueryRejected``, ...).
        message: The error's message.
        reason: The guard's reason code, for rejected queries.
        query_at_fault: The query must change before it is sent again.
        retryable: Sending the same query later may succeed.
        retry_after_s: How long the endpoint asked us to wait, when it said.
    """

    model_config = ConfigDict(frozen=True)

    kind: str
    message: str
    reason: str | None = None
    query_at_fault: bool
    retryable: bool
    retry_after_s: float | None = None


class ExecuteOutcome(BaseModel):
    """Everything one call of :func:`execute` produced.

    Attributes:
        status: ``ok`` (rows, or an ASK answer), ``empty``, ``blocked`` (a type conflict;
            not run), ``rejected`` (the guard refused it; not run) or ``error`` (the store failed).
        text: The observation for the model, capped and escaped.
        query: The text that was (or would have been) sent, after the guard's rewriting.
        rewrites: What was rewritten so this store could run a query written for another
            engine (WDQS prefixes, the label service, ...), one line each, beside ``query``.
        form: The query form, when the guard identified it.
        variables: Projected variables.
        row_count: Rows returned.
        row_count_exact: False when a LIMIT or our row cap may have cut the result.
        rows_shown: Rows in the rendered table.
        boolean: The answer of an ASK query.
        complete: False when the endpoint said the answer may be partial.
        elapsed_s: Seconds spent running the query itself.
        theta_delta: New type evidence for Θ.
        blocked: The conflicting patterns of a blocked query.
        vacuous: The required patterns that match nothing in the graph (a blocked query).
        diagnosis: Why an empty (or false ASK) result is empty.
        error: The failure of a rejected or failed query.
        notes: Remarks on the checks (a helper query failed, a conflict the graph overruled, ...).
        result: The raw result (not serialised).
    """

    model_config = ConfigDict(frozen=True)

    status: ExecuteStatus
    text: str
    query: str = ""
    rewrites: tuple[str, ...] = ()
    form: QueryForm | None = None
    variables: tuple[str, ...] = ()
    row_count: int = 0
    row_count_exact: bool = True
    rows_shown: int = 0
    boolean: bool | None = None
    complete: bool = True
    elapsed_s: float = 0.0
    theta_delta: TypeState = Field(default_factory=TypeState)
    blocked: tuple[BlockedPattern, ...] = ()
    vacuous: tuple[VacuousPattern, ...] = ()
    diagnosis: EmptyDiagnosis | None = None
    error: ExecuteError | None = None
    notes: tuple[str, ...] = ()
    result: Annotated[QueryResult | None, SkipValidation] = Field(default=None, exclude=True, repr=False)


@dataclass(frozen=True, slots=True)
class ExecuteSettings:
    """Switches and caps of the execute tool (each is an ablation or a user setting).

    Attributes:
        type_check: Run the pre-execution type check.
        check_ranges: Also check objects of known type against ranges.
        verify_blocks: Confirm a conflict with one bounded ASK before blocking (off: the
            paper's schema-only rule).
        check_vacuous: With ``verify_blocks`` (the check is data-confirmed), block a SELECT whose
            required pattern the graph cannot match (a class
            with no direct instances, a property used nowhere), saying what to use instead
            (:mod:`saga_kgqa.tools.execute.vacuous_patterns`).
        block_sources: Schema sources trusted to block (formal, induced, surveyed).
        unplaced_types_block: Let a type with no known place in the hierarchy block (see
            :class:`~saga_kgqa.tools.execute.type_check.TypeCheckSettings`).
        plain_literals_typed: Read plain literal constants as ``xsd:string`` in range checks.
        record_types: Read the types of returned entities into Θ.
        diagnose_empty: Probe an empty result for the part that emptied it.
        deadline_s: Budget of the whole call: the guard, the type check and its helper
            queries, the query itself and the empty-result diagnosis share it, each
            stage getting what the earlier ones left.
        helper_deadline_s: Budget of each helper query (types, verification), within ``deadline_s``.
        max_result_rows: Rows read from the store (our row cap).
        max_rows_shown: Rows in the table shown to the model.
        max_cell_chars: Cap of each shown cell.
        max_bytes: Cap of the whole observation, in UTF-8 bytes.
        trace_sample: Entities per variable whose types are read after a non-empty result.
        diagnosis: Budgets of the empty-result diagnosis.
    """

    type_check: bool = True
    check_ranges: bool = True
    verify_blocks: bool = True
    check_vacuous: bool = True
    block_sources: frozenset[SchemaSource] = frozenset({"formal", "induced", "surveyed"})
    unplaced_types_block: bool = True
    plain_literals_typed: bool = True
    record_types: bool = True
    diagnose_empty: bool = True
    deadline_s: float = 30.0
    helper_deadline_s: float = 5.0
    max_result_rows: int = 1000
    max_rows_shown: int = 20
    max_cell_chars: int = 80
    max_bytes: int = 8000
    trace_sample: int = 10
    diagnosis: DiagnosisSettings = field(default_factory=DiagnosisSettings)
