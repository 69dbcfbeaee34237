"""Store latency on Virtuoso: saga's remote backend versus plain SPARQLWrapper, same server, same queries.

Starts a Virtuoso 7.2.5 on loopback (tests/support/virtuoso_server.py: installs the Debian
package when absent and running as root), loads CK25 into a named graph and times, side by
side and interleaved in one run, each of the 50 CK25 reference queries (after the guard,
so both sides send the same text) through:

* saga's ``RemoteEndpoint`` under the ``virtuoso`` profile (deadline, byte cap, gate,
  ``default-graph-uri`` and ``timeout`` parameters, result parsing into typed terms);
* plain ``SPARQLWrapper`` with the same default graph, JSON results converted to dicts;
* plain ``SPARQLWrapper`` sending the same protocol parameters as saga, ``timeout``
  included: Virtuoso's anytime mode costs the *server* about a millisecond per query here,
  which the first ratio counts against saga and this one does not.

The order of the three alternates between rounds, so none always runs on a cache the
previous one warmed. Ends with ``RESULT virtuoso_p50_ratio=… same_params_p50_ratio=…
saga_p50_ms=… raw_p50_ms=… raw_same_params_p50_ms=…`` (target ``virtuoso_p50_ratio`` ≤ 1.2).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import yaml
from SPARQLWrapper import JSON, SPARQLWrapper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support, when run as a script

from saga_kgqa.errors import SagaError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile, protocol_params
from saga_kgqa.kg.guard.query_guard import QueryGuard
from saga_kgqa.kg.opening import open_backend
from smoke import first, shrink
from tests.support.virtuoso_server import CK25_GRAPH, ensure_installed, virtuoso_server


def main() -> None:
    """Run the benchmark and print one RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--repeats", type=int, default=5, help="rounds over the 50 queries")
    args = shrink(parser.parse_args(), repeats=1)
    base = args.data_dir / "text2sparql_ck25"
    problem = ensure_installed()
    if problem:
        raise SystemExit(problem)
    questions = yaml.safe_load((base / "questions.yml").read_text(encoding="utf-8"))["questions"]
    guard = QueryGuard(get_profile("virtuoso"))
    checked = [guard.check(q["query"]["sparql"]) for q in first(questions, 5)]
    limits = ExecutionLimits(deadline_s=30, max_rows=10_000)
    with tempfile.TemporaryDirectory(prefix="saga-virtuoso-bench-") as tmp, virtuoso_server(Path(tmp)) as server:
        server.load(base / "prod-inst.ttl", CK25_GRAPH)
        backend = open_backend(endpoint=server.url, profile="virtuoso", default_graphs=[CK25_GRAPH])
        raw = _wrapper(server.url, [("default-graph-uri", CK25_GRAPH)])
        # What saga sends for a query with the whole 30 s deadline left.
        same = _wrapper(server.url, protocol_params(backend_profile(), remaining_s=limits.deadline_s))

        def run_saga(index: int) -> None:
            with contextlib.suppress(SagaError):
                backend.execute(checked[index], limits)

        sides: dict[str, Callable[[int], None]] = {
            "saga": run_saga,
            "raw": lambda index: _run_raw(raw, checked[index].text),
            "same": lambda index: _run_raw(same, checked[index].text),
        }
        times: dict[str, dict[int, list[float]]] = {name: {i: [] for i in range(len(checked))} for name in sides}
        cpu = dict.fromkeys(sides, 0.0)
        for index in range(len(checked)):  # warm every path and the server's caches
            for side in sides.values():
                side(index)
        for round_ in range(args.repeats):
            order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
            for index in range(len(checked)):
                for name, side in order:
                    started, cpu_started = time.perf_counter(), time.process_time()
                    side(index)
                    times[name][index].append(time.perf_counter() - started)
                    cpu[name] += time.process_time() - cpu_started
        backend.close()
    p50 = {name: statistics.median(t for per in by_query.values() for t in per) for name, by_query in times.items()}
    per_query = [statistics.median(times["saga"][i]) / statistics.median(times["raw"][i]) for i in times["saga"]]
    calls = len(checked) * args.repeats
    # Client CPU per query (this process, watchdog thread included): what load on a shared machine blurs least.
    print(
        f"queries={len(checked)} repeats={args.repeats} per-query ratio p50={statistics.median(per_query):.3f} "
        + " ".join(f"{name}_cpu_ms={cpu[name] / calls * 1000:.3f}" for name in sides)
    )
    print(
        f"RESULT virtuoso_p50_ratio={p50['saga'] / p50['raw']:.3f} "
        f"same_params_p50_ratio={p50['saga'] / p50['same']:.3f} saga_p50_ms={p50['saga'] * 1000:.2f} "
        f"raw_p50_ms={p50['raw'] * 1000:.2f} raw_same_params_p50_ms={p50['same'] * 1000:.2f}"
    )


def backend_profile() -> EndpointProfile:
    """The virtuoso profile with the bench's default graph, as ``open_backend`` configures it."""
    return replace(get_profile("virtuoso"), default_graphs=(CK25_GRAPH,))


def _wrapper(url: str, params: list[tuple[str, str]]) -> SPARQLWrapper:
    wrapper = SPARQLWrapper(url)
    wrapper.setReturnFormat(JSON)
    for name, value in params:
        wrapper.addParameter(name, value)
    return wrapper


def _run_raw(wrapper: SPARQLWrapper, text: str) -> None:
    wrapper.setQuery(text)
    # q25 fails on Virtuoso (integer division by zero) on every side alike; it is timed too.
    with contextlib.suppress(Exception):
        wrapper.query().convert()


if __name__ == "__main__":
    main()
