"""Why did a query return nothing? Probe its parts with small ASK queries and name the culprit.

Only the query's required top-level part is probed: its triple patterns, its VALUES
blocks and the conjuncts of its FILTERs. The probes are rebuilt from the parsed algebra
with every term re-escaped (:class:`~saga_kgqa.kg.guard.algebra_text.AlgebraWriter`) and still
pass the read-only guard before they run, each under a short deadline. In order:

1. each pattern alone: a pattern that matches nothing in the graph is the culprit;
2. the patterns joined one at a time (each next pattern shares a variable with those
   before it when possible): the first one that empties the join is the culprit, with
   the variables it shares;
3. all patterns with each FILTER conjunct: the first conjunct that removes every
   solution is the culprit (conjuncts over variables the patterns do not bind are skipped);
4. otherwise the emptiness comes from a part that was not probed (OPTIONAL, UNION,
   MINUS, a subquery, HAVING, OFFSET), which the diagnosis lists.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import BNode, Variable

from saga_kgqa.errors import BackendError, QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.guard.algebra_text import AlgebraTextError, AlgebraWriter, Triple, term_variables
from saga_kgqa.kg.guard.sparql_algebra import SOLUTION_MODIFIERS
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.text_safety import display_writer, graph_text
from saga_kgqa.tools.execute.datatype_mismatch import mismatch_note
from saga_kgqa.tools.execute.key_format import iri_string_note, key_format_note

DiagnosisKind = Literal["dead_pattern", "join", "filter", "filters_combined", "values", "elsewhere", "unknown"]

# Slices (OFFSET), groupings and filters (HAVING above a grouping) are handled each on its own.
_PASS_THROUGH = SOLUTION_MODIFIERS
# The nodes above a grouping: a Filter among them is a HAVING clause.
_CHAIN = _PASS_THROUGH | {"Slice", "Filter"}


class EmptyDiagnosis(BaseModel):
    """Which part of a query emptied its result.

    Attributes:
        kind: ``dead_pattern`` (a pattern matches nothing at all), ``join`` (a pattern
            matches, but not together with the patterns before it), ``filter`` (one
            FILTER condition removes every solution), ``filters_combined`` (each FILTER
            condition passes alone, not together), ``values`` (a VALUES block has no
            rows), ``elsewhere`` (the probed part is non-empty), ``unknown`` (the
            probes could not run).
        pattern: The culprit pattern, for display.
        dead_patterns: Every probed pattern that matches nothing alone.
        partners: For ``join``: the patterns it was joined with.
        shared_variables: For ``join``: the variables the culprit shares with its partners.
        filter: For ``filter``: the culprit condition, for display.
        unprobed: Parts of the query the probes left out.
        probes: Probe queries sent.
        complete: False when a probe failed or a budget ran out before a culprit was found.
        message: The diagnosis in one or two sentences.
    """

    model_config = ConfigDict(frozen=True)

    kind: DiagnosisKind
    pattern: str | None = None
    dead_patterns: tuple[str, ...] = ()
    partners: tuple[str, ...] = ()
    shared_variables: tuple[str, ...] = ()
    filter: str | None = None
    unprobed: tuple[str, ...] = ()
    probes: int = 0
    complete: bool = True
    message: str = ""


@dataclass(frozen=True, slots=True)
class DiagnosisSettings:
    """Budgets of the empty-result diagnosis.

    Attributes:
        max_patterns: Most patterns probed (the rest are left out, and said so).
        max_probes: Most probe queries sent.
        probe_deadline_s: Budget of each probe.
        total_deadline_s: Budget of the whole diagnosis.
        max_values_rows: VALUES blocks with more rows are left out of the probes.
    """

    max_patterns: int = 16
    max_probes: int = 40
    probe_deadline_s: float = 5.0
    total_deadline_s: float = 20.0
    max_values_rows: int = 200


@dataclass(slots=True)
class _Parts:
    """The required top-level part of a query."""

    patterns: list[Triple] = field(default_factory=list)
    filters: list[Any] = field(default_factory=list)
    values: list[CompValue] = field(default_factory=list)
    unprobed: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if what not in self.unprobed:
            self.unprobed.append(what)


class _OutOfBudget(Exception):
    """A probe failed or a budget ran out."""


def diagnose_empty(
    root: CompValue,
    *,
    graph: KnowledgeGraph,
    display_prefixes: Mapping[str, str],
    settings: DiagnosisSettings | None = None,
) -> EmptyDiagnosis:
    """Find the first part of a query that empties its result.

    Args:
        root: The query's algebra.
        graph: The graph; probes pass its guard and run under short deadlines.
        display_prefixes: Prefixes used to name patterns and conditions.
        settings: Budgets.

    Returns:
        The diagnosis (``kind="unknown"`` with ``complete=False`` when nothing could be probed).
    """
    settings = settings or DiagnosisSettings()
    parts = _Parts()
    _collect(root, parts, having_zone=_aggregated(root))
    prober = _Prober(graph, settings, AlgebraWriter(), display_writer(display_prefixes), display_prefixes)
    try:
        return _diagnose(parts, prober, settings)
    except _OutOfBudget as exc:
        return EmptyDiagnosis(
            kind="unknown",
            unprobed=tuple(parts.unprobed),
            probes=prober.sent,
            complete=False,
            message=f"Could not find which part matches nothing: {exc}.",
        )


def _diagnose(parts: _Parts, prober: _Prober, settings: DiagnosisSettings) -> EmptyDiagnosis:
    values = prober.values_text(parts)
    if values is None:
        return prober.result("values", message="A VALUES block of the query has no rows.", parts=parts)
    patterns = _connected_order(parts.patterns)
    if len(patterns) > settings.max_patterns:
        parts.note(f"{len(patterns) - settings.max_patterns} more triple patterns")
        patterns = patterns[: settings.max_patterns]
    dead = [p for p in patterns if not prober.ask(values, [p])]
    if dead:
        shown = [prober.show(p) for p in dead]
        where = "for the values the query's VALUES block gives" if values else "in the graph"
        message = f"The pattern `{shown[0]}` matches nothing {where}."
        if len(shown) > 1:
            message += " Nor do: " + ", ".join(f"`{s}`" for s in shown[1:]) + "."
        mismatch = prober.mismatch(dead[0], parts.values) or prober.key_format(dead[0])
        message += f" {mismatch}" if mismatch else ""
        return prober.result("dead_pattern", message=message, parts=parts, pattern=shown[0], dead=shown)
    for count in range(2, len(patterns) + 1):
        if not prober.ask(values, patterns[:count]):
            culprit, before = patterns[count - 1], patterns[: count - 1]
            common = _variables(culprit) & set().union(*(_variables(p) for p in before))
            shared = sorted(v for v in common if not v.startswith("_:"))
            partners = [prober.show(p) for p in before]
            joint = f" on {', '.join('?' + v for v in shared)}" if shared else " (they share no variable)"
            message = (
                f"Each pattern matches on its own, but `{prober.show(culprit)}` matches nothing together with "
                + ", ".join(f"`{p}`" for p in partners)
                + f"{joint}."
            )
            return prober.result(
                "join", message=message, parts=parts, pattern=prober.show(culprit), partners=partners, shared=shared
            )
    bound = set().union(*(_variables(p) for p in patterns)) | _values_variables(parts.values)
    checkable = []
    for condition in parts.filters:
        if term_variables(condition) <= bound:
            checkable.append(condition)
        else:
            parts.note("FILTER conditions on variables bound elsewhere")
    for condition in checkable:
        if not prober.ask(values, patterns, [condition]):
            text = prober.show_expression(condition)
            message = "The triple patterns match, but " + f"FILTER {text} removes every solution."
            subjects = {str(p[0]) for p in patterns if isinstance(p[0], Variable)}
            note = iri_string_note(condition, subjects, prober.show_expression)
            message += f" {note}" if note else ""
            return prober.result("filter", message=message, parts=parts, filter_text=text)
    if len(checkable) > 1 and not prober.ask(values, patterns, checkable):
        message = "The triple patterns match and each FILTER condition passes alone, but not all of them together."
        return prober.result("filters_combined", message=message, parts=parts)
    where = ", ".join(parts.unprobed) if parts.unprobed else "LIMIT/OFFSET or the projection"
    message = f"The required triple patterns and FILTERs match; the emptiness comes from: {where}."
    return prober.result("elsewhere", message=message, parts=parts)


class _Prober:
    """Sends probe ASKs through the guard within the budgets, and names parts for display."""

    def __init__(
        self,
        graph: KnowledgeGraph,
        settings: DiagnosisSettings,
        writer: AlgebraWriter,
        display: AlgebraWriter,
        prefixes: Mapping[str, str],
    ) -> None:
        self._graph = graph
        self._settings = settings
        self._writer = writer
        self._display = display
        self._prefixes = prefixes
        self._started = time.monotonic()
        self.sent = 0

    def values_text(self, parts: _Parts) -> str | None:
        """The VALUES blocks to put in every probe; None when one has no rows at all."""
        texts = []
        for node in parts.values:
            rows = list(node.res or [])
            if not rows:
                return None
            if len(rows) > self._settings.max_values_rows:
                parts.note("a large VALUES block")
                continue
            try:
                texts.append(self._writer.values(node))
            except AlgebraTextError:
                parts.note("a VALUES block")
        return " ".join(texts)

    def ask(self, values: str, patterns: Sequence[Triple], conditions: Sequence[Any] = ()) -> bool:
        if self.sent >= self._settings.max_probes:
            raise _OutOfBudget(f"the probe budget ({self._settings.max_probes} queries) ran out")
        remaining = self._settings.total_deadline_s - (time.monotonic() - self._started)
        if remaining <= 0:
            raise _OutOfBudget("the diagnosis ran out of time")
        try:
            body = " ".join([values, self._writer.triples(patterns)])
            body += "".join(f" FILTER({self._writer.expression(c)})" for c in conditions)
            checked = self._graph.check(f"ASK {{ {body} }}")
        except (AlgebraTextError, QueryRejected) as exc:
            raise _OutOfBudget(f"a probe could not be built ({exc})") from None
        self.sent += 1
        limits = ExecutionLimits(deadline_s=min(self._settings.probe_deadline_s, remaining), max_rows=1)
        try:
            return bool(self._graph.run(checked, limits).boolean)
        except BackendError as exc:
            raise _OutOfBudget(f"a probe failed ({type(exc).__name__})") from None

    def mismatch(self, triple: Triple, values: Sequence[CompValue]) -> str | None:
        """Whether the dead pattern's literals differ in datatype from the graph's values (one probe)."""
        if self.sent >= self._settings.max_probes:
            return None
        self.sent += 1
        remaining = self._settings.total_deadline_s - (time.monotonic() - self._started)
        deadline = min(self._settings.probe_deadline_s, remaining)
        return mismatch_note(triple, values, graph=self._graph, prefixes=self._prefixes, deadline_s=deadline)

    def key_format(self, triple: Triple) -> str | None:
        """How the graph writes the dead pattern's key, when only its format differs (one or two probes)."""
        if self.sent >= self._settings.max_probes:
            return None
        self.sent += 1
        remaining = self._settings.total_deadline_s - (time.monotonic() - self._started)
        deadline = min(self._settings.probe_deadline_s, remaining)
        return key_format_note(triple, self._graph, self._prefixes, deadline)

    def show(self, triple: Triple) -> str:
        try:
            return self._display.triple(triple)
        except AlgebraTextError:
            return graph_text(" ".join(str(term) for term in triple))

    def show_expression(self, condition: Any) -> str:
        try:
            text = self._display.expression(condition)
        except AlgebraTextError:
            return "(a condition)"
        return text if text.startswith("(") else f"({text})"

    def result(
        self,
        kind: DiagnosisKind,
        *,
        message: str,
        parts: _Parts,
        pattern: str | None = None,
        dead: Sequence[str] = (),
        partners: Sequence[str] = (),
        shared: Sequence[str] = (),
        filter_text: str | None = None,
    ) -> EmptyDiagnosis:
        return EmptyDiagnosis(
            kind=kind,
            pattern=pattern,
            dead_patterns=tuple(dead),
            partners=tuple(partners),
            shared_variables=tuple(shared),
            filter=filter_text,
            unprobed=tuple(parts.unprobed),
            probes=self.sent,
            message=message,
        )


def _aggregated(root: CompValue) -> bool:
    """Whether the query groups (then FILTERs above the grouping are HAVING clauses)."""
    node: Any = root
    while isinstance(node, CompValue) and node.name in _CHAIN:
        node = node.p
    return isinstance(node, CompValue) and node.name in ("AggregateJoin", "Group")


def _collect(node: Any, parts: _Parts, *, having_zone: bool) -> None:
    """Gather the required top-level patterns, FILTER conjuncts and VALUES of a query."""
    if not isinstance(node, CompValue):
        return
    name = node.name
    if name in _PASS_THROUGH:
        _collect(node.p, parts, having_zone=having_zone)
    elif name == "Slice":
        if node.start:
            parts.note("OFFSET")
        _collect(node.p, parts, having_zone=having_zone)
    elif name in ("AggregateJoin", "Group"):
        _collect(node.p, parts, having_zone=False)
    elif name == "Filter":
        if having_zone:
            parts.note("HAVING")
        else:
            parts.filters.extend(_conjuncts(node.expr))
        _collect(node.p, parts, having_zone=having_zone)
    elif name == "BGP":
        parts.patterns.extend(tuple(t) for t in node.triples)
    elif name == "Join":
        _collect(node.p1, parts, having_zone=having_zone)
        _collect(node.p2, parts, having_zone=having_zone)
    elif name in ("LeftJoin", "Minus"):
        parts.note("OPTIONAL" if name == "LeftJoin" else "MINUS")
        _collect(node.p1, parts, having_zone=having_zone)
    elif name == "ToMultiSet":
        if isinstance(node.p, CompValue) and node.p.name == "values":
            parts.values.append(node.p)
        else:
            parts.note("a subquery")
    else:
        parts.note({"Union": "UNION", "Graph": "GRAPH", "ServiceGraphPattern": "SERVICE"}.get(name, name))


def _conjuncts(expr: Any) -> list[Any]:
    if isinstance(expr, CompValue) and expr.name == "ConditionalAndExpression":
        return [item for part in [expr.expr, *(expr.other or [])] for item in _conjuncts(part)]
    return [expr]


def _variables(triple: Triple) -> set[str]:
    return {str(term) for term in triple if isinstance(term, Variable)} | {
        f"_:{term}" for term in triple if isinstance(term, BNode)
    }


def _values_variables(values: Sequence[CompValue]) -> set[str]:
    return {str(v) for node in values for row in node.res or [] for v in row}


def _connected_order(patterns: Sequence[Triple]) -> list[Triple]:
    """The patterns reordered so each one shares a variable with those before it when possible."""
    remaining = list(patterns)
    ordered: list[Triple] = []
    seen: set[str] = set()
    while remaining:
        pick = next((p for p in remaining if _variables(p) & seen), remaining[0])
        remaining.remove(pick)
        ordered.append(pick)
        seen |= _variables(pick)
    return ordered
