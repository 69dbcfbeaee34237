"""Latency of the read-only query guard (QueryGuard.check) on real benchmark queries.

Reports p50 / p95 per query for the guard and, as a baseline, for rdflib's public
``prepareQuery`` (parse + algebra, what a plain rdflib-based guard would cost), over the
50 CK25 reference queries and optionally Spider4SPARQL dev and SPINACH dev, the two interleaved query by
query. Ends with ``RESULT`` on CK25: the guard's p50/p95, rdflib's p50 and their ratio, the load average.

Usage: python bench/guard_latency.py --data-dir ../shared/data [--rounds 5] [--all]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml
from rdflib.plugins.sparql import prepareQuery

from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.query_guard import QueryGuard
from smoke import first, shrink


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95 and mean of ``samples`` (seconds), in milliseconds."""
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 2),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2),
    }


def measure(
    functions: dict[str, Callable[[str], object]], queries: list[str], rounds: int
) -> dict[str, dict[str, float]]:
    """Time every function on every query, ``rounds`` times, after one warm-up pass, interleaved.

    The functions take turns query by query (their order alternating each round), so a busy
    machine slows them alike and their ratio stays fair.
    """

    def call(function: Callable[[str], object], text: str) -> float:
        started = time.perf_counter()
        # Rejected queries (QueryRejected, rdflib errors) are timed too.
        with contextlib.suppress(Exception):
            function(text)
        return time.perf_counter() - started

    names = list(functions)
    for text in queries:  # warm-up: imports, regex compilation, the guard's grammar, first-parse streamlining
        for name in names:
            call(functions[name], text)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_no in range(rounds):
        order = names if round_no % 2 == 0 else names[::-1]
        for text in queries:
            for name in order:
                samples[name].append(call(functions[name], text))
    return {name: percentiles(values) for name, values in samples.items()}


def load_sets(data_dir: Path, everything: bool) -> dict[str, tuple[str, list[str]]]:
    """Query sets by name, each with the profile it runs under."""
    questions = yaml.safe_load((data_dir / "text2sparql_ck25" / "questions.yml").read_text(encoding="utf-8"))
    sets = {"ck25": ("embedded", [item["query"]["sparql"] for item in questions["questions"]])}
    if everything:
        spider = json.loads((data_dir / "spider4sparql" / "dev.json").read_text(encoding="utf-8"))
        sets["spider4sparql_dev"] = ("embedded", ["PREFIX : <http://valuenet/ontop/>\n" + i["query"] for i in spider])
        spinach = json.loads((data_dir / "spinach" / "dev.json").read_text(encoding="utf-8"))
        sets["spinach_dev"] = ("wikidata", [item["sparql"] for item in spinach])
    return sets


def main() -> None:
    """Print one JSON line per query set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--all", action="store_true", help="also Spider4SPARQL dev and SPINACH dev (slower)")
    args = shrink(parser.parse_args(), rounds=1)
    results: list[dict[str, object]] = []
    for name, (profile_name, every_query) in load_sets(args.data_dir, args.all).items():
        queries = first(every_query, 10)
        profile = get_profile(profile_name)
        guard = QueryGuard(profile)
        rounds = args.rounds if len(queries) <= 200 else 1
        timings = measure(
            {"guard_check": guard.check, "rdflib_prepareQuery": partial(prepareQuery, initNs=dict(profile.prefixes))},
            queries,
            rounds,
        )
        report = {"set": name, "queries": len(queries), "rounds": rounds, **timings}
        results.append(report)
        print(json.dumps(report))
    ck25 = results[0]
    guard_ms, rdflib_ms = ck25["guard_check"], ck25["rdflib_prepareQuery"]
    assert isinstance(guard_ms, dict) and isinstance(rdflib_ms, dict)
    print(
        f"RESULT queries={ck25['queries']} guard_p50_ms={guard_ms['p50_ms']} guard_p95_ms={guard_ms['p95_ms']} "
        f"rdflib_p50_ms={rdflib_ms['p50_ms']} guard_vs_rdflib_p50={guard_ms['p50_ms'] / rdflib_ms['p50_ms']:.2f} "
        f"fast_grammar={sparql_grammar.fast_grammar()} load_average={os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
