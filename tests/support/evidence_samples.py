"""A small answer evidence for the tests of the evidence line and of each face's rendering of it."""

from __future__ import annotations

from typing import Any

from saga_kgqa.state.evidence import Evidence, EvidenceTerm, RowEvidence, StatementEvidence


def sample_evidence(note: str = "") -> dict[str, Any]:
    """Three rows checked, two supported, one by a deprecated statement; as the run's state holds it (JSON)."""
    value = EvidenceTerm(value="http://www.wikidata.org/entity/Q1", kind="uri")
    statement = StatementEvidence(
        statement="http://s/1", subject="http://e/1", property="http://p/1", value=value, deprecated=True
    )
    rows = (RowEvidence(row=0), RowEvidence(row=2, statements=(statement,)))
    return Evidence(sparql="SELECT", rows=rows, rows_checked=3, rows_supported=2, note=note).model_dump(mode="json")
