"""The pre-execution check on queries real models wrote: GRASP's released CK25 runs (issue 13).

Every query GRASP executed in its two released CK25 runs (gpt-4.1-mini) is re-run here through
execute on the CK25 graph; see saga_kgqa.eval.grounding.grasp_trajectories for the figures.

Usage: python bench/real_trajectories.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
from pathlib import Path

from saga_kgqa.eval.grounding.grasp_trajectories import measure, measure_final_checks
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
        schema = build_schema_index(backend, induce=False)
        tally = measure(graph, schema, args.data_dir)
        final = measure_final_checks(graph, schema, args.data_dir)
    print(f"GRASP CK25 queries: {tally.queries}; outcomes {dict(sorted(tally.by_status.items()))}")
    print(f"checkable (guard accepted): {tally.checkable}/{tally.queries}")
    print(f"empty or blocked: {tally.empty_or_blocked}; blocked and confirmed empty: {tally.blocked_empty}")
    for line in tally.block_texts:
        print(f"block: {line}")
    for line in tally.false_blocks:
        print(f"false block: {line}")
    for line in tally.missed_empty[: args.details]:
        print(f"empty, not blocked: {line}")
    print(f"answer checks on GRASP's final queries: {final.wrong} with score 0, {final.right} with score 1")
    for name in sorted(set(final.flagged_wrong) | set(final.flagged_right)):
        print(f"  {name}: flags {final.flagged_wrong.get(name, 0)} wrong, {final.flagged_right.get(name, 0)} right")
    share_wrong = final.any_wrong / final.wrong if final.wrong else 0.0
    share_right = final.any_right / final.right if final.right else 0.0
    print(
        f"RESULT real_empty_blocked={tally.empty_blocked_share:.3f} real_false_blocks={len(tally.false_blocks)} "
        f"real_checkable_share={tally.checkable / tally.queries if tally.queries else 0.0:.3f} "
        f"real_queries={tally.queries} grasp_checks_flag_wrong={share_wrong:.3f} "
        f"grasp_checks_flag_right={share_right:.3f}"
    )


if __name__ == "__main__":
    main()
