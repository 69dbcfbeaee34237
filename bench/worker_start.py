"""Embedded query worker: start-to-first-answer time against bare pyoxigraph, and memory-bomb peaks.

Side by side in one run, on the CK25 graph (``text2sparql_ck25`` under ``--data-dir``):

* the worker's start to its first answer: a fresh :class:`EmbeddedStore` runs one guard
  query (``ASK``), so the time covers starting the worker process, its imports, opening the
  store and answering;
* a bare ``python -P -c "import pyoxigraph"`` process started the same way (``subprocess``);
* the peak resident memory of the worker over the issue's three memory bombs (cartesian
  ``ORDER BY``, a ``BIND(CONCAT)`` doubling chain, one 64 MiB cell) under the worker's cap
  (``--memory-mb``); the bombs run in a child process that is itself under ``RLIMIT_AS``.

Ends with ``RESULT worker_start_ratio=… worker_start_ms=… bare_start_ms=… bomb_peak_mb=…``
(target: ``worker_start_ratio`` at most 3).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from smoke import shrink


def guard_query(text: str, form: str = "SELECT") -> CheckedQuery:
    """A query as the backend receives it from the guard."""
    # The bench plays the guard's part: these exact texts are what a model could send.
    return CheckedQuery(text=text, form=form, origin="guard", source_text=text)  # type: ignore[arg-type]


def bombs() -> dict[str, str]:
    """The issue's three memory bombs, by name."""
    concat = "".join(f"BIND(CONCAT(?a{i}, ?a{i}) AS ?a{i + 1}) " for i in range(40))
    cell = "".join(f"BIND(CONCAT(?a{i}, ?a{i}) AS ?a{i + 1}) " for i in range(26))
    return {
        "order_by": "SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 10",
        "concat_chain": 'SELECT ?a40 WHERE { BIND("' + "x" * 64 + '" AS ?a0) ' + concat + "}",
        "huge_cell": 'SELECT ?a26 WHERE { BIND("x" AS ?a0) ' + cell + "}",
    }


def time_worker_start(store_dir: Path, rounds: int) -> list[float]:
    """Seconds from a fresh store's first guard query to its answer, per round."""
    times = []
    for _ in range(rounds):
        with EmbeddedStore(store_dir) as store:
            started = time.perf_counter()
            assert store.execute(guard_query("ASK { ?s ?p ?o }", "ASK")).boolean is True
            times.append(time.perf_counter() - started)
    return times


def time_bare_start(rounds: int) -> list[float]:
    """Seconds of a bare pyoxigraph import process, per round."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-P", "-c", "import pyoxigraph"], check=True)
        times.append(time.perf_counter() - started)
    return times


def run_bombs(store_dir: Path, memory_mb: int) -> None:
    """Child mode: run each bomb, print one JSON line with outcomes and the workers' peak RSS."""
    outcomes = {}
    with EmbeddedStore(store_dir, worker_memory_mb=memory_mb) as store:
        for name, text in bombs().items():
            started = time.perf_counter()
            try:
                result = store.execute(guard_query(text), ExecutionLimits(deadline_s=120.0, max_rows=10))
                outcome = f"ok truncated={result.truncated}"
            except SagaError as exc:
                outcome = type(exc).__name__
            outcomes[name] = f"{outcome} in {time.perf_counter() - started:.1f} s"
    # ru_maxrss of reaped children (workers and their watchdogs) is in KiB on Linux.
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"outcomes": outcomes, "peak_mb": peak_mb}))


def measure_bombs(store_dir: Path, memory_mb: int) -> dict[str, object]:
    """Run the bombs in a child under RLIMIT_AS (the worker's cap plus 1 GiB) and return its JSON."""
    cap = (memory_mb + 1024) * 1024 * 1024

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    done = subprocess.run(
        [sys.executable, __file__, "--bombs", str(store_dir), "--memory-mb", str(memory_mb)],
        capture_output=True,
        text=True,
        timeout=900,
        preexec_fn=limit,  # the bench is single-threaded here
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bomb child failed ({done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    """Run the bench and print the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--memory-mb", type=int, default=2048, help="the worker's address-space cap for the bombs")
    parser.add_argument("--bombs", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bombs is None:  # the bombs' own child process keeps the options it was given
        shrink(args, rounds=1, memory_mb=512)
    if args.bombs is not None:
        run_bombs(args.bombs, args.memory_mb)
        return
    folder = args.data_dir / "text2sparql_ck25"
    files = [folder / "prod-inst.ttl", folder / "prod-vocab.ttl"]
    workdir = Path(tempfile.mkdtemp(prefix="saga-bench-worker-"))
    try:
        store_dir = workdir / "store"
        triples = load_files(store_dir, files)
        time_bare_start(1)  # warm the page cache for both sides alike
        time_worker_start(store_dir, 1)
        worker = time_worker_start(store_dir, args.rounds)
        bare = time_bare_start(args.rounds)
        bomb = measure_bombs(store_dir, args.memory_mb)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    worker_ms = statistics.median(worker) * 1000
    bare_ms = statistics.median(bare) * 1000
    print(f"CK25: {triples} triples; {args.rounds} rounds each, medians; cpus={os.cpu_count()}")
    print(f"{'worker start to first answer':<34} {worker_ms:8.1f} ms")
    print(f"{'bare python -P -c import pyoxigraph':<34} {bare_ms:8.1f} ms")
    for name, outcome in bomb["outcomes"].items():  # type: ignore[attr-defined]
        print(f"bomb {name:<29} {outcome}")
    print(f"{'worker peak RSS over the bombs':<34} {bomb['peak_mb']:8.0f} MiB (cap {args.memory_mb} MiB address space)")
    print(
        f"RESULT worker_start_ratio={worker_ms / bare_ms:.2f} worker_start_ms={worker_ms:.1f} "
        f"bare_start_ms={bare_ms:.1f} bomb_peak_mb={bomb['peak_mb']:.0f}"
    )


if __name__ == "__main__":
    main()
