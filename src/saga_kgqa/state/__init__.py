"""Typed agent state: the type state Θ, the knowledge log, the action history and the graph schemas."""

from typing import TYPE_CHECKING, Any

from saga_kgqa.state.records import (
    Action,
    Answer,
    AnswerType,
    KnowledgeEntry,
    Outcome,
    PriorTurn,
    PruneRequest,
    QueryAttempt,
    RunStatus,
    Step,
    TokenUsage,
    ToolName,
    TraceSummary,
    add_token_usage,
)
from saga_kgqa.state.type_state import (
    ANSWER_KEY,
    TypeEvidence,
    TypeProvenance,
    TypeState,
    answer_type_prior,
    declared_types,
    merge_type_state,
    trace_types,
    type_state_of,
    variable_key,
)

if TYPE_CHECKING:
    from saga_kgqa.state.type_patterns import extract_type_patterns, type_patterns_in

__all__ = [
    "ANSWER_KEY",
    "Action",
    "Answer",
    "AnswerType",
    "KnowledgeEntry",
    "Outcome",
    "PriorTurn",
    "PruneRequest",
    "QueryAttempt",
    "RunStatus",
    "Step",
    "TokenUsage",
    "ToolName",
    "TraceSummary",
    "TypeEvidence",
    "TypeProvenance",
    "TypeState",
    "add_token_usage",
    "answer_type_prior",
    "declared_types",
    "extract_type_patterns",
    "merge_type_state",
    "trace_types",
    "type_patterns_in",
    "type_state_of",
    "variable_key",
]


def __getattr__(name: str) -> Any:
    # type_patterns parses SPARQL with rdflib (~0.3 s to import): loaded on first use, so a
    # command that only reads the graph (saga lookup) never pays for it.
    if name in {"extract_type_patterns", "type_patterns_in"}:
        from saga_kgqa.state import type_patterns

        return getattr(type_patterns, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
