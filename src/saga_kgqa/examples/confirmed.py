"""Examples from the project's own runs (issue 25, build item 1c): opt-in, one confirmed run at a time.

A user who has checked an answer runs ``saga index example-confirm RUN --out FILE``: the run
(``saga ask --json`` output, or the trajectory ``saga ask --trace`` wrote) must have ended
``answered``; its question and final query become one example, which must pass the leakage
guard (never a benchmark's question or gold query: a benchmark run's trace is a test split),
the read-only guard and, where the source is reachable, a run on it (kept with its result
count and the date). It is appended to the source's examples file unless an example with the
same question or query is there already.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.check import check_examples
from saga_kgqa.examples.file_reading import loads_capped, read_text_file
from saga_kgqa.examples.leakage import ExampleLeakage, LeakageGuard
from saga_kgqa.examples.model import QueryExample, clipped, read_examples
from saga_kgqa.examples.normalise import normalise_query, normalise_question
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

#: Bytes of a run file read (a trajectory of a long run is large; its start and end are what counts).
MAX_RUN_FILE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class FinishedRun:
    """What a confirmed run contributes.

    Attributes:
        question: The question the run answered.
        sparql: Its final query.
        status: How it ended (only ``answered`` runs become examples).
        language: The run's label language ("" when the file does not say).
        origin: Where it was read from (the file, and the run's thread when known).
    """

    question: str
    sparql: str
    status: str
    language: str
    origin: str


def read_run(path: Path) -> FinishedRun:
    """A finished run from ``saga ask --json`` output or a ``saga ask --trace`` trajectory.

    Raises:
        ConfigurationError: The file cannot be read, or holds neither form.
    """
    text = read_text_file(path, what="run file", max_bytes=MAX_RUN_FILE_BYTES)
    try:
        whole = loads_capped(text, str(path))
    except ValueError:
        whole = None
    if isinstance(whole, dict) and "final_sparql" in whole:
        return _run(whole, whole, {}, f"{path} thread {whole.get('thread_id') or '?'}")
    events = _events(text, path)
    start = next((e for e in events if e.get("event") == "start"), None)
    end = next((e for e in reversed(events) if e.get("event") == "end"), None)
    if start is None or end is None:
        raise ConfigurationError(f"{path} is neither `saga ask --json` output nor a finished `--trace` trajectory")
    context = start.get("context")
    return _run(
        start, end, context if isinstance(context, dict) else {}, f"{path} thread {start.get('thread_id') or '?'}"
    )


def _events(text: str, path: Path) -> list[dict[str, Any]]:
    events = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = loads_capped(line, f"{path}, line {number}")
        except ValueError as exc:
            raise ConfigurationError(f"{path}:{number}: not a JSON line of a trajectory") from exc
        if isinstance(event, dict):
            events.append(event)
    return events


def _run(head: dict[str, Any], tail: dict[str, Any], context: dict[str, Any], origin: str) -> FinishedRun:
    question, sparql = head.get("question"), tail.get("final_sparql")
    return FinishedRun(
        question=question if isinstance(question, str) else "",
        sparql=sparql if isinstance(sparql, str) else "",
        status=str(tail.get("status") or tail.get("error") or "unknown"),
        language=str(context.get("language") or ""),
        origin=origin,
    )


def confirm_run(
    run: FinishedRun, graph: KnowledgeGraph, guard: LeakageGuard, out: Path, *, execute: bool = True
) -> QueryExample:
    """Check a confirmed run and append it to ``out`` as an example.

    Args:
        run: The run the user confirmed.
        graph: The source it ran on (its guard; its store when ``execute``).
        guard: The leakage guard over every benchmark it must not come from.
        out: The source's examples file (created when missing).
        execute: Run the query on the source (off when the source is not reachable now).

    Returns:
        The example appended.

    Raises:
        ConfigurationError: The run did not end answered, has no question or query, is already in the file,
            or failed the guard or its run (the message says which).
        ExampleLeakage: The run's question or query is a benchmark's.
    """
    if run.status != "answered":
        raise ConfigurationError(f"the run ended {run.status!r}; only runs that ended 'answered' can be confirmed")
    if not run.question.strip() or not run.sparql.strip():
        raise ConfigurationError("the run has no question or no final query")
    example = clipped(run.question, run.sparql, source="runs", origin=run.origin[:300], language=run.language)
    why = guard.reason(example)
    if why is not None:
        raise ExampleLeakage(f"refused: {why} (examples never come from a benchmark)")
    existing = read_examples(out) if out.exists() else []
    question, query = normalise_question(example.question), normalise_query(example.sparql)
    for old in existing:
        if normalise_question(old.question) == question or normalise_query(old.sparql) == query:
            raise ConfigurationError(f"{out} already has this example ({old.source} {old.origin})".strip())
    report = check_examples([example], graph, execute=execute)
    if not report.kept:
        raise ConfigurationError(f"refused: {report.dropped[0][1]}")
    kept = report.kept[0]
    with out.open("a", encoding="utf-8") as handle:
        handle.write(kept.model_dump_json() + "\n")
    return kept
