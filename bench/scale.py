"""Scale: load, survey, search, lookup and queries at growing graph sizes, against bare floors.

For each size (``--triples 100k,1M,10M``; ``100M`` is opt-in: tens of minutes, ~30 GB of disk) a
seeded graph of realistic shape (``bench/scale_graph.py``: classes, declared domains and ranges,
labelled instances, object and datatype properties) is written to a scratch directory (never
the repository), and every step runs in its own process, so its peak RSS is its own:

* ``load``: ``saga load`` (store, survey and full-text name index); floor: pyoxigraph's
  ``bulk_load`` of the file plus tantivy indexing the same label and code literals, each in a
  bare process (the sum is the floor's time, the larger peak its memory).
* ``survey``: the bounded survey rebuilt (``--refresh``) on the loaded store.
* ``search``: ``saga search --data STORE`` on held-out labels, p50 with the CLI's start.
* ``lookup``: ``saga lookup --data STORE`` without ``--schema`` and with one, p50 each.
* ``recall``: exact-label search of sampled entities (seeded; the sample is drawn after the
  code was written and never used to tune it), top hit = the entity.
* ``selective`` / ``count``: ``saga sparql`` of one entity's triples and a COUNT of all triples;
  floor: the same query in a bare pyoxigraph process.

Reports time, peak RSS and disk per step and size, the growth exponent of each (a least-squares
fit of log value on log triples) and ends with one ``RESULT`` line.

Usage: python bench/scale.py [--data-dir ../shared/data] [--triples 100k,1M,10M] [--scratch DIR] [--no-floor]
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
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contextlib

import scale_graph

_FLOOR_LOAD = """
import sys, pyoxigraph as ox
store = ox.Store(sys.argv[2]); store.bulk_load(path=sys.argv[1], format=ox.RdfFormat.N_TRIPLES)
store.flush(); store.optimize(); print(len(store))
"""
_FLOOR_INDEX = """
import sys, tempfile, tantivy, pyoxigraph as ox
store = ox.Store.read_only(sys.argv[1])
builder = tantivy.SchemaBuilder()
builder.add_text_field("iri", stored=True, tokenizer_name="raw")
builder.add_text_field("name", stored=True)
index = tantivy.Index(builder.build(), path=sys.argv[2])
writer = index.writer(heap_size=64_000_000, num_threads=1)
n = 0
for p in sys.argv[3:]:
    for quad in store.quads_for_pattern(None, ox.NamedNode(p), None, None):
        writer.add_document(tantivy.Document(iri=quad.subject.value, name=quad.object.value)); n += 1
writer.commit(); writer.wait_merging_threads(); print(n)
"""
_FLOOR_QUERY = """
import sys, time, pyoxigraph as ox
started = time.perf_counter()
store = ox.Store.read_only(sys.argv[1])
rows = list(store.query(sys.argv[2]))
print(len(rows), time.perf_counter() - started)
"""
_SURVEY = """
import sys, time
from pathlib import Path
from saga_kgqa.sources.catalog import Catalog, SourceRecord
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
_NAME_PREDICATES = (scale_graph.RDFS + "label", scale_graph.EX + "code")


def _size(text: str) -> int:
    text = text.strip().upper()
    factor = {"K": 1_000, "M": 1_000_000, "G": 1_000_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run a step in a fresh process; its wall time and peak RSS (MB) with its helper processes.

    The peak is the larger of the step's own ``ru_maxrss`` and the peak of the summed RSS of
    its whole process tree sampled every 50 ms: a step whose work runs in a child (the
    embedded store's query worker) is charged for it, not only for the process that waits.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    tree_peak = [0.0]
    done = threading.Event()
    sampler = threading.Thread(target=_sample_tree, args=(proc.pid, done, tree_peak), daemon=True)
    sampler.start()
    # Read both pipes to the end (communicate() would reap the child and lose its rusage).
    out, err = _drain(proc)
    done.set()
    sampler.join()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"step failed ({code}): {' '.join(argv[:6])}\n{err[-2000:]}")
    return seconds, max(usage.ru_maxrss / 1024, tree_peak[0]), out


def _tree_rss_mb(root: int) -> float:
    """Summed resident memory of a process and all its descendants (Linux /proc), in MB."""
    total, pending, seen = 0, [root], set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue
        seen.add(pid)
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{pid}/task").iterdir():
                pending.extend(int(child) for child in (task / "children").read_text().split())
    return total / 1024


def _sample_tree(root: int, done: threading.Event, peak: list[float]) -> None:
    while not done.wait(0.05):
        peak[0] = max(peak[0], _tree_rss_mb(root))


def _drain(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stdout is not None and proc.stderr is not None
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read() if proc.stderr else ""))
    reader.start()
    out = proc.stdout.read()
    reader.join()
    return out, "".join(errors)


def _disk_mb(path: Path) -> float:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, name)).st_size
    return total / 1024 / 1024


def _saga(*args: str) -> list[str]:
    return [sys.executable, "-m", "saga_kgqa", *args]


def _p50(values: list[float]) -> float:
    return statistics.median(values)


def measure(triples: int, scratch: Path, env: dict[str, str], samples: int, floors: bool = True) -> dict[str, float]:
    """All steps at one size; returns the figures by name (floors and their ratios are NaN without ``floors``)."""
    work = scratch / f"t{triples}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {**env, "SAGA_SURVEY_DIR": str(work / "cache"), "SAGA_STORE_CACHE_DIR": str(work / "stores")}
    nt = work / "graph.nt"
    written, entities = scale_graph.generate(nt, triples)
    fig: dict[str, float] = {"triples": written}
    py = sys.executable

    _step(f"generated {written:,} triples")
    nan = float("nan")
    fig.update(floor_load_s=nan, floor_load_mb=nan, floor_disk_mb=nan, floor_index_s=nan, floor_index_mb=nan)
    if floors:
        fig["floor_load_s"], fig["floor_load_mb"], _ = _timed(
            [py, "-c", _FLOOR_LOAD, str(nt), str(work / "floor")], env
        )
        fig["floor_disk_mb"] = _disk_mb(work / "floor")
        index_dir = work / "floor-index"
        index_dir.mkdir()
        seconds, peak, _ = _timed([py, "-c", _FLOOR_INDEX, str(work / "floor"), str(index_dir), *_NAME_PREDICATES], env)
        fig["floor_index_s"], fig["floor_index_mb"] = seconds, peak
        shutil.rmtree(index_dir, ignore_errors=True)
        _step(f"floors: bulk_load {fig['floor_load_s']:.1f} s, tantivy names {seconds:.1f} s")

    store = work / "store"
    fig["load_s"], fig["load_mb"], _ = _timed(_saga("load", str(nt), "--store", str(store)), env)
    fig["load_disk_mb"] = _disk_mb(store)
    fig["load_ratio"] = fig["load_s"] / (fig["floor_load_s"] + fig["floor_index_s"])
    _step(f"saga load {fig['load_s']:.1f} s, {fig['load_mb']:.0f} MB, {fig['load_disk_mb']:.0f} MB on disk")
    nt.unlink()  # the store holds it now; keeps the scratch disk small at 100M
    shutil.rmtree(work / "floor", ignore_errors=True)

    fig["survey_s"], fig["survey_mb"], surveyed = _timed([py, "-c", _SURVEY, str(store)], env)
    # A survey whose probes ran past their deadlines is fast and small but empty: say what it found.
    fig["survey_classes"], fig["survey_failures"] = (float(n) for n in surveyed.split()[-2:])
    _step(
        f"survey {fig['survey_s']:.1f} s, {fig['survey_mb']:.0f} MB, {fig['survey_classes']:.0f} classes, "
        f"{fig['survey_failures']:.0f} probes failed"
    )

    # Held out: drawn with a seed the code was never run against while it was tuned.
    rng = random.Random(2727 + triples)
    sample = [rng.randrange(entities) for _ in range(max(samples, 3))]
    search_s = [
        _timed(_saga("search", "--data", str(store), scale_graph.entity_label(n)), env)[0] for n in sample[:samples]
    ]
    fig["search_p50_s"] = _p50(search_s)
    _step(f"search p50 {fig['search_p50_s']:.2f} s")
    # The CLI's own start (interpreter, typer, the command table): the part of every CLI figure no store changes.
    fig["cli_floor_s"] = _p50([_timed(_saga("--help"), env)[0] for _ in range(samples)])
    schema_file = work / "schema.json"
    _timed(_saga("index", "build", "--out", str(schema_file), "--data", str(store)), env)
    with_schema = [
        _timed(_saga("lookup", "--data", str(store), "--schema", str(schema_file), scale_graph.entity_iri(n)), env)[0]
        for n in sample[:samples]
    ]
    without = [_timed(_saga("lookup", "--data", str(store), scale_graph.entity_iri(n)), env) for n in sample[:samples]]
    fig["lookup_first_s"] = without[0][0]  # the first command builds the content's schema index
    fig["lookup_p50_s"] = _p50([t for t, _, _ in without[1:]] or [without[0][0]])
    fig["lookup_schema_p50_s"] = _p50(with_schema)
    fig["lookup_ratio"] = fig["lookup_p50_s"] / fig["lookup_schema_p50_s"]
    _step(f"lookup p50 {fig['lookup_p50_s']:.2f} s without --schema, {fig['lookup_schema_p50_s']:.2f} s with")

    recall_sample = [(scale_graph.entity_iri(n), scale_graph.entity_label(n)) for n in rng.sample(range(entities), 200)]
    fig["recall"] = float(_timed([py, "-c", _RECALL, str(store), json.dumps(recall_sample)], env)[2].strip())

    one = scale_graph.entity_iri(sample[0])
    selective = f"SELECT ?p ?o WHERE {{ <{one}> ?p ?o }}"
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    for name, text in (("selective", selective), ("count", count)):
        fig[f"{name}_s"], fig[f"{name}_mb"], _ = _timed(
            _saga("sparql", "--data", str(store), "--timeout", "600", text), env
        )
        fig[f"{name}_floor_s"] = (
            float(_timed([py, "-c", _FLOOR_QUERY, str(store), text], env)[2].split()[1]) if floors else nan
        )
        _step(f"sparql {name} {fig[name + '_s']:.2f} s, {fig[name + '_mb']:.0f} MB")
    return fig


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
    ("floor_load_s", "floor: bulk_load s"),
    ("floor_load_mb", "floor: bulk_load MB"),
    ("floor_index_s", "floor: tantivy names s"),
    ("load_s", "saga load s"),
    ("load_mb", "saga load MB"),
    ("load_disk_mb", "store + index disk MB"),
    ("load_ratio", "load / floor"),
    ("survey_s", "survey s"),
    ("survey_mb", "survey MB"),
    ("survey_classes", "survey: classes surveyed"),
    ("survey_failures", "survey: probes failed"),
    ("search_p50_s", "search p50 s (CLI)"),
    ("cli_floor_s", "floor: saga --help s"),
    ("lookup_first_s", "lookup, first command s"),
    ("lookup_p50_s", "lookup p50 s (no --schema)"),
    ("lookup_schema_p50_s", "lookup p50 s (--schema)"),
    ("lookup_ratio", "lookup without / with"),
    ("recall", "exact-label recall"),
    ("selective_s", "sparql selective s (CLI)"),
    ("selective_floor_s", "floor: selective s"),
    ("count_s", "sparql COUNT s (CLI)"),
    ("count_floor_s", "floor: COUNT s"),
)


def main() -> None:
    """Measure every size, print the table and the growth exponents, end with RESULT."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--triples", default="100k,1M,10M", help="comma-separated sizes (100M is opt-in)")
    parser.add_argument("--scratch", type=Path, default=None, help="scratch directory (default: a new one in /tmp)")
    parser.add_argument("--samples", type=int, default=5, help="CLI runs per search/lookup figure")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--no-floor",
        action="store_true",
        help="skip the bare pyoxigraph/tantivy floors (their ratios print as nan): a 100M record of saga's own steps",
    )
    args = parser.parse_args()
    sizes = [_size(part) for part in args.triples.split(",") if part.strip()]
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="saga-scale-"))
    scratch.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LANGSMITH_TRACING": "false", "SAGA_DATA_DIR": str(args.data_dir)}
    figures: list[dict[str, float]] = []
    try:
        for size in sizes:
            started = time.perf_counter()
            figures.append(measure(size, scratch, env, args.samples, floors=not args.no_floor))
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
        f"RESULT triples={int(last['triples'])} load_ratio={last['load_ratio']:.2f} "
        f"load_rss_gb={last['load_mb'] / 1024:.2f} survey_rss_gb={last['survey_mb'] / 1024:.2f} "
        f"survey_rss_exponent={exponent(triples, [f['survey_mb'] for f in figures]):.2f} "
        f"survey_failures_max={max(f['survey_failures'] for f in figures):.0f} "
        f"search_p50_max_s={max(f['search_p50_s'] for f in figures):.3f} "
        f"lookup_ratio_max={max(f['lookup_ratio'] for f in figures):.2f} "
        f"recall_min={min(f['recall'] for f in figures):.3f} "
        f"load_time_exponent={exponent(triples, [f['load_s'] for f in figures]):.2f}"
    )


if __name__ == "__main__":
    main()
