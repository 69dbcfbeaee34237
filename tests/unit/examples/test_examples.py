"""Example harvesting, checking, retrieval, the leakage guard and the prompt switch (issue 25)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.examples.check import check_examples
from saga_kgqa.examples.coverage import covered, signature
from saga_kgqa.examples.harvest import from_benchmark, harvest_files, harvest_graph
from saga_kgqa.examples.index import ExampleIndex
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample, write_examples
from saga_kgqa.examples.normalise import normalise_query, normalise_question
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.conftest import TEST_DATA
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

PUBLISHED = TEST_DATA / "published_examples.ttl"


@pytest.fixture(scope="module")
def mini() -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([TEST_DATA / "mini.ttl"])
    yield toolbox
    toolbox.graph.close()


def test_harvest_reads_shacl_spex_and_shui_examples() -> None:
    found = {e.question: e for e in harvest_files([PUBLISHED])}
    assert set(found) == {
        "Which departments are there?",
        "Is there a manager?",
        "Who are the employees?",
        "List the departments.",
        "Delete everything",
    }
    assert found["Which departments are there?"].source == "graph:shacl"
    assert found["Which departments are there?"].language == "en"  # the English comment, not the German one
    assert found["Is there a manager?"].source == "graph:spex"
    assert found["Is there a manager?"].sparql.startswith("PREFIX v:") and "ASK" in found["Is there a manager?"].sparql
    assert found["Who are the employees?"].source == "graph:shui"


def test_harvest_reads_the_examples_a_graph_holds_about_itself() -> None:
    with KnowledgeGraph(open_backend(data=[PUBLISHED])) as graph:
        found = {e.question for e in harvest_graph(graph)}
    assert {"Which departments are there?", "Is there a manager?", "Who are the employees?"} <= found


def test_check_keeps_guarded_answering_examples_with_their_count_and_drops_the_rest() -> None:
    examples = harvest_files([PUBLISHED])
    with KnowledgeGraph(open_backend(data=[TEST_DATA / "mini.ttl"])) as graph:
        report = check_examples(examples, graph)
    kept = {e.question: e for e in report.kept}
    dropped = dict((e.question, why) for e, why in report.dropped)
    assert "rejected by the guard" in dropped["Delete everything"]
    assert kept["Which departments are there?"].result_count is not None
    assert kept["Which departments are there?"].result_count >= 2
    assert kept["Is there a manager?"].result_count == 1 and kept["Is there a manager?"].checked_on


def test_queries_equal_up_to_layout_prefix_names_and_variables_normalise_alike() -> None:
    a = "PREFIX v: <http://x/> SELECT ?d WHERE { ?d a v:D } # note"
    b = "prefix w: <http://x/>\nselect ?x where {\n  ?x a w:D\n}"
    assert normalise_query(a) == normalise_query(b)
    assert normalise_query(a) != normalise_query(a.replace("v:D", "v:E"))
    assert normalise_question("  Who are the Employees?!") == normalise_question("who are the employees")


def test_examples_for_deduplicates_by_query_and_never_returns_the_question_itself() -> None:
    index = ExampleIndex(harvest_files([PUBLISHED]), ranking="bm25")
    top = index.examples_for("Which departments are there?", 5)
    questions = [e.question for e in top]
    assert "Which departments are there?" not in questions
    assert questions[0] == "List the departments."
    assert len({normalise_query(e.sparql) for e in top}) == len(top)
    assert index.examples_for("anything", 0) == []
    # random is seeded by the question: reproducible
    randomised = ExampleIndex(harvest_files([PUBLISHED]), ranking="random")
    assert randomised.examples_for("q", 3) == randomised.examples_for("q", 3)


def test_embedding_ranking_finds_the_paraphrase() -> None:
    from saga_kgqa.tools.patterns.embeddings import build_embeddings

    index = ExampleIndex(harvest_files([PUBLISHED]), ranking="embedding", embeddings=build_embeddings("minilm"))
    assert index.examples_for("Show me every staff member", 1)[0].question == "Who are the employees?"


def test_leakage_guard_refuses_by_question_or_by_normalised_query() -> None:
    benchmark = [
        BenchmarkQuestion(
            id="b:1",
            benchmark="b",
            question="Who are the employees?",
            gold_sparql="PREFIX e: <http://example.org/mini/vocab#> SELECT ?who WHERE { ?who a e:Department }",
        )
    ]
    report = LeakageGuard(benchmark).screen(harvest_files([PUBLISHED]))
    refused = {e.question: why for e, why in report.refused}
    assert refused["Who are the employees?"] == "its question is benchmark question b:1"
    assert "gold query" in refused["Which departments are there?"] and "gold query" in refused["List the departments."]
    assert {e.question for e in report.kept} == {"Is there a manager?", "Delete everything"}


def test_train_split_examples_carry_their_origin() -> None:
    questions = [
        BenchmarkQuestion(id="t:1", benchmark="t", question="Q?", gold_sparql="ASK {}", language="de"),
        BenchmarkQuestion(id="t:2", benchmark="t", question="No query"),
    ]
    assert [(e.source, e.origin, e.language) for e in from_benchmark(questions, "t-train")] == [
        ("train:t-train", "t:1", "de")
    ]


def test_coverage_reads_properties_classes_and_features() -> None:
    gold = signature(
        "PREFIX v: <http://x/> SELECT (COUNT(?p) AS ?n) WHERE { ?p a v:Person ; v:knows/v:likes ?q } ORDER BY ?n"
    )
    assert gold.properties == {"http://www.w3.org/1999/02/22-rdf-syntax-ns#type", "http://x/knows", "http://x/likes"}
    assert gold.classes == {"http://x/Person"} and gold.features == {"COUNT", "ORDER BY"}
    shown = signature("PREFIX v: <http://x/> SELECT ?q WHERE { ?p v:knows ?q }")
    assert covered(gold.properties, [shown.properties]) == pytest.approx(1 / 3)
    assert covered(frozenset(), [shown.properties]) is None


def test_worked_examples_reach_the_controller_prompt_only_when_switched_on(mini: SagaToolbox, tmp_path: Path) -> None:
    path = tmp_path / "examples.jsonl"
    write_examples(
        [
            QueryExample(
                question="Who are the employees?", sparql="SELECT ?e WHERE { ?e a <http://e/Emp> }", source="t"
            ),
            QueryExample(question="Which products exist?", sparql="SELECT ?p WHERE { ?p a <http://e/P> }", source="t"),
        ],
        path,
    )
    script = [answer_type("person"), tool_call("stop")]
    off = run_agent(mini, script, question="Who are the staff members?")
    assert "Worked examples" not in off.model.prompt_text(1)
    on = run_agent(mini, script, question="Who are the staff members?", examples_file=str(path), examples_k=1)
    prompt = on.model.prompt_text(1)
    assert "## Worked examples for this graph" in prompt
    assert "Example 1. Question: Who are the employees?" in prompt and "Which products exist?" not in prompt
