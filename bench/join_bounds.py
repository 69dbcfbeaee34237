"""A join's cross product on every face: memory above idle and time, two sources of N rows sharing one key.

Issue 38, point 1: two sources whose 1,000 rows share one key give a 10^6-row product. The join
must stop at the row cap before building anything more, honour the deadline and stay within
100 MB above idle on every face. Per face, an idle figure (the same command on two one-row
sources) is taken beside the product's, interleaved, ``--repeats`` times:

* ``cli``: ``saga source join`` (peak RSS of the process, from ``wait4``);
* ``mcp``: ``saga mcp`` over stdio, two ``kg_join_sources`` calls at once (the server's VmHWM);
* ``agent``: the agent's ``join`` path, :func:`saga_kgqa.sources.federation.join_sources` in a
  fresh process (its peak RSS).

``--data-dir`` is accepted for the bench convention; the sources are generated (no data needed).

Usage: python bench/join_bounds.py [--rows 1000] [--repeats 2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from smoke import shrink

L, R = "http://left.example/", "http://right.example/"
FIRST = f"SELECT ?c ?key WHERE {{ ?c <{L}code> ?key }}"
SECOND = f"SELECT ?key ?n WHERE {{ ?d <{R}code> ?key ; <{R}name> ?n }}"
SAGA = Path(sys.executable).parent / "saga"
_AGENT = """
import resource, sys
from pathlib import Path
from saga_kgqa.sources import Catalog
from saga_kgqa.sources.federation import join_sources
from saga_kgqa.app.sources import source_set
catalog = Catalog.load(Path(sys.argv[1]))
with source_set(catalog, survey_dir=Path(sys.argv[2]), release=True) as sources:
    joined = join_sources(sources, sys.argv[3])
print(joined.row_count, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write_sources(folder: Path, rows: int) -> Path:
    """Two big and two one-row sources sharing the key ``"K"``, and their catalog."""
    (folder / "l.ttl").write_text("".join(f'<{L}c{n}> <{L}code> "K" .\n' for n in range(rows)))
    (folder / "r.ttl").write_text("".join(f'<{R}d{n}> <{R}code> "K" ; <{R}name> "D{n}" .\n' for n in range(rows)))
    (folder / "sl.ttl").write_text(f'<{L}c1> <{L}code> "K" .\n')
    (folder / "sr.ttl").write_text(f'<{R}d1> <{R}code> "K" ; <{R}name> "D1" .\n')
    catalog = folder / "catalog.toml"
    catalog.write_text(
        'default_source = "a"\n'
        + "".join(f'[sources.{name}]\ndata = ["{folder / file}"]\n' for name, file in _FILES.items()),
        encoding="utf-8",
    )
    return catalog


_FILES = {"a": "l.ttl", "b": "r.ttl", "sa": "sl.ttl", "sb": "sr.ttl"}


def cli(catalog: Path, cache: Path, left: str, right: str) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of ``saga source join``."""
    started = time.monotonic()
    process = subprocess.Popen(
        [str(SAGA), "source", "join", left, FIRST, right, SECOND, "--catalog", str(catalog)],
        env=dict(os.environ, SAGA_SURVEY_DIR=str(cache)),
        stdout=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"saga source join exited with {status}")
    return usage.ru_maxrss / 1024, time.monotonic() - started


def agent(catalog: Path, cache: Path, left: str, right: str) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of the agent's join function in a fresh process."""
    started = time.monotonic()
    request = f"{left}: {FIRST} ==> {right}: {SECOND}"
    out = subprocess.run(
        [sys.executable, "-c", _AGENT, str(catalog), str(cache), request], capture_output=True, text=True, check=True
    )
    return int(out.stdout.split()[-1]) / 1024, time.monotonic() - started


async def _mcp(catalog: Path, cache: Path, left: str, right: str) -> tuple[float, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = dict(os.environ, SAGA_CATALOG=str(catalog), SAGA_SURVEY_DIR=str(cache))
    params = StdioServerParameters(command=str(SAGA), args=["mcp"], env=env)
    arguments = {"left": left, "left_query": FIRST, "right": right, "right_query": SECOND}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.monotonic()
        await asyncio.gather(*(session.call_tool("kg_join_sources", arguments) for _ in range(2)))
        seconds = time.monotonic() - started
        return _server_peak(), seconds


def _server_peak() -> float:
    """VmHWM (MB) of this process's ``saga mcp`` child."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(Path(f"/proc/{pid}/stat").read_text().split()[3]) != os.getpid():
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise SystemExit("the MCP server process was not found")


def mcp(catalog: Path, cache: Path, left: str, right: str) -> tuple[float, float]:
    """Peak RSS (MB) of ``saga mcp`` and wall seconds of two concurrent joins."""
    return asyncio.run(_mcp(catalog, cache, left, right))


def main() -> None:
    """Measure each face, interleaved idle/product, print a table and the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"), help="unused: sources are generated")
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    args = shrink(parser.parse_args(), rows=30, repeats=1)
    faces = {"cli": cli, "mcp": mcp, "agent": agent}
    above: dict[str, list[float]] = {face: [] for face in faces}
    seconds: dict[str, list[float]] = {face: [] for face in faces}
    with tempfile.TemporaryDirectory(prefix="join-bounds-") as scratch:
        folder = Path(scratch)
        catalog = write_sources(folder, args.rows)
        for repeat in range(args.repeats):
            for face, measure in faces.items():
                idle, _ = measure(catalog, folder / f"cache-{face}", "sa", "sb")
                peak, wall = measure(catalog, folder / f"cache-{face}", "a", "b")
                above[face].append(peak - idle)
                seconds[face].append(wall)
                print(f"{face:6s} repeat {repeat + 1}: idle {idle:.0f} MB, product {peak:.0f} MB, {wall:.1f}s")
    worst = max(max(values) for values in above.values())
    fields = " ".join(
        f"{face}_mb_above_idle={max(above[face]):.1f} {face}_seconds={statistics.mean(seconds[face]):.2f}"
        for face in faces
    )
    print(f"RESULT rows={args.rows} product={args.rows**2} worst_mb_above_idle={worst:.1f} {fields}")


if __name__ == "__main__":
    main()
