"""The evidence line as ``saga ask`` and MCP ``kg_ask`` print it: the shared line, each face's tail and note."""

from __future__ import annotations

from saga_kgqa.cli.ask.view import evidence_summary
from saga_kgqa.serve.mcp.ask import evidence_text
from tests.support.evidence_samples import sample_evidence


def test_each_face_adds_where_the_triples_are_and_prepares_the_note() -> None:
    note = "partial: " + "x" * 300
    base = "evidence: supporting triples for 2 of the first 3 answer rows; DEPRECATED statement behind row(s) 2"
    assert evidence_summary(sample_evidence(note)) == f"{base} ({note}); the triples are under evidence in --json"
    mcp = evidence_text(sample_evidence(note))
    assert mcp.startswith(f"{base} (partial: x")
    assert mcp.endswith("); the supporting triples are in the structured content (evidence)")
    assert len(mcp) < len(base) + 300  # the note is capped on the MCP face
    assert evidence_summary(None) == ""
