"""Scale: load, survey, search, lookup and queries at growing graph sizes, against bare floors.

For each size (``--triples 1M,10M``; ``100M`` is opt-in: tens of minutes, ~30 GB of disk) a
seeded graph of realistic shape (``bench/scale_graph.py``: classes, declared domains and ranges,
labelled instances, object and datatype properties) is written to a scratch directory (never
the repository). Every step runs in its own process (``bench/scale_runs.py``): wall time, CPU
time of its whole process tree (the query worker and the name reader included), peak memory of
the tree, and the load average at its end. Every ratio comes from interleaved runs (floor, step,
floor, step, … ``--pairs`` pairs, 3 by default) and is the median of the pairs' ratios:

* ``load``: ``saga load`` (store, survey, schema index and full-text name index, in fresh
  directories each run); floor: pyoxigraph's raw ``Store.bulk_load`` of the same file in a bare
  process, nothing else (``load_ratio_raw`` wall, ``load_cpu_ratio_raw`` CPU).
* ``survey``: the bounded survey rebuilt (``--refresh``) on the loaded store.
* ``search``: ``saga search --data STORE`` on held-out labels, p50 with the CLI's start, each
  beside ``saga --help`` (the CLI's own start, its floor).
* ``lookup``: ``saga lookup --data STORE`` without ``--schema`` and with one, in turn.
* ``recall``: exact-label search of sampled entities (seeded; the sample is drawn after the
  code was written and never used to tune it), top hit = the entity.
* ``selective`` / ``count``: ``saga sparql`` of one entity's triples and a COUNT of all triples,
  each beside the same query in a bare pyoxigraph process.

Reports each figure per size, the growth exponent of each (a least-squares fit of log value on
log triples) and ends with one ``RESULT`` line (the ratios and peaks at the largest size).

Usage: python bench/scale.py [--data-dir ../shared/data] [--triples 1M,10M] [--pairs 3] [--scratch DIR] [--no-floor]
(--data-dir is accepted like every bench's; the graphs are generated, nothing is read from it.)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scale_graph
from scale_runs import Run, disk_mb, interleaved, median, median_ratio, timed
from smoke import shrink

_FLOOR_LOAD = """
import sys, pyoxigraph as ox
ox.Store(sys.argv[2]).bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_TRIPLES)
"""
_FLOOR_QUERY = """
import sys, pyoxigraph as ox
print(len(list(ox.Store.read_only(sys.argv[1]).query(sys.argv[2]))))
"""
_SURVEY = """
import sys, time
from pathlib import Path
from saga_kgqa.config.catalog import Catalog, SourceRecord
from saga_kgqa.sources.session import SourceSet
record = SourceRecord(name="bench", store=Path(sys.argv[1]))
with SourceSet(Catalog(sources={"bench": record}, default_source="bench")) as sources:
    survey = sources.get("bench").survey(refresh=True)
print(len(survey.classes), len(survey.failures))
"""
_RECALL = """
import json, sys
from pathlib import Path
from saga_kgqa.tools.search.fulltext import FullTextIndex
index = FullTextIndex.open(Path(sys.argv[1]) / "saga-fulltext")
wanted = json.loads(sys.argv[2])
found = sum(1 for iri, label in wanted if [m.resource for m in index.search(label, limit=1)] == [iri])
print(found / len(wanted))
"""


def _size(text: str) -> int:
    text = text.strip().upper()
    factor = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def _saga(*args: str) -> list[str]:
    return [sys.executable, "-m", "saga_kgqa", *args]


def measure(
    triples: int, scratch: Path, env: dict[str, str], samples: int, pairs: int, floors: bool = True
) -> dict[str, float]:
    """All steps at one size; returns the figures by name (floors and their ratios are NaN without ``floors``)."""
    work = scratch / f"t{triples}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    nt = work / "graph.nt"
    written, entities = scale_graph.generate(nt, triples)
    fig: dict[str, float] = {"triples": written}
    py = sys.executable
    nan = float("nan")
    _step(f"generated {written:,} triples")

    runs = iter(range(1_000_000))
    store = work / "store"

    def floor_load() -> Run:
        target = work / f"floor-{next(runs)}"
        run = timed([py, "-c", _FLOOR_LOAD, str(nt), str(target)], env)
        fig["floor_disk_mb"] = disk_mb(target)
        shutil.rmtree(target, ignore_errors=True)
        _step(f"  raw bulk_load {run.wall_s:.1f} s, {run.cpu_s:.1f} s CPU, {run.peak_mb:.0f} MB (load {run.load:.1f})")
        return run

    def saga_load() -> Run:
        shutil.rmtree(store, ignore_errors=True)
        cache = work / "cache"
        shutil.rmtree(cache, ignore_errors=True)  # no survey or schema left by the run before
        run = timed(_saga("load", str(nt), "--store", str(store)), _step_env(env, work))
        _step(f"  saga load {run.wall_s:.1f} s, {run.cpu_s:.1f} s CPU, {run.peak_mb:.0f} MB (load {run.load:.1f})")
        return run

    if floors:
        floor_runs, load_runs = interleaved(pairs, floor_load, saga_load)
    else:
        floor_runs, load_runs = [], [saga_load()]
    fig["load_s"], fig["load_cpu_s"] = median(load_runs, _wall), median(load_runs, _cpu)
    fig["load_mb"] = max(run.peak_mb for run in load_runs)
    fig["load_load_avg"] = median(load_runs, _load)
    fig["load_disk_mb"] = disk_mb(store)
    if floor_runs:
        fig["floor_load_s"], fig["floor_load_cpu_s"] = median(floor_runs, _wall), median(floor_runs, _cpu)
        fig["floor_load_mb"] = max(run.peak_mb for run in floor_runs)
        fig["load_ratio_raw"] = median_ratio(load_runs, floor_runs, _wall)
        fig["load_cpu_ratio_raw"] = median_ratio(load_runs, floor_runs, _cpu)
    else:
        fig.update(floor_load_s=nan, floor_load_cpu_s=nan, floor_load_mb=nan, load_ratio_raw=nan)
        fig.update(load_cpu_ratio_raw=nan, floor_disk_mb=nan)
    _step(
        f"saga load {fig['load_s']:.1f} s wall, {fig['load_cpu_s']:.1f} s CPU, {fig['load_mb']:.0f} MB; "
        f"raw bulk_load {fig['floor_load_s']:.1f} s, {fig['floor_load_cpu_s']:.1f} s CPU; ratios "
        f"{fig['load_ratio_raw']:.2f} wall, {fig['load_cpu_ratio_raw']:.2f} CPU "
        f"(load average {fig['load_load_avg']:.1f})"
    )
    nt.unlink()  # the store holds it now; keeps the scratch disk small at 100M
    env = _step_env(env, work)

    survey = timed([py, "-c", _SURVEY, str(store)], env)
    fig["survey_s"], fig["survey_cpu_s"], fig["survey_mb"] = survey.wall_s, survey.cpu_s, survey.peak_mb
    # A survey whose probes ran past their deadlines is fast and small but empty: say what it found.
    fig["survey_classes"], fig["survey_failures"] = (float(n) for n in survey.out.split()[-2:])
    _step(
        f"survey {fig['survey_s']:.1f} s, {fig['survey_cpu_s']:.1f} s CPU, {fig['survey_mb']:.0f} MB, "
        f"{fig['survey_classes']:.0f} classes, {fig['survey_failures']:.0f} probes failed"
    )

    # Held out: drawn with a seed the code was never run against while it was tuned.
    rng = random.Random(2727 + triples)
    sample = [rng.randrange(entities) for _ in range(max(samples, 3))]
    labels = iter(sample[:samples])
    help_runs, search_runs = interleaved(
        samples,
        lambda: timed(_saga("--help"), env),
        lambda: timed(_saga("search", "--data", str(store), scale_graph.entity_label(next(labels))), env),
    )
    fig["search_p50_s"], fig["search_cpu_p50_s"] = median(search_runs, _wall), median(search_runs, _cpu)
    fig["cli_floor_s"] = median(help_runs, _wall)
    _step(
        f"search p50 {fig['search_p50_s']:.2f} s ({fig['search_cpu_p50_s']:.2f} s CPU); "
        f"--help {fig['cli_floor_s']:.2f} s"
    )
    schema_file = work / "schema.json"
    timed(_saga("index", "build", "--out", str(schema_file), "--data", str(store)), env)
    first = timed(_saga("lookup", "--data", str(store), scale_graph.entity_iri(sample[0])), env)
    fig["lookup_first_s"] = first.wall_s  # the content's schema index was built by saga load
    with_iris, without_iris = iter(sample[:samples]), iter(sample[:samples])
    with_schema, without = interleaved(
        samples,
        lambda: timed(
            _saga(
                "lookup", "--data", str(store), "--schema", str(schema_file), scale_graph.entity_iri(next(with_iris))
            ),
            env,
        ),
        lambda: timed(_saga("lookup", "--data", str(store), scale_graph.entity_iri(next(without_iris))), env),
    )
    fig["lookup_p50_s"], fig["lookup_schema_p50_s"] = median(without, _wall), median(with_schema, _wall)
    fig["lookup_ratio"] = median_ratio(without, with_schema, _wall)
    _step(f"lookup p50 {fig['lookup_p50_s']:.2f} s without --schema, {fig['lookup_schema_p50_s']:.2f} s with")

    recall_sample = [(scale_graph.entity_iri(n), scale_graph.entity_label(n)) for n in rng.sample(range(entities), 200)]
    fig["recall"] = float(timed([py, "-c", _RECALL, str(store), json.dumps(recall_sample)], env).out.strip())

    one = scale_graph.entity_iri(sample[0])
    selective = f"SELECT ?p ?o WHERE {{ <{one}> ?p ?o }}"
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    for name, text in (("selective", selective), ("count", count)):
        saga_runs = [timed(_saga("sparql", "--data", str(store), "--timeout", "600", text), env)]
        floor_q: list[Run] = []
        if floors:
            floor_q, saga_runs = interleaved(
                pairs,
                lambda text=text: timed([py, "-c", _FLOOR_QUERY, str(store), text], env),  # type: ignore[misc]
                lambda text=text: timed(_saga("sparql", "--data", str(store), "--timeout", "600", text), env),  # type: ignore[misc]
            )
        fig[f"{name}_s"], fig[f"{name}_mb"] = median(saga_runs, _wall), max(r.peak_mb for r in saga_runs)
        fig[f"{name}_floor_s"] = median(floor_q, _wall) if floor_q else nan
        _step(
            f"sparql {name} {fig[name + '_s']:.2f} s, {fig[name + '_mb']:.0f} MB; floor {fig[name + '_floor_s']:.2f} s"
        )
    fig["load_average"] = os.getloadavg()[0]
    return fig


def _step_env(env: dict[str, str], work: Path) -> dict[str, str]:
    return {**env, "SAGA_SURVEY_DIR": str(work / "cache"), "SAGA_STORE_CACHE_DIR": str(work / "stores")}


def _wall(run: Run) -> float:
    return run.wall_s


def _cpu(run: Run) -> float:
    return run.cpu_s


def _load(run: Run) -> float:
    return run.load


def _step(text: str) -> None:
    """One line per finished step, as it finishes: a long run stopped midway still says how far it got."""
    print(f"  {time.strftime('%H:%M:%S')} {text}", flush=True)


def exponent(sizes: list[float], values: list[float]) -> float:
    """Least-squares slope of log(value) on log(size): 1.0 is linear growth, 0 is flat."""
    pairs = [(math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if s > 0 and v > 0]
    if len(pairs) < 2:
        return float("nan")
    mx = statistics.fmean(x for x, _ in pairs)
    my = statistics.fmean(y for _, y in pairs)
    den = sum((x - mx) ** 2 for x, _ in pairs)
    return sum((x - mx) * (y - my) for x, y in pairs) / den if den else float("nan")


_SHOWN = (
    ("floor_load_s", "floor: raw bulk_load s"),
    ("floor_load_cpu_s", "floor: raw bulk_load CPU s"),
    ("floor_load_mb", "floor: raw bulk_load MB"),
    ("load_s", "saga load s"),
    ("load_cpu_s", "saga load CPU s (tree)"),
    ("load_mb", "saga load MB (tree)"),
    ("load_disk_mb", "store + index disk MB"),
    ("load_ratio_raw", "load / raw bulk_load"),
    ("load_cpu_ratio_raw", "load CPU / raw bulk_load CPU"),
    ("load_load_avg", "load average (load runs)"),
    ("survey_s", "survey s"),
    ("survey_cpu_s", "survey CPU s"),
    ("survey_mb", "survey MB"),
    ("survey_classes", "survey: classes surveyed"),
    ("survey_failures", "survey: probes failed"),
    ("search_p50_s", "search p50 s (CLI)"),
    ("search_cpu_p50_s", "search CPU p50 s"),
    ("cli_floor_s", "floor: saga --help s"),
    ("lookup_first_s", "lookup, first command s"),
    ("lookup_p50_s", "lookup p50 s (no --schema)"),
    ("lookup_schema_p50_s", "lookup p50 s (--schema)"),
    ("lookup_ratio", "lookup without / with"),
    ("recall", "exact-label recall"),
    ("selective_s", "sparql selective s (CLI)"),
    ("selective_floor_s", "floor: selective s (process)"),
    ("count_s", "sparql COUNT s (CLI)"),
    ("count_floor_s", "floor: COUNT s (process)"),
    ("load_average", "load average (end)"),
)


def main() -> None:
    """Measure every size, print the table and the growth exponents, end with RESULT."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--triples", default="1M,10M", help="comma-separated sizes (100M is opt-in)")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved floor/step pairs per ratio (at least 3)")
    parser.add_argument("--scratch", type=Path, default=None, help="scratch directory (default: a new one in /tmp)")
    parser.add_argument("--samples", type=int, default=5, help="CLI runs per search/lookup figure")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="skip the bare pyoxigraph/tantivy floors (their ratios print as nan): a 100M record of saga's own steps",
    )
    args = shrink(parser.parse_args(), triples="2K", pairs=1, samples=1)
    sizes = [_size(part) for part in args.triples.split(",") if part.strip()]
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="saga-scale-"))
    scratch.mkdir(parents=True, exist_ok=True)
    # Bytecode is written, as for an installed package (bench/startup.py does the same): with
    # PYTHONDONTWRITEBYTECODE set, every module edited since `make setup` compiled it was compiled
    # again by every CLI run (a search's CPU 0.41 -> 0.46-0.48 s with ~240 of its modules so; issue 39).
    inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env = {**inherited, "LANGSMITH_TRACING": "false", "SAGA_DATA_DIR": str(args.data_dir)}
    figures: list[dict[str, float]] = []
    try:
        for size in sizes:
            started = time.perf_counter()
            figures.append(measure(size, scratch, env, args.samples, args.pairs, floors=not args.no_floor))
            print(f"size {size}: measured in {time.perf_counter() - started:.0f} s", flush=True)
            # Each size's figures as they come: a long run stopped later still leaves them.
            print("figures " + json.dumps({k: round(v, 4) for k, v in figures[-1].items()}), flush=True)
            if not args.keep:
                shutil.rmtree(scratch / f"t{size}", ignore_errors=True)
    finally:
        if not args.keep and args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)
    triples = [f["triples"] for f in figures]
    print(f"{'step':<30}" + "".join(f"{int(t):>14,}" for t in triples) + f"{'exponent':>10}")
    for key, label in _SHOWN:
        values = [f[key] for f in figures]
        print(f"{label:<30}" + "".join(f"{v:>14.3f}" for v in values) + f"{exponent(triples, values):>10.2f}")
    last = figures[-1]
    print(
        f"RESULT triples={int(last['triples'])} load_ratio_raw={last['load_ratio_raw']:.2f} "
        f"load_cpu_ratio_raw={last['load_cpu_ratio_raw']:.2f} load_rss_gb={last['load_mb'] / 1024:.2f} "
        f"survey_rss_gb={last['survey_mb'] / 1024:.2f} "
        f"survey_rss_exponent={exponent(triples, [f['survey_mb'] for f in figures]):.2f} "
        f"survey_failures_max={max(f['survey_failures'] for f in figures):.0f} "
        f"search_p50_max_s={max(f['search_p50_s'] for f in figures):.3f} "
        f"lookup_ratio_max={max(f['lookup_ratio'] for f in figures):.2f} "
        f"recall_min={min(f['recall'] for f in figures):.3f} "
        f"load_time_exponent={exponent(triples, [f['load_s'] for f in figures]):.2f} "
        f"pairs={args.pairs} load_average={last['load_load_avg']:.1f}"
    )


if __name__ == "__main__":
    main()
