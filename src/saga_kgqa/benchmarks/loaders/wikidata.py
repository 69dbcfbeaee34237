"""Wikidata benchmark formats: QALD JSON, SPINACH-style lists and WikiWebQuestions.

* QALD JSON (QALD-7 task 4, QALD-10): ``{"questions": [{id, question: [{language, string}],
  query: {sparql}, answers: [<SPARQL JSON>]}]}``. Answers are taken as shipped; a question
  without text in the requested language is skipped and counted.
* SPINACH-style lists (QALD-9-plus, WikiWebQuestions test, SPINACH dev/test, SPINACH's
  flattened QALD copies): ``[{id, question, sparql}]`` with no answers.
* WikiWebQuestions dev/train: ``[{id, utterance, sparql, results?}]`` where ``results`` is a
  list of binding dicts without the SPARQL JSON envelope; the variables are taken from the
  bindings in first-seen order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.loaders.files import LoadedBenchmark, object_list, read_json, text_field
from saga_kgqa.benchmarks.questions import BenchmarkQuestion, bindings_document, infer_kind
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import QueryResult

# QALD fields kept in ``extra`` (QALD-7 writes booleans as strings, QALD-10 as booleans).
_QALD_EXTRA = ("answertype", "aggregation", "onlydbo", "hybrid")


def load_qald_json(path: Path, benchmark: str, *, language: str = "en") -> LoadedBenchmark:
    """Load a QALD JSON file.

    Args:
        path: The file.
        benchmark: Name used in the question ids (``qald10``).
        language: Which of the question's languages to keep.

    Raises:
        ConfigurationError: The file is not QALD JSON.
    """
    data = read_json(path)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected a QALD JSON object with 'questions'")
    items = object_list(data.get("questions"), path, {"id", "question"})
    questions = []
    skipped: dict[str, int] = {}
    for item in items:
        text = _qald_text(item, language, path)
        if text is None:
            skipped[f"no {language} text"] = skipped.get(f"no {language} text", 0) + 1
            continue
        query = item.get("query")
        sparql = query.get("sparql") if isinstance(query, dict) else None
        answers = _qald_answers(item, path)
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['id']}",
                benchmark=benchmark,
                question=text,
                language=language,
                gold_sparql=sparql if isinstance(sparql, str) else None,
                gold_answers=answers,
                kind=infer_kind(sparql if isinstance(sparql, str) else None, answers),
                extra={key: str(item[key]).lower() for key in _QALD_EXTRA if key in item},
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions), skipped=skipped)


def _qald_text(item: dict[str, Any], language: str, path: Path) -> str | None:
    entries = item["question"]
    if not isinstance(entries, list):
        raise ConfigurationError(f"{path}: question {item['id']!r} has no list of languages")
    for entry in entries:
        if isinstance(entry, dict) and entry.get("language") == language and isinstance(entry.get("string"), str):
            text: str = entry["string"]
            return text
    return None


def _qald_answers(item: dict[str, Any], path: Path) -> dict[str, Any] | None:
    answers = item.get("answers")
    if not answers:
        return None
    if not isinstance(answers, list) or not isinstance(answers[0], dict):
        raise ConfigurationError(f"{path}: question {item['id']!r} has malformed answers")
    try:
        QueryResult.from_sparql_json(answers[0])
    except ValueError as exc:
        raise ConfigurationError(f"{path}: question {item['id']!r} answers are not SPARQL JSON: {exc}") from exc
    document: dict[str, Any] = answers[0]
    return document


def load_spinach_list(path: Path, benchmark: str) -> LoadedBenchmark:
    """Load a SPINACH-style ``[{id, question, sparql}]`` list (no answers).

    Raises:
        ConfigurationError: The file is not such a list.
    """
    items = object_list(read_json(path), path, {"id", "question", "sparql"})
    questions = tuple(
        BenchmarkQuestion(
            id=f"{benchmark}:{item['id']}",
            benchmark=benchmark,
            question=text_field(item, "question", path),
            gold_sparql=text_field(item, "sparql", path),
            kind=infer_kind(item["sparql"]),
            extra={key: str(item[key]) for key in ("title", "url") if key in item},
        )
        for item in items
    )
    return LoadedBenchmark(name=benchmark, questions=questions)


def load_wikiwebquestions(path: Path, benchmark: str) -> LoadedBenchmark:
    """Load WikiWebQuestions ``[{id, utterance, sparql, results?}]`` with its cached results.

    Raises:
        ConfigurationError: The file is not in that format.
    """
    items = object_list(read_json(path), path, {"id", "utterance", "sparql"})
    questions = []
    for item in items:
        results = item.get("results")
        answers = None
        if results is not None:
            if not isinstance(results, list) or not all(isinstance(row, dict) for row in results):
                raise ConfigurationError(f"{path}: {item['id']!r} results are not a list of bindings")
            variables = list(dict.fromkeys(var for row in results for var in row))
            answers = bindings_document(variables, results)
        sparql = text_field(item, "sparql", path)
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['id']}",
                benchmark=benchmark,
                question=text_field(item, "utterance", path),
                gold_sparql=sparql,
                gold_answers=answers,
                kind=infer_kind(sparql, answers),
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions))
