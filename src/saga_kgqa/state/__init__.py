"""Typed agent state: the type state Θ, the knowledge log, the action history and the graph schemas."""

from typing import TYPE_CHECKING

from saga_kgqa.lazy_names import lazy_names

if TYPE_CHECKING:
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
    from saga_kgqa.state.type_patterns import extract_type_patterns, type_patterns_in
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


#: Every name is imported from its module on first use. type_patterns parses SPARQL with rdflib
#: (~0.3 s to import), so a command that only reads the graph (saga lookup) never pays for it; the
#: run records (pydantic models) are left out the same way, so a tool that only needs the type state
#: does not build them at import (issue 39: ~10 ms of ``saga search``'s start).
_LAZY = {
    **dict.fromkeys(
        (
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
            "add_token_usage",
        ),
        "saga_kgqa.state.records",
    ),
    **dict.fromkeys(
        (
            "ANSWER_KEY",
            "TypeEvidence",
            "TypeProvenance",
            "TypeState",
            "answer_type_prior",
            "declared_types",
            "merge_type_state",
            "trace_types",
            "type_state_of",
            "variable_key",
        ),
        "saga_kgqa.state.type_state",
    ),
    **dict.fromkeys(("extract_type_patterns", "type_patterns_in"), "saga_kgqa.state.type_patterns"),
}


__getattr__ = lazy_names(__name__, _LAZY, globals())
