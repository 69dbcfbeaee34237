"""``saga sparql`` prints IRIs with the query's own prefixes and labels, and says why a result is empty (issue 43)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from saga_kgqa.cli import app

SPACE = "PREFIX ex: <http://example.org/space/>\n"


def sparql(*args: str) -> tuple[int, str]:
    outcome = CliRunner().invoke(app, ["sparql", *args])
    return outcome.exit_code, outcome.output


def test_iris_print_with_the_query_s_own_prefixes() -> None:
    code, output = sparql(SPACE + 'SELECT ?mission WHERE { ?mission ex:crewMember/ex:name "Jim Lovell" }')
    assert code == 0, output
    assert "ex:Apollo13" in output and "http://example.org/space/Apollo13" not in output
    # Another prefix name for the same namespace is the query's own choice, and kept.
    query = 'PREFIX s: <http://example.org/space/> SELECT ?m WHERE { ?m s:crewMember/s:name "Jim Lovell" }'
    code, output = sparql(query)
    assert "s:Apollo13" in output and "ex:Apollo13" not in output


def test_a_label_that_says_more_than_the_id_is_shown(tmp_path: Path) -> None:
    graph = tmp_path / "g.ttl"
    graph.write_text(
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        '<http://x.org/e1> rdfs:label "Earth"@en, "Erde"@de ; <http://x.org/p> 1 .\n'
        "<http://x.org/e2> <http://x.org/p> 2 .\n",
        encoding="utf-8",
    )
    code, output = sparql("--data", str(graph), "PREFIX x: <http://x.org/> SELECT ?s WHERE { ?s x:p ?v } ORDER BY ?v")
    assert code == 0, output
    assert '"Earth" (x:e1)' in output and "Erde" not in output
    assert "x:e2" in output


def test_an_empty_result_says_which_part_matches_nothing() -> None:
    code, output = sparql(SPACE + "SELECT ?m WHERE { ?m a ex:Mission }")
    assert code == 0, output
    assert "0 row(s)" in output
    assert "why it is empty" in output and "ex:Mission" in output and "matches nothing" in output
    code, output = sparql(SPACE + 'SELECT ?m WHERE { ?m a ex:CrewedMission ; ex:name "Apollo 99" }')
    assert "why it is empty" in output and "Apollo 99" in output
