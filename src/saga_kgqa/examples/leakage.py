"""The leakage guard: no example may be a question (or a query) of the benchmark being evaluated.

A benchmark's own pairs often travel in other files: the CK25 corporate graph ships its 50
test pairs as ``queries.ttl`` published examples. Whatever file an example came from, it is
refused when its normalised question or its normalised query equals one of the benchmark's
(:mod:`saga_kgqa.examples.normalise`). The guard runs when a run loads its examples and
again when a run is scored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.examples.normalise import normalise_query, normalise_question


class ExampleLeakage(ConfigurationError):
    """Examples that are the benchmark's own questions or queries were about to be used."""


@dataclass
class LeakageReport:
    """What the guard kept and refused.

    Attributes:
        kept: Examples that are not the benchmark's.
        refused: ``(example, reason)`` pairs; the reason says which benchmark question it matched and how.
    """

    kept: list[QueryExample] = field(default_factory=list)
    refused: list[tuple[QueryExample, str]] = field(default_factory=list)


class LeakageGuard:
    """Refuses examples that match a benchmark's questions or gold queries."""

    def __init__(self, questions: Iterable[BenchmarkQuestion]) -> None:
        """Index the benchmark's questions and gold queries (every language the questions come in)."""
        self._questions: dict[str, str] = {}
        self._queries: dict[str, str] = {}
        for question in questions:
            self._questions.setdefault(normalise_question(question.question), question.id)
            if question.gold_sparql:
                self._queries.setdefault(normalise_query(question.gold_sparql), question.id)
        self._questions.pop("", None)
        self._queries.pop("", None)

    def __len__(self) -> int:
        return len(self._questions)

    def reason(self, example: QueryExample) -> str | None:
        """Why the example is refused, or ``None`` when it may be used."""
        by_question = self._questions.get(normalise_question(example.question))
        if by_question is not None:
            return f"its question is benchmark question {by_question}"
        by_query = self._queries.get(normalise_query(example.sparql))
        if by_query is not None:
            return f"its query is the gold query of benchmark question {by_query}"
        return None

    def screen(self, examples: Iterable[QueryExample]) -> LeakageReport:
        """Split examples into kept and refused."""
        report = LeakageReport()
        for example in examples:
            why = self.reason(example)
            if why is None:
                report.kept.append(example)
            else:
                report.refused.append((example, why))
        return report

    def require_clean(self, examples: Iterable[QueryExample]) -> None:
        """Raise when any example is the benchmark's (the check made when a run is scored).

        Raises:
            ExampleLeakage: At least one example matches; the message names a few.
        """
        refused = self.screen(examples).refused
        if refused:
            named = "; ".join(f"{e.source} {e.origin}: {why}" for e, why in refused[:3])
            raise ExampleLeakage(f"{len(refused)} examples are the benchmark's own: {named}")
