"""Every example passes the read-only guard; where the source is reachable it is run and its result counted."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

from saga_kgqa.errors import QueryRejected, SagaError
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

#: Limits of one example's check run.
CHECK_LIMITS = ExecutionLimits(deadline_s=20.0, max_rows=10_000)


@dataclass
class CheckReport:
    """Checked examples and the ones dropped, with why.

    Attributes:
        kept: Examples the guard accepted, with ``checked_on`` (and ``result_count`` when run).
        dropped: ``(example, reason)``: rejected by the guard, or failing or empty when run.
    """

    kept: list[QueryExample] = field(default_factory=list)
    dropped: list[tuple[QueryExample, str]] = field(default_factory=list)


def check_examples(
    examples: Iterable[QueryExample], graph: KnowledgeGraph, *, execute: bool = True, keep_empty: bool = False
) -> CheckReport:
    """Guard-check each example and, when ``execute``, run it.

    Args:
        examples: The harvested pairs.
        graph: The source they are for (its guard, and its store when reachable).
        execute: Run each accepted query (off when the source is not reachable now).
        keep_empty: Keep examples whose SELECT returns no row (off: an empty example teaches little).
    """
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    report = CheckReport()
    for example in examples:
        try:
            graph.check(example.sparql)
        except QueryRejected as exc:
            report.dropped.append((example, f"rejected by the guard: {exc.message[:200]}"))
            continue
        if not execute:
            report.kept.append(example.model_copy(update={"checked_on": today}))
            continue
        try:
            result = graph.query(example.sparql, limits=CHECK_LIMITS)
        except SagaError as exc:
            report.dropped.append((example, f"failed when run: {type(exc).__name__}: {exc.message[:200]}"))
            continue
        count = (1 if result.boolean else 0) if result.form == "ASK" else len(result.rows)
        if count == 0 and result.form != "ASK" and not keep_empty:
            report.dropped.append((example, "returned no row"))
            continue
        report.kept.append(example.model_copy(update={"checked_on": today, "result_count": count}))
    return report
