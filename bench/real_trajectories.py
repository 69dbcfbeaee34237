"""The pre-execution check on queries real models wrote: GRASP's released CK25 runs (issue 13).

Every query GRASP executed in its two released CK25 runs (gpt-4.1-mini) is re-run here through
execute on the CK25 graph; see saga_kgqa.eval.grasp_trajectories for the figures.

Usage: python bench/real_trajectories.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
from pathlib import Path

from saga_kgqa.eval.grasp_trajectories import measure
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index


def main() -> None:
    """Measure and end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--details", type=int, default=10, help="empty queries not blocked, listed")
    args = parser.parse_args()
    backend = open_backend(data=[args.data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    with KnowledgeGraph(backend) as graph:
        tally = measure(graph, build_schema_index(backend, induce=False), args.data_dir)
    print(f"GRASP CK25 queries: {tally.queries}; outcomes {dict(sorted(tally.by_status.items()))}")
    print(f"checkable (guard accepted): {tally.checkable}/{tally.queries}")
    print(f"empty or blocked: {tally.empty_or_blocked}; blocked and confirmed empty: {tally.blocked_empty}")
    for line in tally.block_texts:
        print(f"block: {line}")
    for line in tally.false_blocks:
        print(f"false block: {line}")
    for line in tally.missed_empty[: args.details]:
        print(f"empty, not blocked: {line}")
    print(
        f"RESULT real_empty_blocked={tally.empty_blocked_share:.3f} real_false_blocks={len(tally.false_blocks)} "
        f"real_checkable_share={tally.checkable / tally.queries if tally.queries else 0.0:.3f} "
        f"real_queries={tally.queries}"
    )


if __name__ == "__main__":
    main()
