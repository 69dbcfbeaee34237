"""The one line on an answer's evidence that every face prints."""

from __future__ import annotations

from typing import Any

from saga_kgqa.state.evidence import Evidence, EvidenceTerm, RowEvidence, StatementEvidence, evidence_line


def _evidence(note: str = "") -> dict[str, Any]:
    value = EvidenceTerm(value="http://www.wikidata.org/entity/Q1", kind="uri")
    statement = StatementEvidence(
        statement="http://s/1", subject="http://e/1", property="http://p/1", value=value, deprecated=True
    )
    rows = (RowEvidence(row=0), RowEvidence(row=2, statements=(statement,)))
    return Evidence(sparql="SELECT", rows=rows, rows_checked=3, rows_supported=2, note=note).model_dump(mode="json")


def test_the_line_counts_rows_and_names_the_deprecated_ones() -> None:
    assert evidence_line(_evidence()) == (
        "evidence: supporting triples for 2 of the first 3 answer rows; DEPRECATED statement behind row(s) 2"
    )
