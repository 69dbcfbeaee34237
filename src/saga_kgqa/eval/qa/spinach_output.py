"""SPINACH's released prediction files (``spinach_output_test.json``), read and re-scored.

Each entry holds ``question``, ``predicted_sparql``, ``gold_sparql``, the per-question
``f1`` SPINACH reported, and both answers as ``*_answer_tuple``: a list of binding dicts
(SPARQL JSON rows without the envelope) or a bare boolean for ASK queries. SPINACH dropped
questions whose gold result was empty before writing the file, so every gold here is usable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.loaders.files import object_list, read_json
from saga_kgqa.benchmarks.questions import bindings_document
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.eval.qa.scorer import QuestionScores, score_question
from saga_kgqa.kg.core.result import QueryResult

_REQUIRED = {"question", "predicted_sparql", "gold_answer_tuple", "predicted_answer_tuple"}


@dataclass(frozen=True, slots=True)
class SpinachOutputEntry:
    """One entry of a SPINACH output file.

    Attributes:
        index: Position in the file, from 0.
        question: The question.
        predicted_sparql: SPINACH's final query (``None`` when it wrote none).
        gold_sparql: The gold query, when the file has it.
        reported_f1: The ``f1`` SPINACH computed, when the file has it.
        predicted: The predicted answers (``None`` when there are none).
        gold: The gold answers.
    """

    index: int
    question: str
    predicted_sparql: str | None
    gold_sparql: str | None
    reported_f1: float | None
    predicted: QueryResult | None
    gold: QueryResult


def answer_tuple_result(value: Any) -> QueryResult | None:
    """Turn an ``*_answer_tuple`` (bindings list, boolean or ``None``) into a typed result.

    Variables are the binding keys in first-seen order.

    Raises:
        ValueError: The value is none of those.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return QueryResult(form="ASK", boolean=value)
    if not isinstance(value, list) or not all(isinstance(row, dict) for row in value):
        raise ValueError(f"not an answer tuple: {type(value).__name__}")
    variables = list(dict.fromkeys(var for row in value for var in row))
    return QueryResult.from_sparql_json(bindings_document(variables, value))


def read_spinach_output(path: Path) -> list[SpinachOutputEntry]:
    """Read a SPINACH output file (``.json`` or ``.json.gz``).

    Raises:
        ConfigurationError: The file is not a SPINACH output file.
    """
    entries = []
    for index, item in enumerate(object_list(read_json(path), path, _REQUIRED)):
        try:
            gold = answer_tuple_result(item["gold_answer_tuple"])
            predicted = answer_tuple_result(item["predicted_answer_tuple"])
        except ValueError as exc:
            raise ConfigurationError(f"{path}: entry {index}: {exc}") from exc
        if gold is None:
            raise ConfigurationError(f"{path}: entry {index} has no gold answers")
        reported = item.get("f1")
        entries.append(
            SpinachOutputEntry(
                index=index,
                question=str(item["question"]),
                predicted_sparql=item["predicted_sparql"] if isinstance(item["predicted_sparql"], str) else None,
                gold_sparql=item.get("gold_sparql") if isinstance(item.get("gold_sparql"), str) else None,
                reported_f1=float(reported) if isinstance(reported, int | float) else None,
                predicted=predicted,
                gold=gold,
            )
        )
    return entries


def score_entry(entry: SpinachOutputEntry) -> QuestionScores:
    """Every metric for one SPINACH output entry."""
    return score_question(entry.predicted, entry.gold)
