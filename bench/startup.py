"""Start-up time of the ``saga`` command line against its floors, side by side in one run.

Five command lines run as fresh processes, interleaved round by round (so a busy machine
slows them alike): ``saga --help``, ``saga sparql`` of a 4-row query and ``saga lookup`` of an
entity on the shipped example graph, and two floors: ``python -c "import typer, rich"`` (what
any typer command line pays, the floor of ``--help``) and a script that imports typer, rich
and pyoxigraph and parses the same query with rdflib's SPARQL parser (what a command that runs
one guarded query on a local store cannot avoid). Byte-code caching is on (unlike this
project's make targets, ``PYTHONDONTWRITEBYTECODE`` is dropped) and one warm-up round runs
first, as for an installed package. Ratios are of medians of wall time, with the same ratios of
CPU time (user + system, the query worker a command starts included) beside them and the load
average of each round. Targets (issue 39): help ≤ 1.1, sparql ≤ 1.5; lookup ≤ 2.

Usage: python bench/startup.py --data-dir ../shared/data [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from smoke import shrink, smoke

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


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, its reaped children such as a query worker included) of one run.

    A failing command stops the bench.
    """
    started = time.perf_counter()
    with subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        _, err = _drain(proc)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:2]} exited {proc.returncode}: {err.decode(errors='replace')[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Read both pipes to their end without reaping the process (its rusage is read by ``wait4``)."""
    assert proc.stdout is not None and proc.stderr is not None
    errors: list[bytes] = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read() if proc.stderr else b""))
    reader.start()
    out = proc.stdout.read()
    reader.join()
    return out, b"".join(errors)


def main() -> None:
    """Measure, print the medians as JSON and the ratios on the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="Third-party data (SAGA_DATA_DIR of the runs).")
    parser.add_argument("--rounds", type=int, default=7, help="Measured rounds (after one warm-up round).")
    args = shrink(parser.parse_args(), rounds=1)
    lines = command_lines()
    env = child_env(args.data_dir)
    for argv in [] if smoke() else lines.values():  # warm-up: byte-code caches, the OS's file cache
        run_once(argv, env)
    samples: dict[str, list[float]] = {name: [] for name in lines}
    cpu: dict[str, list[float]] = {name: [] for name in lines}
    loads: list[float] = []
    names = list(lines)
    for round_no in range(args.rounds):
        shift = round_no % len(names)  # rotate the order so no command always runs first
        for name in names[shift:] + names[:shift]:
            wall, used = run_once(lines[name], env)
            samples[name].append(wall)
            cpu[name].append(used)
        loads.append(os.getloadavg()[0])
    medians = {name: statistics.median(values) for name, values in samples.items()}
    cpu_medians = {name: statistics.median(values) for name, values in cpu.items()}
    pairs = {"help": "floor_help", "sparql": "floor_query", "lookup": "floor_query"}
    ratios = {f"{name}_ratio": medians[name] / medians[floor] for name, floor in pairs.items()}
    cpu_ratios = {f"{name}_cpu_ratio": cpu_medians[name] / cpu_medians[floor] for name, floor in pairs.items()}
    report = {
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "load_average_per_round": [round(x, 2) for x in loads],
        "median_s": {k: round(v, 3) for k, v in medians.items()},
        "min_s": {k: round(min(v), 3) for k, v in samples.items()},
        "cpu_median_s": {k: round(v, 3) for k, v in cpu_medians.items()},
    }
    print(json.dumps(report, indent=2))
    seconds = " ".join(f"{name}_s={value:.3f}" for name, value in medians.items())
    print(
        "RESULT "
        + " ".join(f"{k}={v:.2f}" for k, v in (ratios | cpu_ratios).items())
        + f" {seconds} load_average={statistics.median(loads):.1f}"
    )


if __name__ == "__main__":
    main()
