"""The one question model every benchmark loader produces.

A question carries its gold SPARQL and, where the dataset ships them, its gold answers as
a W3C SPARQL 1.1 JSON results document (the format QALD, WikiWebQuestions and SPINACH
already use, and the one :class:`~saga_kgqa.kg.core.result.QueryResult` reads). Answers that a
dataset ships only as labels or bare values (CWQ, WebQuestions, the TEXT2SPARQL result
sets) are turned into a one-column result whose cells are those values, and
``answers_are_values`` says so: such answers can be compared value by value, never row
by row.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from saga_kgqa.kg.core.result import QueryResult, Term
from saga_kgqa.kg.guard.sparql_lexer import tokenize


class AnswerKind(StrEnum):
    """What shape of answer a question expects."""

    BOOLEAN = "boolean"
    COUNT = "count"
    SET = "set"
    UNKNOWN = "unknown"


class BenchmarkQuestion(BaseModel):
    """One benchmark question.

    Attributes:
        id: Identifier unique within its benchmark, prefixed with it (``qald10:0``).
        benchmark: Name of the benchmark (``qald10``, ``wwq-dev``, ``ck25`` ...).
        question: The question text in ``language``.
        language: ISO 639-1 code of ``question``.
        gold_sparql: The reference query, with any implicit prefixes made explicit; ``None``
            for datasets that ship answers only (WebQuestions).
        gold_answers: The shipped answers as SPARQL 1.1 JSON results, if any.
        answers_are_values: The shipped answers are bare values or labels, not result rows.
        kind: The expected answer shape.
        graph: The graph the query runs on when a benchmark has several (Spider4SPARQL).
        extra: Other fields kept as strings (QALD ``answertype``, CWQ ``compositionality_type`` ...).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    benchmark: str
    question: str
    language: str = "en"
    gold_sparql: str | None = None
    gold_answers: dict[str, Any] | None = None
    answers_are_values: bool = False
    kind: AnswerKind = AnswerKind.UNKNOWN
    graph: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)

    @field_validator("gold_answers")
    @classmethod
    def _valid_sparql_json(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            QueryResult.from_sparql_json(value)
        return value

    def gold_result(self) -> QueryResult | None:
        """The shipped answers as a typed result, or ``None`` when the dataset ships none."""
        return None if self.gold_answers is None else QueryResult.from_sparql_json(self.gold_answers)


def bindings_document(variables: list[str], bindings: list[dict[str, Any]]) -> dict[str, Any]:
    """Wrap bare binding dicts (WikiWebQuestions ``results``) in a SPARQL JSON envelope."""
    return {"head": {"vars": variables}, "results": {"bindings": bindings}}


def values_document(values: list[Term], variable: str = "answer") -> dict[str, Any]:
    """A one-column SPARQL JSON document with one row per value."""
    return bindings_document([variable], [{variable: term.to_json()} for term in values])


def infer_kind(sparql: str | None, answers: dict[str, Any] | None = None) -> AnswerKind:
    """Guess the expected answer shape from the gold query, else from the shipped answers.

    ASK queries expect a boolean; a SELECT whose projection is a single ``COUNT``
    aggregate expects a count; any other SELECT a set.
    """
    if sparql:
        tokens = [t for t in tokenize(sparql) if t.kind != "comment"]
        for index, token in enumerate(tokens):
            if token.brace_depth or token.paren_depth:
                continue
            if token.is_word("ASK"):
                return AnswerKind.BOOLEAN
            if token.is_word("SELECT"):
                return _select_kind(tokens[index + 1 :])
    if answers is not None:
        return AnswerKind.BOOLEAN if "boolean" in answers else AnswerKind.SET
    return AnswerKind.UNKNOWN


def _select_kind(after_select: list[Any]) -> AnswerKind:
    projection = []
    for token in after_select:
        if (token.kind == "punct" and token.text == "{") or token.is_word("WHERE", "FROM"):
            break
        projection.append(token)
    words = [t for t in projection if t.kind == "word"]
    counts = sum(1 for t in words if t.is_word("COUNT"))
    top_level_vars = [t for t in projection if t.kind == "var" and t.paren_depth == 0]
    # ``SELECT (COUNT(?x) AS ?n)`` and Virtuoso's bare ``SELECT COUNT(?x)`` both project one count.
    if counts == 1 and not top_level_vars:
        return AnswerKind.COUNT
    return AnswerKind.SET
