"""Start-up time of the ``saga`` command line against its floors, side by side in one run.

Five command lines run as fresh processes, interleaved round by round (so a busy machine
slows them alike): ``saga --help``, ``saga sparql`` of a 4-row query and ``saga lookup`` of an
entity on the shipped example graph, and two floors: ``python -c "import typer, rich"`` (what
any typer command line pays, the floor of ``--help``) and a script that imports typer, rich
and pyoxigraph and parses the same query with rdflib's SPARQL parser (what a command that runs
one guarded query on a local store cannot avoid). Byte-code caching is on (unlike this
project's make targets, ``PYTHONDONTWRITEBYTECODE`` is dropped) and one warm-up round runs
first, as for an installed package. Ratios are of medians. Targets: help ≤ 1.5, sparql and
lookup ≤ 2.

Usage: python bench/startup.py --data-dir ../shared/data [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERY = "PREFIX ex: <http://example.org/space/> SELECT ?mission WHERE { ?mission ex:crewMember ?who } LIMIT 4"
ENTITY = "ex:JimLovell"
FLOOR_QUERY = (
    f"import typer, rich, pyoxigraph\nfrom rdflib.plugins.sparql.parser import parseQuery\nparseQuery({QUERY!r})\n"
)


def command_lines() -> dict[str, list[str]]:
    """The measured command lines by name, run with this interpreter's environment."""
    python = sys.executable
    saga = str(Path(python).with_name("saga"))
    return {
        "help": [saga, "--help"],
        "floor_help": [python, "-c", "import typer, rich"],
        "sparql": [saga, "sparql", QUERY],
        "lookup": [saga, "lookup", ENTITY],
        "floor_query": [python, "-c", FLOOR_QUERY],
    }


def child_env(data_dir: Path) -> dict[str, str]:
    """The environment of every measured process: byte-code cached, no tracing."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONDONTWRITEBYTECODE", "LANGCHAIN_TRACING_V2"}}
    return env | {"LANGSMITH_TRACING": "false", "SAGA_DATA_DIR": str(data_dir)}


def run_once(argv: list[str], env: dict[str, str]) -> float:
    """Wall time of one run of ``argv``; a failing command stops the bench."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[:2]} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    """Measure, print the medians as JSON and the ratios on the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="Third-party data (SAGA_DATA_DIR of the runs).")
    parser.add_argument("--rounds", type=int, default=7, help="Measured rounds (after one warm-up round).")
    args = parser.parse_args()
    lines = command_lines()
    env = child_env(args.data_dir)
    for argv in lines.values():  # warm-up: byte-code caches, the OS's file cache
        run_once(argv, env)
    samples: dict[str, list[float]] = {name: [] for name in lines}
    names = list(lines)
    for round_no in range(args.rounds):
        shift = round_no % len(names)  # rotate the order so no command always runs first
        for name in names[shift:] + names[:shift]:
            samples[name].append(run_once(lines[name], env))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    ratios = {
        "help_ratio": medians["help"] / medians["floor_help"],
        "sparql_ratio": medians["sparql"] / medians["floor_query"],
        "lookup_ratio": medians["lookup"] / medians["floor_query"],
    }
    report = {
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "median_s": {k: round(v, 3) for k, v in medians.items()},
        "min_s": {k: round(min(v), 3) for k, v in samples.items()},
    }
    print(json.dumps(report, indent=2))
    seconds = " ".join(f"{name}_s={value:.3f}" for name, value in medians.items())
    print("RESULT " + " ".join(f"{k}={v:.2f}" for k, v in ratios.items()) + " " + seconds)


if __name__ == "__main__":
    main()
