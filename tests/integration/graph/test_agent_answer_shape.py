"""The answer-shape rule in the agent's finalize step (issue 25): the returned query projects answer columns only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.answer_shape import ShapedQuery
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.graph import finalize
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import AgentRun, open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call

EX = "PREFIX ex: <http://example.org/space/>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
CREW = EX + "SELECT ?a ?aLabel WHERE { ex:Apollo11 ex:crewMember ?a . ?a rdfs:label ?aLabel }"
OLDEST = (
    EX + "SELECT ?a ?aLabel WHERE { ex:Apollo11 ex:crewMember ?a . ?a rdfs:label ?aLabel ; ex:birthDate ?born } "
    "ORDER BY ?born LIMIT 1"
)
APOLLO = "http://example.org/space/"


@pytest.fixture(scope="module")
def space() -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([example_graph_path()])
    yield toolbox
    toolbox.graph.close()


def _answer(toolbox: SagaToolbox, question: str, sparql: str, **switches: object) -> AgentRun:
    return run_agent(
        toolbox,
        [answer_type("person"), tool_call("execute", sparql=sparql), tool_call("stop")],
        question=question,
        **switches,
    )


def _column(toolbox: SagaToolbox, sparql: str, variable: str) -> set[str]:
    """The values of one column of a query run straight on the graph (no agent involved)."""
    return {row[variable].value for row in toolbox.graph.query(sparql).rows if variable in row}


def test_shaped_final_query_drops_the_label_and_keeps_the_answer_values(space: SagaToolbox) -> None:
    run = _answer(space, "Who flew on Apollo 11?", CREW, answer_shape=True)
    output = run.output
    assert output["status"] == "answered"
    assert "?aLabel" not in output["final_sparql"].split("WHERE")[0]
    assert output["answer"].variables == ("a",)
    values = {row["a"] for row in output["answer"].rows}
    crew = {f"{APOLLO}{name}" for name in ("NeilArmstrong", "BuzzAldrin", "MichaelCollins")}
    assert values == _column(space, CREW, "a") == crew
    # The returned query runs to the same answer column on its own, and the model's query is kept.
    assert _column(space, output["final_sparql"], "a") == values
    assert output["summary"].unshaped_sparql == CREW
    assert output["summary"].dropped_columns == ("aLabel",)


def test_shape_rule_is_off_by_default(space: SagaToolbox) -> None:
    output = _answer(space, "Who flew on Apollo 11?", CREW).output
    assert output["final_sparql"] == CREW
    assert output["answer"].variables == ("a", "aLabel")
    assert output["summary"].unshaped_sparql is None and output["summary"].dropped_columns == ()


def test_a_ranking_question_keeps_order_and_limit(space: SagaToolbox) -> None:
    question = "Which Apollo 11 crew member was born first?"
    output = _answer(space, question, OLDEST, answer_shape=True).output
    final = output["final_sparql"]
    assert "ORDER BY ?born LIMIT 1" in final and "?aLabel" not in final.split("WHERE")[0]
    assert [row["a"] for row in output["answer"].rows] == [row["a"].value for row in space.graph.query(OLDEST).rows]
    assert len(output["answer"].rows) == 1


def test_a_question_asking_for_names_keeps_the_label(space: SagaToolbox) -> None:
    output = _answer(space, "What are the names of the Apollo 11 crew?", CREW, answer_shape=True).output
    assert output["final_sparql"] == CREW
    assert output["summary"].unshaped_sparql is None


def test_an_ask_query_is_returned_as_is(space: SagaToolbox) -> None:
    ask = EX + "ASK { ex:Apollo11 ex:crewMember ex:NeilArmstrong }"
    output = _answer(space, "Did Neil Armstrong fly on Apollo 11?", ask, answer_shape=True).output
    assert output["final_sparql"] == ask and output["answer"].boolean is True


def test_a_shaped_query_that_fails_falls_back_to_the_models_query(
    space: SagaToolbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str, question: str | None = None, **_kwargs: object) -> ShapedQuery:
        return ShapedQuery(scored="SELECT ?a WHERE { ?a", display=text, dropped=("aLabel",))

    monkeypatch.setattr(finalize, "shape_query", broken)
    output = _answer(space, "Who flew on Apollo 11?", CREW, answer_shape=True).output
    assert output["status"] == "answered"
    assert output["final_sparql"] == CREW and output["answer"].variables == ("a", "aLabel")
    assert output["summary"].unshaped_sparql is None


@pytest.mark.shared_data
def test_shaped_query_on_ck25_returns_the_same_answer_column(data_dir: Path) -> None:
    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    try:
        hoch = "<http://ld.company.org/prod-instances/empl-Heinrich.Hoch%40company.org>"
        sparql = (
            "PREFIX pv: <http://ld.company.org/prod-vocab/>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
            f"SELECT ?m ?mLabel WHERE {{ {hoch} pv:hasManager ?m . ?m rdfs:label ?mLabel }}"
        )
        output = _answer(toolbox, "Who is the manager of Heinrich Hoch?", sparql, answer_shape=True).output
        assert output["answer"].variables == ("m",)
        manager = "http://ld.company.org/prod-instances/empl-Waldtraud.Kuttner%40company.org"
        assert {row["m"] for row in output["answer"].rows} == _column(toolbox, sparql, "m") == {manager}
        assert _column(toolbox, output["final_sparql"], "m") == {manager}
        assert output["summary"].dropped_columns == ("mLabel",)
    finally:
        toolbox.graph.close()


def test_an_ask_for_a_question_that_asks_for_values_meets_the_question_form_check(space: SagaToolbox) -> None:
    ask = EX + "ASK { ex:Apollo11 ex:crewMember ?a }"
    script = [answer_type("person"), tool_call("execute", sparql=ask), tool_call("stop"), tool_call("stop")]
    run = run_agent(space, script, question="Who flew on Apollo 11?")
    assert "the query is an ASK: a SELECT answers it" in run.model.prompt_text(3)
    assert run.output["final_sparql"] == ask  # told, never rewritten; the second stop stands


@pytest.mark.parametrize(
    ("question", "flagged"),
    [
        ("Who flew on Apollo 11?", True),
        ("¿Quién voló en el Apolo 11?", True),
        ("Welche Astronauten flogen mit Apollo 11?", True),
        ("Did Neil Armstrong fly on Apollo 11?", False),
        ("Was Neil Armstrong on Apollo 11?", False),
        ("Ist Neil Armstrong mit Apollo 11 geflogen?", False),
        ("¿Voló Neil Armstrong en el Apolo 11?", False),
    ],
)
def test_ask_is_for_yes_no_questions_only(question: str, flagged: bool) -> None:
    from saga_kgqa.checks.models import CheckInput
    from saga_kgqa.checks.question_form import check_question_form

    findings = check_question_form(CheckInput(question=question, sparql="ASK { ?s ?p ?o }", boolean=True))
    assert any("the query is an ASK" in f.message for f in findings) is flagged


@pytest.mark.shared_data
def test_every_grasp_ck25_query_the_rule_shapes_keeps_its_answer_columns_values(data_dir: Path) -> None:
    """GRASP's two CK25 runs: each shaped final query runs and returns the same values in every kept column."""
    import gzip
    import json

    from saga_kgqa.answer_shape import shape_query
    from saga_kgqa.graph.finalize import without_exploratory_limit

    toolbox = open_toolbox([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    changed = 0
    try:
        for run in ("search_extended", "search_extended_with_feedback"):
            path = data_dir / "grasp_ck25" / f"gpt-41-mini.{run}.jsonl.gz"
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                records = [json.loads(line) for line in handle]
            for record in records:
                if not record.get("sparql"):
                    continue
                final = without_exploratory_limit(record["sparql"])
                shaped = shape_query(final, (record.get("questions") or [None])[0])
                if not shaped.dropped:
                    continue
                changed += 1
                original = toolbox.graph.query(final)
                scored = toolbox.graph.query(shaped.scored)
                assert set(scored.variables) == set(original.variables) - set(shaped.dropped), record["id"]
                for variable in scored.variables:
                    kept = {row[variable].value for row in scored.rows if variable in row}
                    assert kept == {row[variable].value for row in original.rows if variable in row}, record["id"]
    finally:
        toolbox.graph.close()
    assert changed >= 10  # the bench records 12 and 11 changed questions


@pytest.mark.shared_data
def test_saga_eval_run_answer_shape_records_the_scored_query(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from typer.testing import CliRunner

    from saga_kgqa.cli import app
    from saga_kgqa.runs.batch import config_path, read_run
    from tests.support import studio_models

    labelled = (
        "PREFIX pv: <http://ld.company.org/prod-vocab/>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
        "SELECT ?d ?name WHERE { ?d a pv:Department ; rdfs:label ?name }"
    )
    stop = {"tool": "stop"}
    script = ['{"answer_type_label": "thing"}', {"tool": "execute", "args": {"sparql": labelled}}, stop, stop]
    script_file = tmp_path / "script.json"
    script_file.write_text(json.dumps(script), encoding="utf-8")
    monkeypatch.setattr(studio_models, "_model", None)
    monkeypatch.setenv("SAGA_MODEL_FACTORY", "tests.support.studio_models:scripted_factory")
    monkeypatch.setenv(studio_models.SCRIPT_ENV, str(script_file))
    out = tmp_path / "shaped.jsonl"
    graph = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    args = ["eval", "run", "ck25", "--answerer", "agent", "--limit", "1", "--answer-shape", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--data", graph, "--data-dir", str(data_dir), "--max-steps", "5"])
    assert result.exit_code == 0, result.output
    (record,) = read_run(out).values()
    assert record.predicted_sparql is not None
    assert "?name" not in record.predicted_sparql.split("WHERE")[0] and "?d" in record.predicted_sparql
    assert json.loads(config_path(out).read_text(encoding="utf-8"))["context"]["answer_shape"] is True


def test_the_sources_own_label_property_is_dropped_too(tmp_path: Path) -> None:
    # A private graph that names things with ex:displayName, declared in the source's vocabulary:
    # the common label properties do not know it, so before, the name column stayed in the scored query.
    from saga_kgqa.kg.embedded.store import EmbeddedStore
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
    from saga_kgqa.schema import build_schema_index
    from saga_kgqa.schema.vocab import SchemaVocabulary

    data = tmp_path / "staff.ttl"
    data.write_text(
        "@prefix ex: <http://example.org/staff/> .\n"
        'ex:ann ex:memberOf ex:sales . ex:sales ex:displayName "Sales" .\n'
        'ex:bob ex:memberOf ex:legal . ex:legal ex:displayName "Legal" .\n'
    )
    store = EmbeddedStore.from_files([data])
    vocabulary = SchemaVocabulary(label_predicates=("http://example.org/staff/displayName",))
    toolbox = SagaToolbox(KnowledgeGraph(store), build_schema_index(store, induce=True), vocabulary=vocabulary)
    query = (
        "PREFIX ex: <http://example.org/staff/>\n"
        "SELECT ?dept ?name WHERE { ex:ann ex:memberOf ?dept . ?dept ex:displayName ?name }"
    )
    try:
        output = _answer(toolbox, "In which department is Ann?", query, answer_shape=True).output
    finally:
        toolbox.graph.close()
    assert output["answer"].variables == ("dept",)
    assert output["summary"].dropped_columns == ("name",)
    assert [row["dept"] for row in output["answer"].rows] == ["http://example.org/staff/sales"]
