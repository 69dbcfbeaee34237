"""Loaders on small samples written here: LC-QuAD 2.0, WebQSP, malformed files, answer kinds."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.loaders import load_lcquad2, load_qald_json, load_spinach_list, load_webqsp
from saga_kgqa.benchmarks.questions import AnswerKind, infer_kind
from saga_kgqa.errors import ConfigurationError

LCQUAD_SAMPLE = [
    {
        "uid": 19719,
        "NNQT_question": "What is {periodical literature} for {mouthpiece} of {Delta Air Lines}",
        "question": "What periodical literature does Delta Air Lines use as a moutpiece?",
        "paraphrased_question": "What is Delta Air Line's periodical literature mouthpiece?",
        "sparql_wikidata": " select distinct ?obj where { wd:Q188920 wdt:P2813 ?obj . ?obj wdt:P31 wd:Q1002697 } ",
        "template_id": 1,
    },
    {
        "uid": 15554,
        "NNQT_question": "Did {Nicolas Sarkozy} {spouse} {Carla Bruni}?",
        "question": None,
        "paraphrased_question": "[]",
        "sparql_wikidata": "ASK WHERE { wd:Q329 wdt:P26 wd:Q3048 }",
        "template_id": 2,
    },
    {
        "uid": 2,
        "NNQT_question": "How many {award received} does {Ennio Morricone} have?",
        "question": "How many awards did Ennio Morricone receive?",
        "paraphrased_question": "",
        "sparql_wikidata": "SELECT (COUNT(?obj) AS ?value ) { wd:Q23848 wdt:P166 ?obj }",
        "template_id": 3,
    },
]

WEBQSP_SAMPLE = {
    "Version": "1.0",
    "Questions": [
        {
            "QuestionId": "WebQTest-0",
            "RawQuestion": "what does jamaican people speak?",
            "Parses": [
                {
                    "ParseId": "WebQTest-0.P0",
                    "Sparql": "PREFIX ns: <http://rdf.freebase.com/ns/>\n"
                    "SELECT DISTINCT ?x WHERE { ns:m.03_r3 ns:location.country.languages_spoken ?x . }",
                    "Answers": [
                        {"AnswerType": "Entity", "AnswerArgument": "m.01428y", "EntityName": "Jamaican English"},
                        {"AnswerType": "Value", "AnswerArgument": "1962", "EntityName": None},
                    ],
                }
            ],
        },
        {"QuestionId": "WebQTest-1", "RawQuestion": "no parse?", "Parses": []},
    ],
}


def write(path: Path, data: object, gz: bool = False) -> Path:
    raw = json.dumps(data).encode()
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path


def test_lcquad2_public_format(tmp_path: Path) -> None:
    loaded = load_lcquad2(write(tmp_path / "test.json.gz", LCQUAD_SAMPLE, gz=True))
    assert [q.id for q in loaded.questions] == ["lcquad2:19719", "lcquad2:2"]
    assert loaded.skipped == {"no question text": 1}
    assert [q.kind for q in loaded.questions] == [AnswerKind.SET, AnswerKind.COUNT]
    assert loaded.questions[0].extra["template_id"] == "1"


def test_webqsp_public_format(tmp_path: Path) -> None:
    loaded = load_webqsp(write(tmp_path / "WebQSP.test.json", WEBQSP_SAMPLE))
    assert len(loaded) == 1 and loaded.skipped == {"no parse": 1}
    gold = loaded.questions[0].gold_result()
    assert gold is not None
    assert [t.kind for row in gold.rows for t in row.values()] == ["uri", "literal"]
    assert gold.rows[0]["answer"].value == "http://rdf.freebase.com/ns/m.01428y"


def test_malformed_files_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_spinach_list(tmp_path / "absent.json", "x")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_spinach_list(tmp_path / "bad.json", "x")
    with pytest.raises(ConfigurationError, match="lacks"):
        load_spinach_list(write(tmp_path / "keys.json", [{"id": 1, "question": "q"}]), "x")
    bad_answers = {"questions": [{"id": 1, "question": [{"language": "en", "string": "q"}], "answers": [{"x": 1}]}]}
    with pytest.raises(ConfigurationError, match="not SPARQL JSON"):
        load_qald_json(write(tmp_path / "qald.json", bad_answers), "qald")


@pytest.mark.parametrize(
    ("sparql", "kind"),
    [
        ("PREFIX wd: <http://www.wikidata.org/entity/> ASK { wd:Q1 ?p ?o }", AnswerKind.BOOLEAN),
        ("SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ?x ?p ?o }", AnswerKind.COUNT),
        ("SELECT DISTINCT COUNT(?author) WHERE { ?x ?p ?author }", AnswerKind.COUNT),
        ("SELECT ?x (COUNT(?y) AS ?n) WHERE { ?x ?p ?y } GROUP BY ?x", AnswerKind.SET),
        ("# ASK in a comment\nSELECT ?x WHERE { FILTER EXISTS { ?x ?p ?o } }", AnswerKind.SET),
    ],
)
def test_answer_kind_from_the_gold_query(sparql: str, kind: AnswerKind) -> None:
    assert infer_kind(sparql) is kind


def test_answer_kind_from_answers_when_there_is_no_query() -> None:
    assert infer_kind(None, {"head": {}, "boolean": True}) is AnswerKind.BOOLEAN
    assert infer_kind(None, None) is AnswerKind.UNKNOWN
