"""The checkpoint serializer for the agent state: only the project's own record types are revived."""

from __future__ import annotations

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from saga_kgqa.state import evidence, mars, outcome, records, type_state

#: Every class the state holds, as (module, class name): the only custom types a checkpoint may revive.
STATE_TYPES: tuple[tuple[str, str], ...] = tuple(
    (cls.__module__, cls.__name__)
    for cls in (
        type_state.TypeState,
        type_state.TypeEvidence,
        records.Action,
        records.Answer,
        records.AnswerType,
        records.KnowledgeEntry,
        records.PriorTurn,
        records.PruneRequest,
        records.QueryAttempt,
        records.Step,
        records.TokenUsage,
        records.TraceSummary,
        mars.PatternEntry,
        outcome.RunOutcome,
        outcome.RowCounts,
        outcome.EarlierResult,
        evidence.Evidence,
        evidence.EvidenceTerm,
        evidence.EvidenceTriple,
        evidence.Qualifier,
        evidence.Reference,
        evidence.RowEvidence,
        evidence.StatementEvidence,
    )
)


def checkpoint_serde() -> JsonPlusSerializer:
    """A serializer for checkpointers (``SqliteSaver(conn, serde=checkpoint_serde())``).

    LangGraph revives any class named in a checkpoint unless told otherwise; this one
    allows only the state's record types (and LangGraph's own safe types).
    """
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)
