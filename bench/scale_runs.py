"""How ``bench/scale.py`` runs and measures one step: a fresh process, its whole tree counted.

Each step runs in its own process. Its figures:

* wall time;
* CPU time (user + system) of the process and of every descendant: ``wait4``'s resource usage, so a
  step whose work runs in a child is charged for it (issue 39: the worker's CPU was invisible). A
  descendant its parent never reaps is charged too: the query server, whose watchdog a command kills at
  exit (it dies with it, orphaned), or a detached builder. The bench is a child subreaper
  (``PR_SET_CHILD_SUBREAPER``): such orphans are reparented to it, and a step ends when every one has
  ended and been reaped with its usage. Before, the query server's CPU was lost: the survey step read
  0.8 s of CPU for 18 s of probes, and ``saga load`` missed its survey and schema queries;
* peak memory: the larger of the process's own ``ru_maxrss`` and the peak of the summed RSS of
  its whole process tree, sampled every 50 ms;
* the 1-minute load average when it ended (a figure measured at load 10 on 2 cores says so).

:func:`interleaved` runs a floor and a step in turn (floor, step, floor, step, …), so a busy
machine slows both alike, and gives each pair's ratio; the bench reports medians.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36
_SUBREAPER: bool | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """One step's run: wall and CPU seconds, peak MB of its tree, load average at its end, its output."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    load: float
    out: str = ""


def timed(argv: list[str], env: dict[str, str]) -> Run:
    """Run ``argv`` in a fresh process and measure it (see the module doc); a failing step stops the bench."""
    become_subreaper()
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    tree_peak = [0.0]
    done = threading.Event()
    sampler = threading.Thread(target=_sample_tree, args=(proc.pid, done, tree_peak), daemon=True)
    sampler.start()
    # Read both pipes to the end (communicate() would reap the child and lose its rusage).
    out, err = _drain(proc)
    _, status, usage = os.wait4(proc.pid, 0)
    cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss
    for orphan in _reap_orphans():
        cpu += orphan.ru_utime + orphan.ru_stime
        rss = max(rss, orphan.ru_maxrss)
    done.set()
    sampler.join()
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"step failed ({code}): {' '.join(argv[:6])}\n{err[-2000:]}")
    peak = max(rss / 1024, tree_peak[0])
    return Run(seconds, cpu, peak, os.getloadavg()[0], out)


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``).

    Returns whether it is one; elsewhere a step's orphans are not counted.
    """
    global _SUBREAPER
    if _SUBREAPER is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _SUBREAPER = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _SUBREAPER = False
    return _SUBREAPER


def _reap_orphans() -> list[resource.struct_rusage]:
    """Wait for every remaining child (the step's orphans, reparented here) and return each one's usage."""
    usages = []
    while True:
        try:
            _, _, usage = os.wait4(-1, 0)
        except ChildProcessError:
            return usages
        usages.append(usage)


def interleaved(pairs: int, floor: Callable[[], Run], step: Callable[[], Run]) -> tuple[list[Run], list[Run]]:
    """Run ``floor`` and ``step`` in turn, ``pairs`` times each (floor first, then step; the next pair alike)."""
    floors: list[Run] = []
    steps: list[Run] = []
    for _ in range(pairs):
        floors.append(floor())
        steps.append(step())
    return floors, steps


def median_ratio(steps: list[Run], floors: list[Run], what: Callable[[Run], float]) -> float:
    """The median over pairs of step / floor (each pair ran back to back, under the same load)."""
    return statistics.median(what(s) / what(f) for s, f in zip(steps, floors, strict=True) if what(f) > 0)


def median(runs: list[Run], what: Callable[[Run], float]) -> float:
    """The median of one figure over runs."""
    return statistics.median(what(run) for run in runs)


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


def disk_mb(path: Path) -> float:
    """Bytes under ``path``, in MB."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, name)).st_size
    return total / 1024 / 1024
