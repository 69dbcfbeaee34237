"""Typed agent state: the type state Θ, the knowledge log and the action history."""

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
    "TypeEvidence",
    "TypeProvenance",
    "TypeState",
    "answer_type_prior",
    "declared_types",
    "extract_type_patterns",
    "merge_type_state",
    "trace_types",
    "type_patterns_in",
    "type_state_of",
    "variable_key",
]
