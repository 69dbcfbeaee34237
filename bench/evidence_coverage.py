"""Evidence coverage on gold queries (issue 37 point 4): the share of answer rows with a supporting triple.

Every gold query of CK25 and of the Spider4SPARQL dev graphs present in the data directory runs
behind the guard on its own graph (an embedded store per graph); the first ``--rows`` rows of its
answer get their evidence read as the agent's ``evidence`` node reads it, and the bench counts
the rows with at least one supporting triple. Queries that fail or answer nothing are counted
apart. The per-benchmark figures and the queries left short are printed before the RESULT line.

Usage: python bench/evidence_coverage.py --data-dir ../shared/data [--rows 20] [--limit-graphs N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from saga_kgqa.benchmarks.datasets import discover_graphs
from saga_kgqa.eval.qa.evidence_coverage import CoverageTally, tally_gold
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.tools.evidence.gather import EvidenceSettings

LABELS = ("http://www.w3.org/2000/01/rdf-schema#label",)


def measure(data_dir: Path, rows: int, limit_graphs: int | None = None) -> dict[str, CoverageTally]:
    """Coverage per benchmark (``ck25``, ``spider``), every present graph (or the first ``limit_graphs``)."""
    catalog = discover_graphs(data_dir)
    settings = EvidenceSettings(rows=rows, deadline_s=30.0)
    tallies: dict[str, CoverageTally] = {}
    graphs = catalog.graphs[:limit_graphs] if limit_graphs else catalog.graphs
    for benchmark_graph in graphs:
        tally = tallies.setdefault(benchmark_graph.name.split("/")[0], CoverageTally())
        with KnowledgeGraph(open_backend(data=list(benchmark_graph.files))) as graph:
            queries = [(q.qid, q.sparql) for q in benchmark_graph.questions]
            tally_gold(graph, queries, label_predicates=LABELS, settings=settings, tally=tally)
    return tallies


def main() -> None:
    """Measure, print the per-benchmark figures and the short queries, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--rows", type=int, default=20, help="answer rows whose evidence is read per query")
    parser.add_argument("--limit-graphs", type=int, default=None, help="only the first N graphs (a quick look)")
    args = parser.parse_args()
    started, cpu = time.perf_counter(), time.process_time()
    tallies = measure(args.data_dir, args.rows, args.limit_graphs)
    total = CoverageTally()
    for name, tally in sorted(tallies.items()):
        print(
            f"{name:<8} queries={tally.queries} rows={tally.rows_supported}/{tally.rows_checked} "
            f"coverage={tally.coverage:.4f} failed={len(tally.failed)} without_rows={tally.without_rows}"
        )
        for qid, (supported, checked, note) in sorted(tally.short.items()):
            print(f"  short {qid}: {supported}/{checked} {note}")
        for qid, reason in sorted(tally.failed.items()):
            print(f"  failed {qid}: {reason[:160]}")
        total.queries += tally.queries
        total.rows_checked += tally.rows_checked
        total.rows_supported += tally.rows_supported
    print(f"wall={time.perf_counter() - started:.1f}s cpu={time.process_time() - cpu:.1f}s")
    figures = " ".join(f"{name}_evidence_coverage={tally.coverage:.4f}" for name, tally in sorted(tallies.items()))
    print(f"RESULT evidence_coverage={total.coverage:.4f} {figures} rows_checked={total.rows_checked}")


if __name__ == "__main__":
    main()
