"""Benchmark loaders on small stand-in files laid out as in the shared data directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.datasets import SPIDER_NAMESPACE, discover_graphs, load_ck25, spider_graph_file
from saga_kgqa.errors import ConfigurationError

CK25_YAML = """
questions:
  - id: 1
    question: {en: "In which department is Ms. Brant?"}
    query:
      sparql: |
        SELECT ?d WHERE { ?e ?p ?d }
  - id: 2
    question: {en: "What is her phone?"}
    query: {sparql: "SELECT ?x WHERE { ?x ?y ?z }"}
"""


def _spider(root: Path, items: list[dict[str, str]], kg_files: list[str], owl: list[str]) -> None:
    base = root / "spider4sparql"
    (base / "kg").mkdir(parents=True)
    (base / "ontology").mkdir()
    (base / "dev.json").write_text(json.dumps(items))
    for name in kg_files:
        (base / "kg" / name).write_text("")
    for name in owl:
        (base / "ontology" / name).write_text("")


def _item(kg: str, n: int) -> dict[str, str]:
    return {"kg_name": kg, "question": f"q{n}", "query": "select ?x where { ?x a :t }"}


def test_ck25_questions_are_read_with_ids(tmp_path: Path) -> None:
    (tmp_path / "text2sparql_ck25").mkdir()
    (tmp_path / "text2sparql_ck25" / "questions.yml").write_text(CK25_YAML)
    (tmp_path / "text2sparql_ck25" / "prod-inst.ttl").write_text("")
    graph = load_ck25(tmp_path)
    assert graph is not None
    assert [q.qid for q in graph.questions] == ["ck25:1", "ck25:2"]
    assert graph.questions[0].question == "In which department is Ms. Brant?"


def test_ck25_without_its_graph_is_absent(tmp_path: Path) -> None:
    (tmp_path / "text2sparql_ck25").mkdir()
    (tmp_path / "text2sparql_ck25" / "questions.yml").write_text(CK25_YAML)
    assert load_ck25(tmp_path) is None


def test_spider_file_names_match_any_casing_and_either_suffix(tmp_path: Path) -> None:
    kg = tmp_path / "kg"
    kg.mkdir()
    (kg / "cre_doc_template_mgt_triples.ttl").write_text("")
    (kg / "voter_1.ttl").write_text("")
    assert spider_graph_file(kg, "cre_Doc_Template_Mgt") == kg / "cre_doc_template_mgt_triples.ttl"
    assert spider_graph_file(kg, "voter_1") == kg / "voter_1.ttl"
    assert spider_graph_file(kg, "wta_1") is None


def test_spider_questions_get_the_default_prefix_and_absent_graphs_are_counted(tmp_path: Path) -> None:
    items = [_item("voter_1", 1), _item("wta_1", 2), _item("wta_1", 3), _item("Pets_1", 4)]
    _spider(tmp_path, items, ["voter_1.ttl", "pets_1_triples.ttl"], ["mpboot_spider_voter_1.owl"])
    catalog = discover_graphs(tmp_path)
    names = {g.name: g for g in catalog.graphs}
    assert set(names) == {"spider/voter_1", "spider/Pets_1"}
    assert catalog.absent_graphs == {"ck25": 0, "spider/wta_1": 2}
    assert catalog.skipped_questions == 2
    voter = names["spider/voter_1"]
    assert [f.name for f in voter.files] == ["voter_1.ttl", "mpboot_spider_voter_1.owl"]
    assert [f.name for f in names["spider/Pets_1"].files] == ["pets_1_triples.ttl"]
    assert voter.questions[0].sparql.startswith(f"PREFIX : <{SPIDER_NAMESPACE}>")
    assert voter.questions[0].sparql.endswith("select ?x where { ?x a :t }")


def test_a_malformed_dev_file_is_a_configuration_error(tmp_path: Path) -> None:
    _spider(tmp_path, [], [], [])
    (tmp_path / "spider4sparql" / "dev.json").write_text('{"not": "a list"}')
    with pytest.raises(ConfigurationError, match=r"dev\.json"):
        discover_graphs(tmp_path)


def test_a_ck25_question_without_a_query_is_a_configuration_error(tmp_path: Path) -> None:
    (tmp_path / "text2sparql_ck25").mkdir()
    (tmp_path / "text2sparql_ck25" / "questions.yml").write_text("questions:\n  - id: 1\n    question: {en: x}\n")
    (tmp_path / "text2sparql_ck25" / "prod-inst.ttl").write_text("")
    with pytest.raises(ConfigurationError, match=r"query\.sparql"):
        load_ck25(tmp_path)


def test_an_empty_data_directory_has_no_graphs(tmp_path: Path) -> None:
    catalog = discover_graphs(tmp_path)
    assert catalog.graphs == ()
    assert catalog.absent_graphs == {"ck25": 0}
