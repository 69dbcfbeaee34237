"""The source tools in the controller loop: catalog, summary, resolve, expand, bridge and execute on a named source.

When the run grounds over the operator's named sources (:func:`source_mode`), the
controller is offered these tools next to SAGA's own and shown AutoSchema's A.3 policy
(:func:`source_prompt_lines`). They are nodes like search or execute: the same action
parsing, routing, tracing and step records; each calls a plain function of
:mod:`saga_kgqa.sources.grounding` with the source *name* the model wrote (never a URL or
a path), and every result the model sees is capped at 6,000 characters, as in the paper.
Arguments naming a source are ``"SOURCE: rest"`` (``bridge``: ``"LEFT: RIGHT"``), so every
tool keeps its one string argument.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime

from saga_kgqa.config.context import SagaContext
from saga_kgqa.errors import BackendError, ConfigurationError, SourceMisbehaved, ToolInputError
from saga_kgqa.graph.dependencies import GraphDependencies
from saga_kgqa.graph.records import knowledge
from saga_kgqa.graph.tool_nodes import begin_step, execute_summary, finish_action
from saga_kgqa.state import Action, Outcome, QueryAttempt
from saga_kgqa.state.graph_state import SagaState
from saga_kgqa.text_safety import cap_block
from saga_kgqa.tools.execute.tool import ExecuteSettings
from saga_kgqa.tools.failure_text import error_observation
from saga_kgqa.tools.toolbox import ToolView

if TYPE_CHECKING:
    from saga_kgqa.sources.session import SourceSet

#: Characters of one tool result shown to the model (AutoSchema caps results at 6,000).
RESULT_CHARS = 6000
#: With at most this many sources the catalog is in the prompt; with more, ``find_sources`` is offered.
CATALOG_IN_PROMPT = 5
#: Steps left at which the policy says to answer with the best supported result.
LOW_BUDGET_STEPS = 2

_LOG = logging.getLogger(__name__)
_LOW_BUDGET = " The budget is nearly spent: answer now with the best supported result."
_TARGET = re.compile(r"\A\s*([A-Za-z0-9_.\-]+)\s*:\s*(\S.*?)\s*\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class SourceMode:
    """Whether a run grounds over named sources, and how the catalog reaches the model.

    Attributes:
        sources: The operator's sources (``None``: the source tools are off).
        find: Many sources: the model gets ``find_sources`` instead of the catalog in the prompt.
    """

    sources: SourceSet | None = None
    find: bool = False

    @property
    def on(self) -> bool:
        """Whether the source tools are offered."""
        return self.sources is not None


def source_mode(dependencies: GraphDependencies, context: SagaContext) -> SourceMode:
    """The run's source mode under its ``source_tools`` switch.

    ``auto`` turns the tools on when the operator configured several sources, or one whose
    schema is not declared (a graph without a curated schema index); ``on`` whenever
    sources are configured; ``off`` never.
    """
    if context.source_tools == "off":
        return SourceMode()
    sources = dependencies.sources(context)
    if sources is None or not sources.names:
        return SourceMode()
    only = sources.catalog.source(sources.names[0]) if len(sources.names) == 1 else None
    if context.source_tools == "auto" and only is not None and only.schema_index is not None:
        return SourceMode()
    return SourceMode(sources, find=len(sources.names) > CATALOG_IN_PROMPT)


def source_prompt_lines(mode: SourceMode, *, steps_left: int) -> str:
    """The source tools' lines, the A.3 policy, and the catalog (few sources) or the find hint (many)."""
    if mode.sources is None:
        return ""
    from saga_kgqa.sources.catalog_search import catalog_text, list_sources

    lines = [
        "Named sources (each tool takes the source by its catalog name; SERVICE is not allowed, so a "
        "cross-source answer is two queries joined by the join tool on a bridge key):",
    ]
    if mode.find:
        lines.append(
            f"- find_sources(text): the {len(mode.sources.names)} configured sources ranked by title, description "
            "and surveyed class/property names."
        )
    lines += [
        "- summary(source): a source's classes, predicates with object kinds and types, examples, graph scope.",
        "- resolve(SOURCE: name): names or identifiers to stable IRIs of that source, with class and label.",
        "- expand(SOURCE: entity): the entity's outgoing and incoming paths, one hop through intermediate nodes.",
        "- bridge(LEFT: RIGHT): candidate joins between two sources with evidence and a two-step plan.",
        "- execute_on(SOURCE: sparql): runs the query on that source (the final answer is the last query that "
        "answered).",
        "- join(LEFT: query 1 ==> RIGHT: query 2): runs query 1, binds its ?key values into query 2 in the right "
        "source's form and joins the rows; never copy keys by hand. Put the source holding the answer second.",
        "Policy: first decide whether the question needs graph data at all. "
        + ("Call find_sources once to choose sources. " if mode.find else "Choose sources from the catalog below. ")
        + "Call summary once per chosen source. Use resolve to map names to IRIs and expand for indirect or "
        "blank-node values. Call bridge once before a genuine two-source join, run its plan with join and "
        "inspect the rows before trusting it. After two failed or empty attempts, pivot: change the predicate, "
        "the source or the tool instead of repeating. Once the evidence suffices, stop.",
        f"Steps left: {steps_left}." + (_LOW_BUDGET if steps_left <= LOW_BUDGET_STEPS else ""),
    ]
    if not mode.find:
        # A record with a title and a description is shown as written; only the others are surveyed for one.
        lines += ["Catalog:", catalog_text(list_sources(mode.sources, survey_missing=False))]
    return "\n".join(lines)


def attempt_tools(dependencies: GraphDependencies, context: SagaContext, attempt: QueryAttempt) -> ToolView:
    """The run's tools over the graph an attempt ran on: its own graph, or the named source of ``execute_on``.

    The final run and the answer checks use it, so a cross-source answer is re-run and
    checked on the source that produced it, with the source's one toolbox under the run's
    switches: its dialect and entity search, the run's caps, mode and language (the same view
    the run's own tools are when the run is over that source).

    Raises:
        ConfigurationError: The attempt's source is no longer configured, or has no toolbox.
        BackendError: The source failed while its toolbox's schema index was built.
    """
    if attempt.source is None:
        return dependencies.tools(context)
    sources = dependencies.sources(context)
    if sources is None:
        raise ConfigurationError(f"the query ran on source {attempt.source!r}, which is no longer configured")
    return sources.get(attempt.source).toolbox().view(context)


def split_target(argument: str) -> tuple[str, str] | None:
    """``("SOURCE", "rest")`` of a ``"SOURCE: rest"`` argument, or ``None`` when it has no source name."""
    found = _TARGET.match(argument)
    return (found.group(1), found.group(2)) if found else None


class SourceToolNodes:
    """Nodes calling the grounding functions over named sources, bound to the graph's dependencies."""

    def __init__(self, dependencies: GraphDependencies) -> None:
        """Keep the factories."""
        self.dependencies = dependencies

    def find_sources(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``find_sources(text)``: the catalog ranked for the text."""
        from saga_kgqa.sources.catalog_search import catalog_text, find_sources

        def run(sources: SourceSet, action: Action) -> tuple[str, Outcome, str]:
            found = find_sources(sources, action.argument)
            text = catalog_text([item.entry for item in found]) if found else "no source matches; try other words"
            return text, "ok" if found else "empty", f"find_sources {action.argument[:60]!r}: {len(found)} sources"

        return self._run(state, runtime, run)

    def summary(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``summary(source)``."""
        from saga_kgqa.sources.grounding import source_summary

        def run(sources: SourceSet, action: Action) -> tuple[str, Outcome, str]:
            result = source_summary(sources, action.argument.strip())
            outcome: Outcome = "ok" if result.classes else "empty"
            return result.text, outcome, f"summary {result.source}: {len(result.classes)} classes"

        return self._run(state, runtime, run)

    def resolve(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``resolve(SOURCE: name)``."""
        from saga_kgqa.sources.grounding import resolve_entity
        from saga_kgqa.sources.resolution import render_resolution

        def run(sources: SourceSet, action: Action) -> tuple[str, Outcome, str]:
            source, text = _target(action, "name")
            result = resolve_entity(sources, source, text, language=runtime.context.language)
            outcome: Outcome = "ok" if result.candidates else "empty"
            return render_resolution(result), outcome, f"resolve {source}: {text[:60]!r}: {len(result.candidates)} IRIs"

        return self._run(state, runtime, run)

    def expand(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``expand(SOURCE: entity)``."""
        from saga_kgqa.sources.grounding import expand_entity

        def run(sources: SourceSet, action: Action) -> tuple[str, Outcome, str]:
            source, entity = _target(action, "entity")
            result = expand_entity(sources, source, entity)
            found = len(result.paths)
            return result.text, "ok" if found else "empty", f"expand {source}: {entity[:60]}: {found} paths"

        return self._run(state, runtime, run)

    def bridge(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``bridge(LEFT: RIGHT)``."""
        from saga_kgqa.sources.grounding import bridge_sources

        def run(sources: SourceSet, action: Action) -> tuple[str, Outcome, str]:
            left, right = _target(action, "right source")
            result = bridge_sources(sources, left, right.strip())
            outcome: Outcome = "ok" if result.candidates else "empty"
            return result.text, outcome, f"bridge {left} → {right[:40]}: {len(result.candidates)} candidates"

        return self._run(state, runtime, run)

    def execute_on(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``execute_on(SOURCE: sparql)``: guard, the source's type check, run; the attempt names its source."""
        from saga_kgqa.sources.grounding import execute_on_source
        from saga_kgqa.sources.pasted_keys import rematched_query

        context, action, step = begin_step(state, runtime)
        try:
            sources, settings = self._querying(context)
            source, sparql = _target(action, "SPARQL query")
            # Θ describes the run's own graph; another source's types would be wrong evidence for its check.
            result = execute_on_source(sources, source, sparql, settings=settings)
        except (ToolInputError, ConfigurationError, BackendError) as exc:
            return _failed(action, step, exc)
        attempt = QueryAttempt(
            step=step,
            # Pasted keys rebound in the source's stored form: the rebound query is the one that answered.
            sparql=rematched_query(result) or sparql,
            status=result.status,
            row_count=result.row_count,
            boolean=result.boolean,
            source=sources.get(source).name,
            error_kind=result.error.kind if result.error is not None else None,
            error_reason=result.error.reason if result.error is not None else None,
        )
        outcome: Outcome = result.status
        entry = knowledge(step, outcome, f"on {source}: {execute_summary(result)}")
        delta = finish_action(action, step, cap_block(result.text, RESULT_CHARS), outcome, [entry])
        delta["attempts"] = [attempt]
        return delta

    def join(self, state: SagaState, runtime: Runtime[SagaContext]) -> dict[str, Any]:
        """Run ``join(LEFT: q1 ==> RIGHT: q2)``; the attempt is the bound q2 on the right source."""
        from saga_kgqa.sources.federation import join_sources

        context, action, step = begin_step(state, runtime)
        try:
            sources, settings = self._querying(context)
            result = join_sources(sources, action.argument, settings=settings)
        except (ToolInputError, ConfigurationError, BackendError) as exc:
            return _failed(action, step, exc)
        outcome: Outcome = result.status
        entry = knowledge(
            step, outcome, f"join {result.left} → {result.right} on ?{result.key}: {result.row_count} rows"
        )
        delta = finish_action(action, step, cap_block(result.text, RESULT_CHARS), outcome, [entry])
        if result.bound_query:
            delta["attempts"] = [
                QueryAttempt(
                    step=step,
                    sparql=result.bound_query,
                    status=result.status,
                    row_count=result.bound_rows,
                    source=result.right,
                )
            ]
        return delta

    def _querying(self, context: SagaContext) -> tuple[SourceSet, ExecuteSettings]:
        """The run's named sources and its execute settings, for the tools that send queries to them.

        Raises:
            ToolInputError: The run has no named sources (the model chose a source tool anyway).
        """
        sources = source_mode(self.dependencies, context).sources
        if sources is None:
            raise ToolInputError("no named sources are configured in this run; use execute(sparql)")
        return sources, ExecuteSettings(max_rows_shown=context.max_rows_shown, max_bytes=context.max_observation_bytes)

    def _run(self, state: SagaState, runtime: Runtime[SagaContext], run: Any) -> dict[str, Any]:
        context, action, step = begin_step(state, runtime)
        sources = source_mode(self.dependencies, context).sources
        try:
            if sources is None:
                raise ToolInputError(f"no named sources are configured in this run, so {action.tool} cannot run")
            text, outcome, summary = run(sources, action)
        except (ToolInputError, ConfigurationError, BackendError) as exc:
            return _failed(action, step, exc)
        except (ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
            # Something read from the source was unreadable: an observation about that source, not a crashed run.
            _LOG.warning("source tool %s failed on an unreadable answer", action.tool, exc_info=True)
            misbehaved = SourceMisbehaved(
                f"the source answered with something saga could not read ({type(exc).__name__})"
            )
            return _failed(action, step, misbehaved)
        return finish_action(action, step, cap_block(text, RESULT_CHARS), outcome, [knowledge(step, outcome, summary)])


def _target(action: Action, what: str) -> tuple[str, str]:
    found = split_target(action.argument)
    if found is None:
        raise ToolInputError(f"write the argument as 'SOURCE: {what}' (a source name from the catalog, a colon)")
    return found


def _failed(action: Action, step: int, exc: ToolInputError | ConfigurationError | BackendError) -> dict[str, Any]:
    # An unknown source name is the model's mistake: named back with the configured names, never raised.
    text = error_observation(exc, action.tool, subject="source", with_fault=False)
    return finish_action(action, step, text, "error", [knowledge(step, "error", text)])
