"""Schema-aware grounding on real graphs with declared schemas, without an LLM (issue 4, part 5).

Over every gold query of TEXT2SPARQL'25 CK25 and the Spider4SPARQL dev graphs found under
--data-dir, in subclass-aware and exact compatibility mode: retention of gold properties by
the lookup filter, reduction of the shown neighbourhood, false blocks and detection of
swapped properties by the pre-execution check, and tokens of the compact lookup text
against SPINACH's raw JSON (see bench.grounding_eval.measurement for the definitions). SPINACH
also spends a pruning LLM call on that raw JSON, which lookup does not need when types are
known; that call is not counted here.

Usage: python bench/grounding.py --data-dir ../shared/data [--limit-questions N]
       python bench/grounding.py --wikidata --data-dir ../shared/data [--store DIR] [--codex-sample N]

--wikidata measures on real Wikidata and Freebase data instead (bench.grounding_eval.wikidata):
CoDEx-M test triples over the offline Wikidata store (built into a temporary directory unless
--store names one from `saga wikidata build-store`), gold SPARQL of QALD-10, QALD-7, WWQ dev and
SPINACH dev, and Freebase gold SPARQL of CWQ test and the GrailQA sample (fb_roles, no graph).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rich.console import Console

from saga_kgqa.benchmarks.datasets import BenchmarkGraph, discover_graphs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.measurement import GraphMeasurement, MeasureSettings, measure_graph
from bench.grounding_eval.probe import ToolkitProbe
from bench.grounding_eval.report import (
    AGREEMENT_NOTE,
    SUMMARY_COLUMNS,
    aligned,
    merged,
    result_line,
    summary_row,
    token_table,
)
from bench.grounding_eval.spinach_lookup_cost import (
    SPINACH_PRUNE_PROMPT_TOKENS,
    full_lookup_samples,
    recorded_pruned_tokens,
)
from bench.grounding_eval.spinach_lookup_cost import TRACE_FILE as SPINACH_TRACE_FILE
from bench.grounding_eval.spinach_lookup_cost import ratio as spinach_ratio
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import build_schema_index
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.lookup.hiding import HideSettings
from smoke import first, shrink


def main() -> None:
    """Measure every graph present, print the tables and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--limit-questions", type=int, default=None, help="first N questions of each graph")
    parser.add_argument("--graph", action="append", default=None, help="measure only this graph (repeatable)")
    parser.add_argument("--samples", type=int, default=5, help="entities sampled per variable subject")
    parser.add_argument("--seed", type=int, default=0, help="seed of the property swaps")
    parser.add_argument("--induce", action="store_true", help="also induce domains the schema does not declare")
    parser.add_argument(
        "--support",
        type=float,
        default=None,
        help="lookup's support threshold of an observed domain member (HideSettings.support; 1.01: never)",
    )
    parser.add_argument("--details", type=int, default=10, help="lost uses and missed swaps listed")
    parser.add_argument("--wikidata", action="store_true", help="measure on Wikidata and Freebase data instead")
    parser.add_argument("--store", type=Path, default=None, help="offline Wikidata store (--wikidata)")
    parser.add_argument("--codex-sample", type=int, default=1500, help="CoDEx-M test triples sampled (--wikidata)")
    parser.add_argument(
        "--token-endpoint",
        default=None,
        help="also compare lookup tokens on this Wikidata SPARQL endpoint, where neighbourhoods have their real "
        "size (--wikidata; e.g. https://query.wikidata.org/sparql)",
    )
    parser.add_argument("--token-profile", default="wikidata", help="endpoint profile of --token-endpoint")
    parser.add_argument("--token-heads", type=int, default=300, help="sampled heads looked up on --token-endpoint")
    parser.add_argument(
        "--token-cache-dir",
        type=Path,
        default=None,
        help="record the endpoint's answers here and replay them on reruns",
    )
    args = shrink(parser.parse_args(), limit_questions=3, samples=1, codex_sample=20, token_heads=3)
    if args.wikidata:
        from grounding_wikidata import run_wikidata

        run_wikidata(args)
        return

    console = Console(width=200)
    catalog = discover_graphs(args.data_dir)
    for name, questions in catalog.absent_graphs.items():
        console.print(f"skipped {name}: graph absent ({questions} questions)")
    measurements = []
    started = time.perf_counter()
    for graph in first(catalog.graphs):
        if args.graph and graph.name not in args.graph:
            continue
        measurements.append(_measure(graph, args))
        console.print(f"measured {graph.name} ({time.perf_counter() - started:.0f} s elapsed)")
    overall = merged(measurements)
    _print_summary(console, [*measurements, overall])
    _print_tokens(console, overall)
    _print_details(console, overall, args.details)
    console.print(
        f"graphs measured: {len(measurements)}; graphs absent: {len(catalog.absent_graphs)} "
        f"({catalog.skipped_questions} questions skipped)"
    )
    console.print(AGREEMENT_NOTE, markup=False, highlight=False)
    full = full_lookup_samples(overall.tokens, recorded_pruned_tokens(args.data_dir / SPINACH_TRACE_FILE))
    console.print(
        f"\ntokens of lookup vs SPINACH's whole lookup: raw JSON + pruning prompt ({SPINACH_PRUNE_PROMPT_TOKENS}) "
        "+ pruned output (the median of SPINACH's recorded QALD-10 pruned outputs, at most the raw JSON):"
    )
    console.print(token_table(full, against="SPINACH lookup"), markup=False)
    lowest = min(
        (m.modes["subclass"].retention for m in measurements if m.modes["subclass"].retention is not None), default=None
    )
    print(
        f"{result_line(overall)} token_ratio_vs_spinach_lookup={spinach_ratio(full):.4f} "
        f"retention_min={'nan' if lowest is None else f'{lowest:.4f}'}"
    )


def _measure(graph: BenchmarkGraph, args: argparse.Namespace) -> GraphMeasurement:
    questions = graph.questions[: args.limit_questions] if args.limit_questions is not None else graph.questions
    # The data files' own prefixes (pv:, prodi:, ...) join the profile: lookup shows ids with them.
    backend = open_backend(data=list(graph.files))
    with KnowledgeGraph(backend) as kg:
        schema = build_schema_index(backend, induce=args.induce)
        caps = None if args.support is None else ToolCaps(hide=HideSettings(support=args.support))
        probe = ToolkitProbe(kg, schema, caps=caps)
        settings = MeasureSettings(samples=args.samples, seed=args.seed, prefixes=dict(kg.profile.prefixes))
        measurement = measure_graph(graph.name, questions, probe, schema, settings)
        measurement.notes.extend(f"{graph.name}: {note}" for note in probe.notes)
        return measurement


def _print_summary(console: Console, rows: list[GraphMeasurement]) -> None:
    console.print("\ngrounding per graph and overall (subclass-aware and exact compatibility)")
    headers = [name for name, _meaning in SUMMARY_COLUMNS]
    console.print(aligned(headers, [summary_row(m) for m in rows]), markup=False, highlight=False)
    for name, meaning in SUMMARY_COLUMNS[1:]:
        console.print(f"  {name}: {meaning}", markup=False, highlight=False)


def _print_tokens(console: Console, m: GraphMeasurement) -> None:
    console.print("\ntokens (cl100k_base), compact lookup text vs SPINACH raw JSON, by neighbourhood size (values):")
    console.print(token_table(m.tokens), markup=False)
    console.print(
        "  SPINACH also sends the raw JSON to a pruning LLM call (not counted here); lookup needs none "
        "when the entity's types are known.",
        markup=False,
    )


def _print_details(console: Console, m: GraphMeasurement, limit: int) -> None:
    console = Console(width=console.width, markup=False, highlight=False)  # IRIs and "[mode]" are plain text
    for mode, tally in m.modes.items():
        for lost in tally.lost[:limit]:
            types = sorted(lost.subject_types)
            console.print(f"[{mode}] lost {lost.qid}: {lost.subject} <{lost.property_iri}> types {types}")
        for swap in tally.missed[:limit]:
            console.print(
                f"[{mode}] missed swap {swap.qid}: {swap.subject} <{swap.original}> -> <{swap.replacement}> "
                f"(types {sorted(swap.subject_types)})"
            )
        for qid, patterns in list(tally.false_blocks.items())[:limit]:
            console.print(f"[{mode}] false block {qid}: {'; '.join(patterns)}")
        for qid, patterns in list(tally.empty_gold_blocks.items())[:limit]:
            console.print(f"[{mode}] blocked gold that matches nothing {qid}: {'; '.join(patterns)}")
    for error in m.errors[:limit]:
        console.print(f"error {error}")
    for note in m.notes[:limit]:
        console.print(f"note {note}")


if __name__ == "__main__":
    main()
