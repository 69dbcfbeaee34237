"""TEXT2SPARQL'25 (CK25, DB25), Spider4SPARQL dev and LC-QuAD 2.0.

TEXT2SPARQL ships its official answers as a flattened map per question and language,
``{"ck25:<id>-<lang>": {value: count}}``: every distinct cell value of the reference
result, without types, variables or rows. They become one-column value documents
(``answers_are_values``); an ASK question's ``{"true": n}`` becomes the boolean its key
names. The question ids are the map's keys, so the two files join without translation.

Spider4SPARQL questions come from :func:`saga_kgqa.benchmarks.datasets.load_spider_dev` (which
makes the undeclared default prefix explicit and skips questions whose graph is absent).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.datasets import CK25_DIR, load_spider_dev
from saga_kgqa.benchmarks.loaders.files import LoadedBenchmark, object_list, read_json, read_yaml, text_field
from saga_kgqa.benchmarks.questions import AnswerKind, BenchmarkQuestion, infer_kind, values_document
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import Term

DB25_DIR = "text2sparql_db25"


def load_text2sparql(questions_file: Path, results_file: Path | None, prefix: str) -> LoadedBenchmark:
    """Load a TEXT2SPARQL question file, one question per (id, language), with its official results.

    Args:
        questions_file: ``questions.yml`` (CK25) or ``questions_db25.yaml`` (DB25).
        results_file: The official result set (``.json`` or ``.json.gz``); ``None`` for none.
        prefix: The dataset prefix used in ids (``ck25``, ``db25``).

    Raises:
        ConfigurationError: A file is malformed.
    """
    data = read_yaml(questions_file)
    items = object_list(data.get("questions") if isinstance(data, dict) else None, questions_file, {"id", "question"})
    official = _official_results(results_file) if results_file is not None else {}
    questions = []
    for item in items:
        query = item.get("query")
        sparql = text_field(query, "sparql", questions_file) if isinstance(query, dict) else None
        texts = item["question"]
        if not isinstance(texts, dict):
            raise ConfigurationError(f"{questions_file}: question {item['id']!r} has no language map")
        kind = infer_kind(sparql)
        for language, text in texts.items():
            qid = f"{prefix}:{item['id']}-{language}"
            values = official.get(qid)
            questions.append(
                BenchmarkQuestion(
                    id=qid,
                    benchmark=prefix,
                    question=str(text),
                    language=str(language),
                    gold_sparql=sparql,
                    gold_answers=None if values is None else _official_document(values, kind),
                    answers_are_values=True,
                    kind=kind,
                    extra={"features": ",".join(str(f) for f in item.get("features") or [])},
                )
            )
    return LoadedBenchmark(name=prefix, questions=tuple(questions))


def _official_results(path: Path) -> dict[str, dict[str, Any]]:
    data = read_json(path)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigurationError(f"{path}: expected {{question id: {{value: count}}}}")
    return data


def _official_document(values: dict[str, Any], kind: AnswerKind) -> dict[str, Any]:
    if kind is AnswerKind.BOOLEAN and len(values) == 1 and next(iter(values)) in ("true", "false"):
        return {"head": {}, "boolean": next(iter(values)) == "true"}
    return values_document([Term("literal", value) for value in values])


def load_ck25(data_dir: Path) -> LoadedBenchmark:
    """The 50 CK25 questions with the official result set (``text2sparql_ck25/``)."""
    base = data_dir / CK25_DIR
    return load_text2sparql(base / "questions.yml", base / "ck25_true_result_set.json", "ck25")


def load_db25(data_dir: Path) -> LoadedBenchmark:
    """The 100 DB25 questions, English and Spanish, with the official result set (``text2sparql_db25/``)."""
    base = data_dir / DB25_DIR
    return load_text2sparql(base / "questions_db25.yaml", base / "db25_true_result_set.json.gz", "db25")


def load_spider4sparql_dev(data_dir: Path) -> LoadedBenchmark:
    """Spider4SPARQL dev questions whose graph is present; the others are counted as skipped."""
    graphs, absent = load_spider_dev(data_dir)
    questions = tuple(
        BenchmarkQuestion(
            id=gold.qid,
            benchmark="spider4sparql-dev",
            question=gold.question,
            gold_sparql=gold.sparql,
            kind=infer_kind(gold.sparql),
            graph=gold.graph,
        )
        for graph in graphs
        for gold in graph.questions
    )
    skipped = {f"graph {name} absent": count for name, count in absent.items()}
    return LoadedBenchmark(name="spider4sparql-dev", questions=questions, skipped=skipped)


def load_lcquad2(path: Path, benchmark: str = "lcquad2") -> LoadedBenchmark:
    """Load LC-QuAD 2.0 in its public format (``[{uid, question, NNQT_question, sparql_wikidata, ...}]``).

    Some entries have no usable ``question`` (``null``, empty or ``"[]"`` upstream); they
    are skipped and counted rather than replaced by the template question.

    Raises:
        ConfigurationError: The file is not in that format.
    """
    items = object_list(read_json(path), path, {"uid", "question", "sparql_wikidata"})
    questions = []
    skipped: dict[str, int] = {}
    for item in items:
        text = item["question"]
        if not isinstance(text, str) or text.strip() in ("", "[]", "n/a"):
            skipped["no question text"] = skipped.get("no question text", 0) + 1
            continue
        sparql = text_field(item, "sparql_wikidata", path)
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['uid']}",
                benchmark=benchmark,
                question=text,
                gold_sparql=sparql,
                kind=infer_kind(sparql),
                extra={key: str(item[key]) for key in ("template_id", "paraphrased_question") if item.get(key)},
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions), skipped=skipped)
