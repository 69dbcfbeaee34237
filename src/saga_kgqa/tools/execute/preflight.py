"""The checks before a query runs: the read-only guard, then the pre-execution type check.

The query itself is never sent here; only bounded helper queries built from escaped
terms (the constants' declared types, the confirmation of a conflict) reach the graph.
Both checks spend the call's one deadline: a check that used all of it stops the call
with a timeout naming that check, and each helper query gets at most what is left.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rdflib.plugins.sparql.parserutils import CompValue

from saga_kgqa.errors import QueryRejected, SagaError
from saga_kgqa.kg.core.clock import SYSTEM_CLOCK, Deadline
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.guard.query_text import declared_prefixes
from saga_kgqa.kg.guard.sparql_algebra import parse_algebra
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import CompatibilityMode, SchemaIndex
from saga_kgqa.state import TypeState, declared_types, merge_type_state, type_patterns_in
from saga_kgqa.tools.execute.models import ExecuteOutcome, ExecuteSettings
from saga_kgqa.tools.execute.text import blocked_text, failure_outcome, stage_timeout_outcome
from saga_kgqa.tools.execute.type_check import TypeCheckReport, TypeCheckSettings, check_query_types
from saga_kgqa.tools.execute.vacuous_patterns import VacuousPattern, vacuous_patterns, vacuous_text
from saga_kgqa.tools.graph_reads import Reads
from saga_kgqa.tools.render import cap_bytes


@dataclass(frozen=True, slots=True)
class Preflight:
    """What :func:`preflight` learnt about a query before running it.

    Attributes:
        checked: The query as the guard passed it (``None`` when rejected).
        stop: The outcome to return instead of running (rejected or blocked), else ``None``.
        report: The type check's report.
        vacuous: Required patterns the graph cannot match (a block of their own when the
            type check blocked nothing).
        root: The query's algebra (``None`` when it could not be analysed).
        pattern_types: The query's own type patterns, as Θ evidence.
        constants: The declared types of the query's constants, as Θ evidence.
        display_prefixes: Prefixes for showing IRIs (the profile's and the query's own).
        notes: Remarks on the checks.
    """

    checked: CheckedQuery | None
    stop: ExecuteOutcome | None
    report: TypeCheckReport = field(default_factory=TypeCheckReport)
    vacuous: tuple[VacuousPattern, ...] = ()
    root: CompValue | None = None
    pattern_types: TypeState = field(default_factory=TypeState)
    constants: TypeState = field(default_factory=TypeState)
    display_prefixes: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


def preflight(
    sparql: str,
    *,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    theta: TypeState | None = None,
    mode: CompatibilityMode = "subclass",
    settings: ExecuteSettings | None = None,
    step: int | None = None,
    deadline: Deadline | None = None,
) -> Preflight:
    """Run the guard and the pre-execution type check; the query itself is never sent.

    Args:
        sparql: The query text, as the model wrote it.
        graph: The graph (the guard, and bounded helper queries for types).
        schema: The schema index.
        theta: The type state of earlier steps.
        mode: ``subclass`` or ``exact`` compatibility.
        settings: Switches and caps.
        step: The agent step, recorded on new type evidence.
        deadline: The call's total deadline, started by the caller; a new one of
            ``settings.deadline_s`` when omitted.

    Returns:
        The checks' findings; ``stop`` holds the outcome of a rejected or blocked query, or
        the timeout of a check that used the whole deadline.
    """
    settings = settings or ExecuteSettings()
    deadline = deadline or Deadline(SYSTEM_CLOCK, settings.deadline_s)
    try:
        # One row more than the row cap, so the knowledge graph can tell a cut result from a full one.
        checked = graph.check(sparql, default_limit=settings.max_result_rows + 1)
    except QueryRejected as exc:
        return Preflight(checked=None, stop=failure_outcome("rejected", exc, query="", max_bytes=settings.max_bytes))
    if deadline.expired():
        timed_out = stage_timeout_outcome(
            "read-only guard", deadline.total_s, query=checked.text, max_bytes=settings.max_bytes
        )
        return Preflight(checked=checked, stop=timed_out)
    prefixes = dict(graph.profile.prefixes)
    display = {**prefixes, **dict(declared_prefixes(checked.text))}
    root, pattern_types, notes = _analyse(checked, prefixes, schema, step)
    report = TypeCheckReport()
    if settings.type_check and root is not None and schema.properties:
        report = check_query_types(
            root,
            graph=graph,
            schema=schema,
            theta=theta or TypeState(),
            pattern_types=pattern_types,
            display_prefixes=display,
            settings=TypeCheckSettings(
                mode=mode,
                check_ranges=settings.check_ranges,
                verify=settings.verify_blocks,
                block_sources=settings.block_sources,
                unplaced_types_block=settings.unplaced_types_block,
                plain_literals_typed=settings.plain_literals_typed,
                deadline_s=settings.helper_deadline_s,
                until=deadline,
            ),
        )
        notes.extend(report.notes)
        notes.extend(
            f"the schema predicts a conflict in `{p}`, but the graph has such triples" for p in report.overruled
        )
    constants = _constant_evidence(report, step)
    stop = None
    vacuous: list[VacuousPattern] = []
    vacuous_on = settings.type_check and settings.check_vacuous and settings.verify_blocks and bool(schema.properties)
    if vacuous_on and not report.blocked and root is not None:
        vacuous = _vacuous(root, graph, schema, display, settings, deadline)
        if vacuous:
            stop = ExecuteOutcome(
                status="blocked",
                text=cap_bytes(vacuous_text(vacuous), settings.max_bytes),
                query=checked.text,
                form=checked.form,
                theta_delta=constants,
                vacuous=tuple(vacuous),
                notes=tuple(notes),
            )
    if report.blocked:
        stop = ExecuteOutcome(
            status="blocked",
            text=cap_bytes(blocked_text(report.blocked, display), settings.max_bytes),
            query=checked.text,
            form=checked.form,
            theta_delta=constants,
            blocked=report.blocked,
            notes=tuple(notes),
        )
    if stop is None and deadline.expired():
        # A block stands (it needs no more time); a query that would run has no time left.
        stop = stage_timeout_outcome(
            "pre-execution type check",
            deadline.total_s,
            query=checked.text,
            max_bytes=settings.max_bytes,
            theta_delta=constants,
        )
    return Preflight(
        checked=checked,
        stop=stop,
        report=report,
        vacuous=tuple(vacuous),
        root=root,
        pattern_types=pattern_types,
        constants=constants,
        display_prefixes=display,
        notes=tuple(notes),
    )


def _analyse(
    checked: CheckedQuery, prefixes: Mapping[str, str], schema: SchemaIndex, step: int | None
) -> tuple[CompValue | None, TypeState, list[str]]:
    """Parse the checked text once more into rdflib's algebra and read its type patterns."""
    try:
        root = parse_algebra(checked.text, prefixes, comments_blanked=checked.origin == "guard")
        pattern_types = type_patterns_in(
            root,
            type_predicates=schema.type_predicates,
            subclass_predicates=schema.subclass_predicates,
            step=step,
        )
    except QueryRejected as exc:
        # The guard parsed it; rdflib's algebra may still fail (deep nesting). Run it unchecked.
        return None, TypeState(), [f"the query could not be analysed ({exc.reason}); it was not type-checked"]
    return root, pattern_types, []


def _vacuous(
    root: CompValue,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    display: Mapping[str, str],
    settings: ExecuteSettings,
    deadline: Deadline,
) -> list[VacuousPattern]:
    """Required patterns that match nothing; a failed (or out-of-time) helper query blocks nothing."""
    reads = Reads(graph, deadline_s=settings.helper_deadline_s, until=deadline)
    try:
        return vacuous_patterns(root, reads, schema, schema.type_predicates, schema.subclass_predicates, display)
    except SagaError:
        return []


def _constant_evidence(report: TypeCheckReport, step: int | None) -> TypeState:
    delta = TypeState()
    for entity, types in report.constant_types.items():
        delta = merge_type_state(delta, declared_types(entity, types, step=step, detail="execute"))
    return delta
