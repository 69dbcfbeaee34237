"""Search in a plain run over a large graph of files: the persistent full-text index vs the in-memory one.

A plain ``--data`` run used to build the in-memory name index in every process and scan
every name per search. Above ``ToolCaps.fulltext_names`` names (100,000) a graph of files
now gets a tantivy index in the cache, built by the first run and opened by every later one
(saga_kgqa.tools.search.names_cache). Measured side by side in one process over one
generated graph: the first run (read names + build), a later run (open), the in-memory
build, and the p50 search time of each index (half the queries with a typo).

Usage: python bench/name_index.py --data-dir ../shared/data [--names 300000] [--queries 30]
(--data-dir is accepted like every bench's; the graph is generated, nothing is read from it.)
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from saga_kgqa.kg.guard.sparql_terms import string_literal
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.search.label_index import LabelIndex, NameIndex
from saga_kgqa.tools.toolbox import SagaToolbox
from smoke import shrink


def main() -> None:
    """Generate the graph, time the three ways to get an index and their searches, print RESULT."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--names", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--threshold", type=int, default=ToolCaps().fulltext_names, help="fulltext_names of the runs")
    args = shrink(parser.parse_args(), names=400, queries=3, threshold=200)
    work = Path(tempfile.mkdtemp(prefix="saga-name-index-"))
    os.environ["SAGA_SURVEY_DIR"] = str(work / "cache")  # the bench never writes into ~/.cache
    os.environ["SAGA_STORE_CACHE_DIR"] = str(work / "stores")
    try:
        path = work / "names.nt"
        queries = with_typos(synthetic_names(path, args.names, args.queries), args.queries)
        big = ToolCaps(names_per_predicate=args.names + 1, fulltext_names=args.threshold)
        with KnowledgeGraph(open_backend(data=[path])) as graph:
            first, first_s = _index(graph, big)
            later, later_s = _index(graph, big)
            memory, memory_s = _in_memory(graph, big)
        print(
            f"{len(memory)} names; index ready in: first run {first_s:.1f} s (read + build), "
            f"later run {later_s * 1000:.1f} ms (open), in-memory {memory_s:.1f} s (every run)"
        )
        p50 = {label: _p50(index, queries) for label, index in (("fulltext", later), ("memory", memory))}
        print(f"search p50: full-text {p50['fulltext'] * 1000:.2f} ms, in-memory {p50['memory'] * 1000:.1f} ms")
        if type(first).__name__ != "FullTextIndex" or type(memory).__name__ != "LabelIndex":
            raise SystemExit(f"--names {args.names} is not above --threshold {args.threshold}: nothing to compare")
        print(
            f"RESULT names={args.names} search_p50_ratio={p50['memory'] / p50['fulltext']:.1f} "
            f"ready_ratio={memory_s / later_s:.0f} first_run_s={first_s:.1f} later_run_ms={later_s * 1000:.1f} "
            f"memory_build_s={memory_s:.1f}"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def synthetic_names(path: Path, count: int, queries: int) -> list[str]:
    """Write ``count`` rdfs:label triples of made-up two-word names to ``path``; return ``queries`` of the names.

    Shared with ``bench/autoschema.py``'s search latency (the same seed, so the same graph).
    """
    rng = random.Random(7)
    syllables = ["ka", "lo", "mi", "ra", "tu", "ve", "sen", "dor", "lin", "bar", "qui", "zel", "pha", "nor"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(20_000)]
    chosen: list[str] = []
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            name = f"{rng.choice(words)} {rng.choice(words)} {i}"
            out.write(
                f"<http://bench.example.org/e{i}> <http://www.w3.org/2000/01/rdf-schema#label> "
                f"{string_literal(name)} .\n"
            )
            if i % max(count // queries, 1) == 0:
                chosen.append(name.rsplit(" ", 1)[0])
    return chosen


def with_typos(chosen: list[str], queries: int) -> list[str]:
    """The names and as many with one letter deleted (the fuzzy path), ``2 * queries`` at most."""
    typos = [q[:3] + q[4:] if len(q) > 6 else q for q in chosen]
    return [*chosen, *typos][: queries * 2]


def _index(graph: KnowledgeGraph, caps: ToolCaps) -> tuple[NameIndex, float]:
    started = time.perf_counter()
    index = SagaToolbox(graph, SchemaIndex(), caps=caps).default_view().context.label_index
    return index, time.perf_counter() - started


def _in_memory(graph: KnowledgeGraph, caps: ToolCaps) -> tuple[NameIndex, float]:
    """The in-memory index every plain run built before (the cache is bypassed)."""
    started = time.perf_counter()
    context = SagaToolbox(graph, SchemaIndex(), caps=caps).default_view().context
    index = LabelIndex.build(
        context.reads(),
        context.name_predicates,
        context.schema,
        primary=context.vocabulary.label_predicates,
        max_names_per_predicate=caps.names_per_predicate,
    )
    return index, time.perf_counter() - started


def _p50(index: NameIndex, queries: list[str]) -> float:
    times = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, limit=8)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


if __name__ == "__main__":
    sys.exit(main())
