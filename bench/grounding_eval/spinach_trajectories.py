"""The pre-execution check on SPINACH's recorded QALD-10 queries, offline types only (issue 13).

SPINACH's QALD-10 agent traces (``spinach/qald10_spinach_agent_trace.json.gz``, gpt-4o on live
Wikidata in 2024) hold every ``execute_sparql`` action with its observation, and each question's
``generated_sparqls`` with the raw execution result. Live Wikidata is not reachable here, so a
query's outcome is the recorded one (:func:`recorded_outcome`) and the check reads only offline
types: the offline Wikidata store (``saga wikidata build-store``) and the offline schema index.

The check runs with the offline Wikidata settings of the gold measurement
(:data:`bench.grounding_eval.wikidata.CHECK_SETTINGS`) and without the vacuous-pattern
block: that block proves a pattern matches nothing in the graph, and the offline store holds a
small part of Wikidata, so its absences prove nothing about the live graph.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.grounding_eval.trajectories import Outcome, TrajectoryQuery, TrajectoryTally, measure_trajectories
from bench.grounding_eval.wikidata import CHECK_SETTINGS
from saga_kgqa.dialects.spinach_trace import TRACE_FILE, load_traces
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.execute.models import ExecuteSettings

#: Offline types only: the type check, never a data-absence block from a partial store.
SPINACH_CHECK_SETTINGS: ExecuteSettings = replace(CHECK_SETTINGS, check_vacuous=False, diagnose_empty=False)
_EMPTY_OBSERVATION = "Query returned empty result"


def spinach_queries(data_dir: Path) -> Iterator[TrajectoryQuery]:
    """Every executed query of the traces, numbered ``qald10:<question>:<execution>`` from 1.

    Raises:
        ConfigurationError: The traces file is missing or not the traces' JSON.
    """
    for number, trace in enumerate(load_traces(data_dir / TRACE_FILE), start=1):
        generated = {str(g.get("sparql")): g for g in trace.get("generated_sparqls") or [] if isinstance(g, Mapping)}
        step = 0
        for action in trace.get("actions") or []:
            if not isinstance(action, Mapping) or action.get("action_name") != "execute_sparql":
                continue
            sparql = action.get("action_argument")
            if not isinstance(sparql, str) or not sparql.strip():
                continue
            step += 1
            outcome = recorded_outcome(generated.get(sparql), action.get("observation"))
            yield TrajectoryQuery(f"qald10:{number}:{step}", sparql, outcome)


def recorded_outcome(generated: Mapping[str, Any] | None, observation: object) -> Outcome:
    """What a query returned on live Wikidata, from its ``generated_sparqls`` record, else its observation.

    The record holds the raw result (a list of bindings, or the ASK boolean); the observation is
    SPINACH's rendering (a pandas table, ``Query returned empty result.``, ``False``, the server's
    error). A missing observation with no record (a timeout or a tool failure) says nothing.
    """
    if generated is not None:
        if generated.get("execution_status") not in (None, "ok"):
            return "error"
        result = generated.get("execution_result")
        if isinstance(result, bool):
            return "ok" if result else "ask_false"
        if isinstance(result, list):
            # Rows with no bound projected variable ([{}]) still mean the pattern matched.
            return "ok" if result else "empty"
    if not isinstance(observation, str):
        return "unknown"
    text = observation.strip()
    first = text.split("\n", 1)[0]
    if not text or text.startswith(_EMPTY_OBSERVATION):
        return "empty"
    if text in ("True", "False"):
        return "ok" if text == "True" else "ask_false"
    if first.startswith("Empty DataFrame"):
        return "empty" if "Index: []" in text else "ok"
    if "Exception" in first or first.lower().startswith("error"):
        return "error"
    return "ok"


def measure_spinach(graph: KnowledgeGraph, schema: SchemaIndex, data_dir: Path, details: int = 5) -> TrajectoryTally:
    """Check every recorded SPINACH query against offline types and tally the blocks against its recorded result."""
    return measure_trajectories(graph, schema, spinach_queries(data_dir), SPINACH_CHECK_SETTINGS, details)
