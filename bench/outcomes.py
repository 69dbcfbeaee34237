"""Does every face report a run's outcome as it is? A fault matrix: scripted runs x faults x faces (issue 37).

Each fault is one scripted run on the CK25 graph of the shared data (the final step empty after a
non-empty one; an endpoint timeout; an endpoint 5xx; a malformed tool call; a model that refuses;
a result cut by the row cap; a guard refusal; an ambiguous entity; the step budget exhausted),
asked through every face as its users ask it: ``saga ask --json``, ``kg_ask`` over MCP (official
SDK client), the TEXT2SPARQL app (its ``Saga-Outcome`` header), the web page's HTTP API, and
``langgraph dev`` through ``langgraph_sdk`` (tests/support/outcome_faces.py). A face is right on
a run when it reports the expected outcome and, where the run has one, its last query as the
final one; a 47-row answer must say 47 in each face's text.

Figures: ``outcome_accuracy`` is the lowest face's share of runs reported right (it must be 1.0);
``faults_as_answers`` counts runs whose fault a face reported as an answer (it must be 0);
``evidence_coverage`` is the share of answer rows with at least one supporting triple on gold
queries (:func:`evidence_coverage`, as ``bench/evidence_coverage.py`` measures it). The ambiguous-entity
row expects ``needs_clarification``: the controller asks back.

Usage: python bench/outcomes.py --data-dir ../shared/data [--faces cli,mcp,...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tests.support
from tests.support.outcome_faces import (
    ANSWERS,
    DRIVERS,
    FACES,
    ambiguous_name,
    count_cases,
    fault_cases,
    judge,
    matrix,
    says_count,
)


def evidence_coverage(data_dir: Path) -> float | None:
    """Share of answer rows of gold queries (CK25, Spider4SPARQL graphs) with at least one supporting triple.

    Measured by ``bench/evidence_coverage.py`` (each gold query run behind the guard on its own graph,
    the first 20 rows of its answer read for evidence as the agent's ``evidence`` node reads them);
    ``None`` (reported as missing) when no gold answer row was found to check.
    """
    from bench.evidence_coverage import measure

    tallies = measure(data_dir, rows=20)
    checked = sum(tally.rows_checked for tally in tallies.values())
    supported = sum(tally.rows_supported for tally in tallies.values())
    for name, tally in sorted(tallies.items()):
        print(f"evidence {name}: {tally.rows_supported}/{tally.rows_checked} rows supported ({tally.coverage:.4f})")
    return supported / checked if checked else None


def main() -> None:
    """Run the matrix, print per face and per run, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--faces", default=",".join(FACES), help="comma-separated subset of " + ",".join(FACES))
    args = parser.parse_args()
    faces = [face for face in args.faces.split(",") if face]
    data = (args.data_dir / "text2sparql_ck25" / "prod-inst.ttl").resolve()
    faults = fault_cases(ambiguous_name(data))
    counted = count_cases()
    cases = faults + counted
    accuracy: dict[str, float] = {}
    counts_ok: dict[str, bool] = {}
    as_answers = 0
    with tempfile.TemporaryDirectory(prefix="saga-outcomes-") as tmp, matrix(Path(tmp), data, cases) as setting:
        for face in faces:
            started = time.perf_counter()
            reports = DRIVERS[face](setting, cases)
            right = 0
            for case in cases:
                ok, why = judge(case, reports.get(case.fault))
                right += ok
                shown = reports.get(case.fault)
                if case.expected not in ANSWERS and shown is not None and shown.status in ANSWERS:
                    as_answers += 1
                print(f"{face:<12}{case.fault:<24}{case.expected:<20}{'ok' if ok else 'WRONG: ' + why}")
            said = [says_count(face, case, reports.get(case.fault)) for case in counted]
            counts_ok[face] = all(flag is not False for flag in said)
            accuracy[face] = right / len(cases)
            print(
                f"{face}: {right}/{len(cases)} reported right, counts agree: {counts_ok[face]}, "
                f"{time.perf_counter() - started:.1f} s wall"
            )
    coverage = evidence_coverage(args.data_dir)
    per_face = " ".join(f"outcome_accuracy_{face}={accuracy[face]:.3f}" for face in faces)
    counts = " ".join(f"counts_agree_{face}={int(counts_ok[face])}" for face in faces)
    print(
        f"RESULT outcome_accuracy={min(accuracy.values()):.3f} faults_as_answers={as_answers} "
        f"evidence_coverage={'missing' if coverage is None else f'{coverage:.3f}'} {per_face} {counts}"
    )


if __name__ == "__main__":
    main()
