"""The pre-execution check on queries real models wrote (issue 13), from two sources.

* GRASP's released CK25 runs (gpt-4.1-mini): every executed query, checked and re-run here on
  the CK25 graph (bench.grounding_eval.grasp_trajectories);
* SPINACH's recorded QALD-10 trajectories (gpt-4o, live Wikidata in 2024): every executed query,
  checked against offline types only (the offline Wikidata store, built here unless
  --wikidata-store names one, and the offline schema index) and judged by its recorded result
  (bench.grounding_eval.spinach_trajectories).

Both go through bench.grounding_eval.trajectories, whose docstring defines the figures.

Usage: python bench/real_trajectories.py --data-dir ../shared/data [--wikidata-store stores/wikidata] [--ablations]
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from saga_kgqa.dialects.wikidata_store import build_wikidata_store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.grasp_trajectories import measure, measure_final_checks
from bench.grounding_eval.spinach_trajectories import SPINACH_CHECK_SETTINGS, measure_spinach, spinach_queries
from bench.grounding_eval.trajectories import TrajectoryTally, measure_trajectories
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import SchemaIndex, build_dialect_index, build_schema_index
from smoke import cap, reuse, reuse_store


def main() -> None:
    """Measure both sources and end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--wikidata-store", type=Path, default=None, help="a built offline Wikidata store")
    parser.add_argument("--details", type=int, default=10, help="empty queries not blocked, listed")
    parser.add_argument(
        "--ablations",
        action="store_true",
        help="also check SPINACH's queries schema-only (no confirming ASK) and with the vacuous-pattern block",
    )
    args = parser.parse_args()
    # rdflib logs every literal it cannot convert ("2018-00-00" dates); the check does not need them.
    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)
    started = time.perf_counter()
    backend = open_backend(data=[args.data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    with KnowledgeGraph(backend) as graph:
        schema = build_schema_index(backend, induce=False)
        tally = measure(graph, schema, args.data_dir)
        final = measure_final_checks(graph, schema, args.data_dir)
    print(f"== GRASP CK25 ({time.perf_counter() - started:.0f} s)")
    _print_tally(tally, args.details)
    print(f"answer checks on GRASP's final queries: {final.wrong} with score 0, {final.right} with score 1")
    for name in sorted(set(final.flagged_wrong) | set(final.flagged_right)):
        print(f"  {name}: flags {final.flagged_wrong.get(name, 0)} wrong, {final.flagged_right.get(name, 0)} right")
    scratch = Path(tempfile.mkdtemp(prefix="saga-spinach-traj-"))
    try:
        store = args.wikidata_store
        if store is None:
            store = scratch / "store"
            report = reuse_store(
                f"wikidata store {args.data_dir}",
                store,
                lambda d: build_wikidata_store(args.data_dir, d, per_source=cap(2000)),
            )
            print(f"built the offline Wikidata store: {report.triples} triples ({time.perf_counter() - started:.0f} s)")
        wikidata_schema = reuse(
            f"wikidata index {args.data_dir}", lambda: build_dialect_index("wikidata", data_dir=args.data_dir)
        )
        with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as graph:
            spinach = measure_spinach(graph, wikidata_schema, args.data_dir, details=args.details)
            ablations = _ablations(graph, wikidata_schema, args.data_dir) if args.ablations else []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"== SPINACH QALD-10, offline types only ({time.perf_counter() - started:.0f} s)")
    _print_tally(spinach, args.details)
    for line in ablations:
        print(line)
    share_wrong = final.any_wrong / final.wrong if final.wrong else 0.0
    share_right = final.any_right / final.right if final.right else 0.0
    print(
        f"RESULT real_empty_blocked={tally.empty_blocked_share:.3f} real_false_blocks={len(tally.false_blocks)} "
        f"real_checkable_share={tally.share(tally.checkable):.3f} "
        f"real_queries={tally.queries} grasp_checks_flag_wrong={share_wrong:.3f} "
        f"grasp_checks_flag_right={share_right:.3f} "
        f"spinach_real_empty_blocked={spinach.empty_blocked_share:.3f} "
        f"spinach_real_false_blocks={len(spinach.false_blocks)} "
        f"spinach_checkable_share={spinach.share(spinach.type_checked):.3f} "
        f"spinach_accepted_share={spinach.share(spinach.checkable):.3f} spinach_real_queries={spinach.queries}"
    )


def _ablations(graph: KnowledgeGraph, schema: SchemaIndex, data_dir: Path) -> list[str]:
    """SPINACH's queries under two other settings, side by side with the measured one."""
    lines = []
    for name, settings in (
        ("schema-only (no confirming ASK)", replace(SPINACH_CHECK_SETTINGS, verify_blocks=False)),
        ("with the vacuous-pattern block (a partial store)", replace(SPINACH_CHECK_SETTINGS, check_vacuous=True)),
    ):
        tally = measure_trajectories(graph, schema, spinach_queries(data_dir), settings)
        lines.append(
            f"ablation, {name}: blocked {tally.blocked_empty}/{tally.returned_nothing} that returned nothing, "
            f"false blocks {len(tally.false_blocks)}, blocked with no known outcome {tally.blocked_unconfirmed}"
        )
        lines.extend(f"  false block: {line}" for line in tally.false_blocks[:3])
    return lines


def _print_tally(tally: TrajectoryTally, details: int) -> None:
    print(f"queries: {tally.queries}; outcomes {dict(sorted(tally.by_status.items()))}")
    print(
        f"accepted by the guard: {tally.checkable}/{tally.queries}; "
        f"a pattern checked against a known type: {tally.type_checked}/{tally.queries}"
    )
    print(
        f"returned nothing (no rows, or ASK false): {tally.returned_nothing}; blocked among them: "
        f"{tally.blocked_empty}; with a pattern checked against a known type: {tally.type_checked_empty}; "
        f"blocked with no known outcome: {tally.blocked_unconfirmed}"
    )
    for line in tally.block_texts:
        print(f"block: {line}")
    for line in tally.false_blocks:
        print(f"false block: {line}")
    for line in tally.missed_empty[:details]:
        print(f"empty, not blocked: {line}")


if __name__ == "__main__":
    main()
