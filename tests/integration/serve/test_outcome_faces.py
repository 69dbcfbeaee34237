"""Every face reports the run's outcome unchanged, the last query as the final one, and one count (issue 37).

Scripted runs on the CK25 graph through each face as its users reach it (tests/support/outcome_faces.py):
a run that executes a non-empty query and then an empty one ends ``empty`` with the empty query as the
final one and no earlier row listed; a 47-row answer says 47 in every face's text. The whole fault
matrix is ``bench/outcomes.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.outcome_faces import DRIVERS, Case, Matrix, count_cases, fault_cases, judge, matrix, says_count

pytestmark = pytest.mark.shared_data

CASES: list[Case] = [
    *[case for case in fault_cases(("unused", "urn:unused")) if case.fault == "final_empty_after_rows"],
    *count_cases(),
]


@pytest.fixture(scope="module")
def setting(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Matrix]:
    data = (data_dir / "text2sparql_ck25" / "prod-inst.ttl").resolve()
    with matrix(tmp_path_factory.mktemp("faces"), data, CASES) as running:
        yield running


@pytest.mark.parametrize(
    "face",
    ["cli", "mcp", "text2sparql", "web", pytest.param("langgraph", marks=pytest.mark.slow)],
)
def test_each_face_reports_the_last_query_and_one_count(setting: Matrix, face: str) -> None:
    reports = DRIVERS[face](setting, CASES)
    for case in CASES:
        ok, why = judge(case, reports.get(case.fault))
        assert ok, f"{face} {case.fault}: {why}"
        assert says_count(face, case, reports.get(case.fault)) is not False, reports[case.fault].text[-600:]
    empty = reports["final_empty_after_rows"]
    assert empty.query is not None and "Nobody Here At All" in empty.query
