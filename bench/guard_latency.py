"""Latency of the read-only query guard (QueryGuard.check) on real benchmark queries.

Reports p50 / p95 per query for the guard and, as a baseline, for rdflib's public
``prepareQuery`` (parse + algebra, what a plain rdflib-based guard would cost), over the
50 CK25 reference queries and optionally Spider4SPARQL dev and SPINACH dev.

Usage: python bench/guard_latency.py --data-dir ../shared/data [--rounds 5] [--all]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import yaml
from rdflib.plugins.sparql import prepareQuery

from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard.query_guard import QueryGuard


def percentiles(samples: list[float]) -> dict[str, float]:
    """p50, p95 and mean of ``samples`` (seconds), in milliseconds."""
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 2),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 2),
    }


def measure(function: Callable[[str], object], queries: list[str], rounds: int) -> dict[str, float]:
    """Time ``function`` on every query, ``rounds`` times, after one warm-up pass."""

    def call(text: str) -> None:
        # Rejected queries (QueryRejected, rdflib errors) are timed too.
        with contextlib.suppress(Exception):
            function(text)

    for text in queries:  # warm-up: imports, regex compilation, first-parse streamlining
        call(text)
    samples: list[float] = []
    for _ in range(rounds):
        for text in queries:
            started = time.perf_counter()
            call(text)
            samples.append(time.perf_counter() - started)
    return percentiles(samples)


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
    args = parser.parse_args()
    for name, (profile_name, queries) in load_sets(args.data_dir, args.all).items():
        profile = get_profile(profile_name)
        guard = QueryGuard(profile)
        rounds = args.rounds if len(queries) <= 200 else 1
        report = {
            "set": name,
            "queries": len(queries),
            "rounds": rounds,
            "guard_check": measure(guard.check, queries, rounds),
            "rdflib_prepareQuery": measure(partial(prepareQuery, initNs=dict(profile.prefixes)), queries, rounds),
        }
        print(json.dumps(report))


if __name__ == "__main__":
    main()
