"""Freebase benchmark formats: CWQ, GrailQA and WebQuestions as ToG ships them, and WebQSP.

Freebase answers are MIDs (``m.0yrltsn``) or literal values; MIDs become IRIs in the
``http://rdf.freebase.com/ns/`` namespace the gold queries use. CWQ ships a single label
string and WebQuestions a list of labels, so their answers are flagged as values: they
can be matched against answer labels, never scored row by row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from saga_kgqa.benchmarks.loaders.files import LoadedBenchmark, object_list, read_json, text_field
from saga_kgqa.benchmarks.questions import AnswerKind, BenchmarkQuestion, infer_kind, values_document
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.core.result import Term

FREEBASE_NS = "http://rdf.freebase.com/ns/"


def freebase_term(answer_type: str, argument: str) -> Term:
    """An answer as an RDF term: entities (MIDs) as IRIs, anything else as a plain literal."""
    if answer_type.lower() == "entity":
        return Term("uri", FREEBASE_NS + argument)
    return Term("literal", argument)


def load_cwq(path: Path, benchmark: str = "cwq") -> LoadedBenchmark:
    """Load ComplexWebQuestions as ToG ships it (``ID``, ``question``, ``sparql``, ``answer`` label).

    Raises:
        ConfigurationError: The file is not in that format.
    """
    items = object_list(read_json(path), path, {"ID", "question", "sparql"})
    questions = []
    for item in items:
        label = item.get("answer")
        sparql = text_field(item, "sparql", path)
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['ID']}",
                benchmark=benchmark,
                question=text_field(item, "question", path),
                gold_sparql=sparql,
                gold_answers=values_document([Term("literal", label)]) if isinstance(label, str) else None,
                answers_are_values=True,
                kind=infer_kind(sparql),
                extra={key: str(item[key]) for key in ("compositionality_type", "webqsp_ID") if key in item},
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions))


def load_grailqa(path: Path, benchmark: str = "grailqa") -> LoadedBenchmark:
    """Load GrailQA (``qid``, ``question``, ``sparql_query``, ``answer`` list of typed arguments).

    Raises:
        ConfigurationError: The file is not in that format.
    """
    items = object_list(read_json(path), path, {"qid", "question", "sparql_query", "answer"})
    questions = []
    for item in items:
        answers = [_grail_answer(answer, path) for answer in item["answer"]]
        function = str(item.get("function", "none"))
        sparql = text_field(item, "sparql_query", path)
        kind = AnswerKind.COUNT if function == "count" else infer_kind(sparql)
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['qid']}",
                benchmark=benchmark,
                question=text_field(item, "question", path),
                gold_sparql=sparql,
                gold_answers=values_document(answers),
                answers_are_values=True,
                kind=kind,
                extra={"level": str(item.get("level", "")), "function": function},
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions))


def _grail_answer(answer: Any, path: Path) -> Term:
    if not isinstance(answer, dict) or not {"answer_type", "answer_argument"} <= answer.keys():
        raise ConfigurationError(f"{path}: malformed GrailQA answer {answer!r}")
    return freebase_term(str(answer["answer_type"]), str(answer["answer_argument"]))


def load_webquestions(path: Path, benchmark: str = "webquestions") -> LoadedBenchmark:
    """Load WebQuestions as ToG ships it (``question``, ``answers`` labels, no SPARQL).

    The file has no ids; questions are numbered in file order.

    Raises:
        ConfigurationError: The file is not in that format.
    """
    items = object_list(read_json(path), path, {"question", "answers"})
    questions = []
    for number, item in enumerate(items):
        labels = item["answers"]
        if not isinstance(labels, list):
            raise ConfigurationError(f"{path}: entry {number} answers are not a list")
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{number}",
                benchmark=benchmark,
                question=text_field(item, "question", path),
                gold_answers=values_document([Term("literal", str(label)) for label in labels]),
                answers_are_values=True,
                kind=AnswerKind.SET,
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions))


def load_webqsp(path: Path, benchmark: str = "webqsp") -> LoadedBenchmark:
    """Load WebQSP in its public format (``{"Questions": [{QuestionId, RawQuestion, Parses}]}``).

    The first parse gives the gold SPARQL and answers (entity MIDs or literal values).
    Questions without any parse are skipped and counted.

    Raises:
        ConfigurationError: The file is not in that format.
    """
    data = read_json(path)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{path}: expected a WebQSP object with 'Questions'")
    items = object_list(data.get("Questions"), path, {"QuestionId", "RawQuestion", "Parses"})
    questions = []
    skipped: dict[str, int] = {}
    for item in items:
        parses = item["Parses"]
        if not isinstance(parses, list) or not parses or not isinstance(parses[0], dict):
            skipped["no parse"] = skipped.get("no parse", 0) + 1
            continue
        parse = parses[0]
        sparql = text_field(parse, "Sparql", path)
        answers = [
            freebase_term(str(answer.get("AnswerType", "")), str(answer.get("AnswerArgument", "")))
            for answer in parse.get("Answers") or []
            if isinstance(answer, dict)
        ]
        questions.append(
            BenchmarkQuestion(
                id=f"{benchmark}:{item['QuestionId']}",
                benchmark=benchmark,
                question=text_field(item, "RawQuestion", path),
                gold_sparql=sparql,
                gold_answers=values_document(answers),
                kind=infer_kind(sparql),
            )
        )
    return LoadedBenchmark(name=benchmark, questions=tuple(questions), skipped=skipped)
