"""Several sources, one right answer: the bridge's true-join rank and the join tool's answers on split graphs.

Split fixtures (bench/multisource_splits.py) are built from the shared Spider4SPARQL graphs:
each graph is cut along its foreign keys in five ways (integer ids, string vs integer ids,
zero-padded ids, renamed namespaces, colliding small ids), each side loaded into its own
``oxigraph serve-read-only`` on 127.0.0.1 and configured as a catalog source (an endpoint
with a title and description). Per split:

* **rank of the true join**: 1 + the number of *false* candidates the bridge ranks above the
  foreign key's (left property, right property) pair (another true foreign key across the same
  cut is not a false candidate);
* **scripted runs**: for up to two attributes of the target table, the tools' own join path
  (``join``: the bridge's top candidate between the question's two classes, no hand-copied
  keys) answers "each left row's target attribute"; it agrees when its (row, value) set equals
  the gold query's on the unsplit graph;
* **pastes**: every value the bridge and the join tables show is pasted into
  ``VALUES ?k { … }`` and checked by the left source's guard; a rejection counts.

The code was tuned on the synthetic concert fixture of tests/unit/multisource only; the
graphs in --dev (singer, museum_visit) were used while writing this bench, the others are
held out and reported on their own, worst case beside the mean.

Usage: python bench/multisource.py --data-dir ../shared/data [--graphs a,b] [--max-fks 2] [--kinds k1,k2]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the split builder beside this file
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support, when run as a script
from multisource_splits import KINDS, ONTOP, Split, class_iri, property_iri, splits
from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from saga_kgqa.sources.bridging import BridgeResult, bridge_sources
from saga_kgqa.sources.catalog import Catalog, SourceRecord
from saga_kgqa.sources.federation import join_sources
from saga_kgqa.sources.session import SourceSet
from tests.support.oxigraph_server import oxigraph_server

GRAPHS = (
    "singer",
    "museum_visit",
    "orchestra",
    "pets_1",
    "poker_player",
    "course_teach",
    "employee_hire_evaluation",
    "battle_death",
    "voter_1",
    "cre_doc_template_mgt",
    "real_estate_properties",
    "car_1",
)
DEV = ("singer", "museum_visit")
_CELL = re.compile(r"(?<!\\)\|")


@dataclass
class Outcome:
    """One split's figures."""

    split: str
    graph: str
    rank: int | None
    questions: int
    agreed: int
    pastes: int
    rejected: int
    seconds: float


def main() -> None:
    """Build the splits, serve them, measure, print a table and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--graphs", default=",".join(GRAPHS), help="Spider4SPARQL graph names, comma-separated")
    parser.add_argument("--max-fks", type=int, default=2, help="foreign keys cut per graph")
    parser.add_argument("--kinds", default=",".join(KINDS), help="split kinds, comma-separated")
    parser.add_argument("--work-dir", type=Path, default=None, help="scratch folder (a temporary one by default)")
    args = parser.parse_args()
    kinds = tuple(k for k in args.kinds.split(",") if k)
    outcomes: list[Outcome] = []
    skipped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="multisource-") as scratch:
        work = args.work_dir or Path(scratch)
        for graph in [g for g in args.graphs.split(",") if g]:
            path = _graph_file(args.data_dir, graph)
            if path is None:
                print(f"{graph}: skipped (no graph file)")
                continue
            whole = ox.Store()
            with path.open("rb") as data:
                whole.load(data, ox.RdfFormat.TURTLE)
            for split in splits(graph, path, work / graph, max_fks=args.max_fks, kinds=kinds, skipped=skipped):
                outcome = _measure(split, whole, work / graph / "cache")
                outcomes.append(outcome)
                print(
                    f"{outcome.split:60s} rank={outcome.rank} agreed={outcome.agreed}/{outcome.questions} "
                    f"pastes={outcome.pastes} rejected={outcome.rejected} {outcome.seconds:.1f}s",
                    flush=True,
                )
    # Not applicable: string/padded kinds of non-integer keys, collide with two tables, blank-node rows.
    print(f"skipped {len(skipped)} split(s) that do not apply: {', '.join(skipped) or 'none'}")
    _report(outcomes)


def _graph_file(data_dir: Path, graph: str) -> Path | None:
    folder = data_dir / "spider4sparql" / "kg"
    for name in (f"{graph}_triples.ttl", f"{graph}.ttl"):
        if (folder / name).is_file():
            return folder / name
    return None


def _measure(split: Split, whole: ox.Store, cache: Path) -> Outcome:
    started = time.monotonic()
    for side in ("left-store", "right-store"):
        (split.left.parent / side).mkdir(exist_ok=True)
    with ExitStack() as stack:
        left = stack.enter_context(oxigraph_server(split.left, split.left.parent / "left-store"))
        right = stack.enter_context(oxigraph_server(split.right, split.right.parent / "right-store"))
        catalog = Catalog(
            sources={
                "left": SourceRecord(
                    name="left",
                    endpoint=left.url,
                    title=f"{split.graph} without {split.fk.target}",
                    description=f"The {split.graph} tables except {', '.join(sorted(split.right_tables))}.",
                ),
                "right": SourceRecord(
                    name="right",
                    endpoint=right.url,
                    title=f"{split.graph}: {', '.join(sorted(split.right_tables))}",
                    description="Copied from another system: its own IRIs, its ids written its own way.",
                ),
            },
            default_source="left",
        )
        sources = stack.enter_context(SourceSet(catalog, survey_dir=cache / split.name.replace("/", "_")))
        try:
            bridge = bridge_sources(sources, "left", "right")
            rank = _rank(bridge, split)
            if rank is None:
                print(f"  {split.name}: true join not among the candidates; notes: {list(bridge.notes[:3])}")
            questions, agreed, shown = _questions(sources, bridge, split, whole)
            shown += [part for c in bridge.candidates for example in c.examples for part in example.split(" = ")]
            rejected = _rejected_pastes(sources, shown)
        finally:
            forget_gate(left.url)
            forget_gate(right.url)
    return Outcome(split.name, split.graph, rank, questions, agreed, len(shown), rejected, time.monotonic() - started)


def _rank(bridge: BridgeResult, split: Split) -> int | None:
    wanted = (split.fk.left_property, property_iri(split.fk.target, split.fk.target_key, split.kind))
    false_above = 0
    for candidate in bridge.candidates:
        pair = (candidate.left_property or "", candidate.right_property or "")
        if pair == wanted:
            return false_above + 1
        if pair not in split.true_pairs:
            false_above += 1
    return None


def _questions(sources: SourceSet, bridge: BridgeResult, split: Split, whole: ox.Store) -> tuple[int, int, list[str]]:
    """Scripted runs through the join tool, compared with the gold query on the unsplit graph."""
    left_class = ONTOP + split.fk.table
    right_class = class_iri(split.fk.target, split.kind)
    chosen = next(
        (
            c
            for c in bridge.candidates
            if c.kind == "shared_value" and (c.left_class, c.right_class) == (left_class, right_class)
        ),
        None,
    )
    asked = agreed = 0
    shown: list[str] = []
    for attribute in split.attributes[:2]:
        gold_query = f"SELECT DISTINCT ?l ?v WHERE {{ ?l <{split.fk.link}> ?r . ?r <{attribute}> ?v }}"
        gold = {(row["l"].value, row["v"].value) for row in whole.query(gold_query)}  # type: ignore[union-attr]
        if not gold:
            continue
        asked += 1
        if chosen is None:
            continue
        table, _, column = attribute[len(ONTOP) :].partition("#")
        first = f"SELECT ?l ?key WHERE {{ ?l a <{left_class}> ; <{chosen.left_property}> ?key }}"
        second = (
            f"SELECT ?key ?v WHERE {{ ?r a <{right_class}> ; <{chosen.right_property}> ?key ; "
            f"<{property_iri(table, column, split.kind)}> ?v }}"
        )
        joined = join_sources(sources, f"left: {first} ==> right: {second}")
        shown += _cells(joined.text)
        if joined.result is None:
            continue
        answer = {(row["l"].value, row["v"].value) for row in joined.result.rows if "l" in row and "v" in row}
        agreed += answer == gold
    return asked, agreed, shown


def _cells(text: str) -> list[str]:
    """The values of the table rows in an observation (header and rule lines skipped)."""
    cells: list[str] = []
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    for line in lines[1:]:
        cells += [cell.strip().replace("\\|", "|") for cell in _CELL.split(line.strip().strip("|")) if cell.strip()]
    return cells


def _rejected_pastes(sources: SourceSet, shown: list[str]) -> int:
    graph = sources.get("left").graph
    rejected = 0
    for value in shown:
        try:
            graph.check(f"SELECT ?k WHERE {{ VALUES ?k {{ {value} }} }}")
        except QueryRejected:
            rejected += 1
            print(f"  rejected paste: {value[:80]}")
    return rejected


def _report(outcomes: list[Outcome]) -> None:
    if not outcomes:
        print("RESULT splits=0")
        return
    held = [o for o in outcomes if o.graph not in DEV]

    def top1(items: list[Outcome]) -> float:
        return sum(o.rank == 1 for o in items) / len(items) if items else 0.0

    def agreement(items: list[Outcome]) -> float:
        asked = sum(o.questions for o in items)
        return sum(o.agreed for o in items) / asked if asked else 0.0

    ranks = [o.rank if o.rank is not None else 99 for o in outcomes]
    by_kind = {kind: [o for o in outcomes if o.split.endswith("/" + kind)] for kind in KINDS}
    for kind, items in by_kind.items():
        if items:
            print(f"{kind:8s} splits={len(items)} top1={top1(items):.3f} agreement={agreement(items):.3f}")
    worst = max(outcomes, key=lambda o: o.rank or 99)
    print(f"worst rank: {worst.split} rank={worst.rank}; mean rank {statistics.mean(ranks):.2f}")
    kind_top1 = min(top1(items) for items in by_kind.values() if items)
    print(
        f"RESULT splits={len(outcomes)} graphs={len({o.graph for o in outcomes})} top1_rate={top1(outcomes):.4f} "
        f"top1_rate_heldout={top1(held):.4f} worst_kind_top1={kind_top1:.4f} worst_rank={max(ranks)} "
        f"questions={sum(o.questions for o in outcomes)} agreement={agreement(outcomes):.4f} "
        f"agreement_heldout={agreement(held):.4f} pastes={sum(o.pastes for o in outcomes)} "
        f"rejected_pastes={sum(o.rejected for o in outcomes)} "
        f"seconds_per_split={statistics.mean(o.seconds for o in outcomes):.2f}"
    )


if __name__ == "__main__":
    main()
