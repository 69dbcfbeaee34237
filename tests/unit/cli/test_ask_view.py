"""The live view's lines per node update, the trajectory file, and how a thread records its graph."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from saga_kgqa.app.run import graph_identity
from saga_kgqa.cli.ask.view import StepView, describe_update, print_outcome
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.runs.trajectory import TrajectoryWriter, jsonable, read_trajectory
from saga_kgqa.state import Action, Answer, AnswerType, Step


def test_controller_line_names_the_tool_and_clips_long_arguments() -> None:
    action = Action(tool="execute", argument="SELECT " + "?x " * 100, call_id="c1", thought="try it")
    lines = describe_update("controller", {"pending_action": action, "steps": 1})
    assert lines[0].startswith("execute(SELECT ?x") and lines[0].endswith("…)")
    assert lines[1] == "  thought: try it"


def test_budget_end_and_refusal_and_answer_type_lines() -> None:
    assert describe_update("controller", {"pending_action": None, "stop_reason": "max_steps"}) == [
        "controller: max_steps → finalize"
    ]
    refused = Step(step=3, tool="search", argument="x", observation="\nRefused: you already ran it.", outcome="refused")
    assert describe_update("refuse_action", {"history": [refused]}) == ["  → refused: Refused: you already ran it."]
    prior = AnswerType(label="person", type_id="ex:Person")
    assert describe_update("predict_answer_type", {"answer_type": prior}) == ["answer type: person (ex:Person)"]
    assert describe_update("predict_answer_type", {}) == ["answer type: none (prior off or not understood)"]
    assert describe_update("prune_fallback", {"prune_request": None}) == ["  → neighbourhood pruned by the model"]


def test_step_view_numbers_controller_steps() -> None:
    sink = io.StringIO()
    console = Console(file=sink, force_terminal=False, width=200)
    with StepView(console) as view:
        for number in (1, 2):
            action = Action(tool="search", argument=f"q{number}", call_id=f"c{number}")
            view.update("controller", {"pending_action": action})
    assert "step 1: search(q1)" in sink.getvalue()
    assert "step 2: search(q2)" in sink.getvalue()


def test_outcome_prints_query_rows_and_ask_answers() -> None:
    sink = io.StringIO()
    console = Console(file=sink, force_terminal=False, width=200)
    rows = Answer(variables=("m",), rows=({"m": "http://e/Apollo13"},), row_count=1)
    print_outcome(console, {"final_sparql": "SELECT ?m {}", "answer": rows, "status": "answered"})
    print_outcome(console, {"final_sparql": "ASK {}", "answer": Answer(boolean=False), "status": "answered"})
    text = sink.getvalue()
    assert "SELECT ?m {}" in text and "http://e/Apollo13" in text
    assert "\nfalse\n" in text


def test_outcome_says_when_the_answer_shape_rule_dropped_columns() -> None:
    from saga_kgqa.state import TraceSummary

    sink = io.StringIO()
    console = Console(file=sink, force_terminal=False, width=200)
    rows = Answer(variables=("m",), rows=({"m": "http://e/Apollo13"},), row_count=1)
    plain = {"final_sparql": "SELECT ?m {}", "answer": rows, "status": "answered", "summary": TraceSummary()}
    print_outcome(console, plain)
    assert "answer shape" not in sink.getvalue()
    shaped = TraceSummary(unshaped_sparql="SELECT ?m ?mLabel {}", dropped_columns=("mLabel",))
    print_outcome(console, plain | {"summary": shaped})
    assert "answer shape: dropped mLabel" in sink.getvalue() and "unshaped_sparql" in sink.getvalue()


def test_jsonable_handles_records_sets_and_unknown_objects() -> None:
    value = {"a": frozenset({"y", "x"}), "b": (AnswerType(label="l"),), "c": object()}
    converted = jsonable(value)
    assert converted["a"] == ["x", "y"]
    assert converted["b"][0]["label"] == "l"
    assert converted["c"].startswith("<object object")


def test_trajectory_appends_across_runs(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    for run in range(2):
        with TrajectoryWriter(path) as writer:
            writer.start(question="q", run=run)
            writer.update("search", {"history": []}, namespace=("saga:1",))
            writer.end(status="answered")
    events = read_trajectory(path)
    assert [e["event"] for e in events] == ["start", "update", "end"] * 2
    assert events[1]["namespace"] == ["saga:1"]
    assert [e["seq"] for e in events[:3]] == [1, 2, 3]


def test_graph_identity_names_endpoint_data_and_profile(tmp_path: Path) -> None:
    assert graph_identity(None, "http://h/sparql", "wikidata") == "http://h/sparql (profile wikidata)"
    # The same graph under another dialect is another identity, so a resume notices the change.
    assert graph_identity(None, "http://h/sparql", "wikidata", "wikidata") == (
        "http://h/sparql (profile wikidata, dialect wikidata)"
    )
    assert graph_identity([Path("a.ttl")], None, None, "freebase") == f"{Path('a.ttl').resolve()} (dialect freebase)"
    assert graph_identity(None, None) == str(example_graph_path().resolve())
    assert graph_identity([Path("a.ttl")], None) == str(Path("a.ttl").resolve())


def test_mars_lines_and_thread_identity() -> None:
    from saga_kgqa.state.mars import PatternEntry

    entry = PatternEntry(index=1, hop=0, text="t", entity="e", prop="p", direction="out")
    assert describe_update("retrieve", {"patterns": [entry, entry]}) == ["patterns: 2 shown"]
    assert describe_update("reason", {"candidate_sparql": "SELECT ?x WHERE { ?x ?p ?o }"}) == [
        "sparql(SELECT ?x WHERE { ?x ?p ?o })"
    ]
    # A MARS thread is another graph's state: resuming it under SAGA must be refused.
    assert graph_identity(None, "http://e/sparql", method="mars") == "http://e/sparql (method mars)"
    assert graph_identity(None, "http://e/sparql") == "http://e/sparql"
