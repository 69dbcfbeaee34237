"""The one line on an answer's evidence that every face prints."""

from __future__ import annotations

from saga_kgqa.state.evidence import evidence_line
from tests.support.evidence_samples import sample_evidence


def test_the_line_counts_rows_and_names_the_deprecated_ones() -> None:
    assert evidence_line(sample_evidence()) == (
        "evidence: supporting triples for 2 of the first 3 answer rows; DEPRECATED statement behind row(s) 2"
    )
