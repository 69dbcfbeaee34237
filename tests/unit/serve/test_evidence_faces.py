"""The evidence line as ``saga ask`` and MCP ``kg_ask`` print it: the shared line, each face's tail and note."""

from __future__ import annotations

from typing import Any

from saga_kgqa.cli.ask.view import evidence_summary
from saga_kgqa.serve.mcp.ask import evidence_text
from saga_kgqa.state.evidence import Evidence, EvidenceTerm, RowEvidence, StatementEvidence


def _evidence(note: str = "") -> dict[str, Any]:
    value = EvidenceTerm(value="http://www.wikidata.org/entity/Q1", kind="uri")
    statement = StatementEvidence(
        statement="http://s/1", subject="http://e/1", property="http://p/1", value=value, deprecated=True
    )
    rows = (RowEvidence(row=0), RowEvidence(row=2, statements=(statement,)))
    return Evidence(sparql="SELECT", rows=rows, rows_checked=3, rows_supported=2, note=note).model_dump(mode="json")


def test_each_face_adds_where_the_triples_are_and_prepares_the_note() -> None:
    note = "partial: " + "x" * 300
    base = "evidence: supporting triples for 2 of the first 3 answer rows; DEPRECATED statement behind row(s) 2"
    assert evidence_summary(_evidence(note)) == f"{base} ({note}); the triples are under evidence in --json"
    mcp = evidence_text(_evidence(note))
    assert mcp.startswith(f"{base} (partial: x")
    assert mcp.endswith("); the supporting triples are in the structured content (evidence)")
    assert len(mcp) < len(base) + 300  # the note is capped on the MCP face
    assert evidence_summary(None) == ""
