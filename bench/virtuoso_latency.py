"""Store latency on Virtuoso: saga's remote backend versus plain SPARQLWrapper, same server, same queries.

Starts a Virtuoso 7.2.5 on loopback (tests/support/virtuoso_server.py: installs the Debian
package when absent and running as root), loads CK25 into a named graph and times, side by
side and interleaved in one run, each of the 50 CK25 reference queries (after the guard,
so both sides send the same text) through:

* saga's ``RemoteEndpoint`` under the ``virtuoso`` profile (deadline, byte cap, gate,
  ``default-graph-uri`` and ``timeout`` parameters, result parsing into typed terms);
* plain ``SPARQLWrapper`` with the same default graph, JSON results converted to dicts.

Ends with ``RESULT virtuoso_p50_ratio=… saga_p50_ms=… raw_p50_ms=…`` (target ratio ≤ 1.2).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from SPARQLWrapper import JSON, SPARQLWrapper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support, when run as a script

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.kg.opening import open_backend
from tests.support.virtuoso_server import CK25_GRAPH, ensure_installed, virtuoso_server


def main() -> None:
    """Run the benchmark and print one RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--repeats", type=int, default=5, help="rounds over the 50 queries")
    args = parser.parse_args()
    base = args.data_dir / "text2sparql_ck25"
    problem = ensure_installed()
    if problem:
        raise SystemExit(problem)
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    guard = QueryGuard(get_profile("virtuoso"))
    checked = [guard.check(q["query"]["sparql"]) for q in questions]
    limits = ExecutionLimits(deadline_s=30, max_rows=10_000)
    with tempfile.TemporaryDirectory(prefix="saga-virtuoso-bench-") as tmp, virtuoso_server(Path(tmp)) as server:
        server.load(base / "prod-inst.ttl", CK25_GRAPH)
        backend = open_backend(endpoint=server.url, profile="virtuoso", default_graphs=[CK25_GRAPH])
        raw = SPARQLWrapper(server.url)
        raw.setReturnFormat(JSON)
        raw.addDefaultGraph(CK25_GRAPH)

        def run_raw(text: str) -> None:
            raw.setQuery(text)
            # q25 fails on Virtuoso (integer division by zero) on both sides alike; it is timed too.
            with contextlib.suppress(Exception):
                raw.query().convert()

        def run_saga(index: int) -> None:
            with contextlib.suppress(SagaError):
                backend.execute(checked[index], limits)

        saga_times: dict[int, list[float]] = {i: [] for i in range(len(checked))}
        raw_times: dict[int, list[float]] = {i: [] for i in range(len(checked))}
        for index, query in enumerate(checked):  # warm both paths and the server's caches
            run_saga(index)
            run_raw(query.text)
        for _ in range(args.repeats):
            for index, query in enumerate(checked):
                started = time.perf_counter()
                run_saga(index)
                saga_times[index].append(time.perf_counter() - started)
                started = time.perf_counter()
                run_raw(query.text)
                raw_times[index].append(time.perf_counter() - started)
        backend.close()
    saga_p50 = statistics.median(t for times in saga_times.values() for t in times)
    raw_p50 = statistics.median(t for times in raw_times.values() for t in times)
    per_query = [statistics.median(saga_times[i]) / statistics.median(raw_times[i]) for i in saga_times]
    print(f"queries={len(checked)} repeats={args.repeats} per-query ratio p50={statistics.median(per_query):.3f}")
    print(
        f"RESULT virtuoso_p50_ratio={saga_p50 / raw_p50:.3f} saga_p50_ms={saga_p50 * 1000:.2f} "
        f"raw_p50_ms={raw_p50 * 1000:.2f}"
    )


if __name__ == "__main__":
    main()
