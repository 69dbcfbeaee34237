"""Evidence per answer row in the agent's output: supporting triples, and Wikidata statements' rank,
qualifiers and references (a deprecated one flagged), on a Wikidata-shaped graph with full statements."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.state.evidence import Evidence
from saga_kgqa.tools.toolbox import SagaToolbox
from tests.support.agent import open_toolbox, run_agent
from tests.support.scripted_model import answer_type, tool_call
from tests.support.wikidata_shaped import WD, write_wikidata_statements

PREFIXES = (
    "PREFIX wd: <http://www.wikidata.org/entity/> PREFIX wdt: <http://www.wikidata.org/prop/direct/> "
    "PREFIX p: <http://www.wikidata.org/prop/> PREFIX ps: <http://www.wikidata.org/prop/statement/> "
    "PREFIX pq: <http://www.wikidata.org/prop/qualifier/> "
)


@pytest.fixture(scope="module")
def statements(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SagaToolbox]:
    toolbox = open_toolbox([write_wikidata_statements(Path(tmp_path_factory.mktemp("statements")))])
    yield toolbox
    toolbox.graph.close()


def _evidence(toolbox: SagaToolbox, sparql: str, **switches: object) -> tuple[dict[str, object], Evidence]:
    run = run_agent(
        toolbox,
        [answer_type("country"), tool_call("execute", sparql=sparql), tool_call("stop"), tool_call("stop")],
        question="Which countries was Ann Example a citizen of?",
        **switches,
    )
    evidence = run.output["evidence"]
    assert isinstance(evidence, Evidence)
    return run.output, evidence


def test_a_statement_answer_shows_rank_qualifiers_and_references_and_flags_the_deprecated_one(
    statements: SagaToolbox,
) -> None:
    output, evidence = _evidence(
        statements, PREFIXES + "SELECT ?country WHERE { wd:Q1 p:P27 ?st . ?st ps:P27 ?country }"
    )
    answer = output["answer"]
    assert evidence.rows_checked == 2 and evidence.rows_supported == 2 and evidence.coverage == 1.0
    by_country = {answer.rows[row.row]["country"]: row for row in evidence.rows}
    freedonia, sylvania = by_country[WD + "Q10"], by_country[WD + "Q11"]
    # The triples are the query's two patterns with the row's bindings and the statement node found.
    assert [t.pattern for t in freedonia.triples] == [0, 1]
    assert freedonia.triples[1].object.label == "Freedonia" and freedonia.triples[0].subject.label == "Ann Example"
    (kept,) = freedonia.statements
    assert kept.rank == "normal" and not kept.deprecated and not freedonia.deprecated
    assert [(q.property.label, q.value.value) for q in kept.qualifiers] == [("start time", "2001-01-01T00:00:00Z")]
    (reference,) = kept.references
    assert ("reference URL", "https://registry.example/ann") in [
        (v.property.label, v.value.value) for v in reference.values
    ]
    (former,) = sylvania.statements
    assert former.rank == "deprecated" and former.deprecated and sylvania.deprecated
    assert [(q.property.label, q.value.value) for q in former.qualifiers] == [("end time", "2000-12-31T00:00:00Z")]


def test_a_truthy_answer_shows_the_statement_behind_it(statements: SagaToolbox) -> None:
    _output, evidence = _evidence(statements, PREFIXES + "SELECT ?country WHERE { wd:Q1 wdt:P27 ?country }")
    (row,) = evidence.rows
    (triple,) = row.triples
    assert (triple.subject.value, triple.object.value) == (WD + "Q1", WD + "Q10")
    assert triple.predicate.label == "country of citizenship"
    (statement,) = row.statements
    assert statement.rank == "normal" and statement.qualifiers and statement.references


def test_literal_rows_are_supported_and_evidence_can_be_switched_off(statements: SagaToolbox) -> None:
    sparql = (
        PREFIXES + "SELECT ?name WHERE { wd:Q1 wdt:P27 ?c . ?c <http://www.w3.org/2000/01/rdf-schema#label> ?name }"
    )
    _output, evidence = _evidence(statements, sparql)
    (row,) = evidence.rows
    assert [t.object.value for t in row.triples] == [WD + "Q10", "Freedonia"]
    run = run_agent(
        statements,
        [answer_type("country"), tool_call("execute", sparql=sparql), tool_call("stop"), tool_call("stop")],
        question="What is the name of Ann Example's country?",
        evidence_rows=0,
    )
    assert run.output["answer"].rows and run.output["evidence"] is None
