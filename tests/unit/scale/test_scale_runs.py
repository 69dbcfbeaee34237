"""bench/scale_runs.py charges a step for every process of its tree, orphans included (issue 39)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench"

# A step whose child outlives it and burns 0.4 s of CPU: the query server does this when a command kills its
# watchdog at exit (the server dies with it, unreaped by the tree), and its CPU was not counted.
_STEP = """
import os, time
if os.fork() == 0:
    started = time.process_time()
    while time.process_time() - started < 0.4:
        pass
    os._exit(0)
os._exit(0)
"""
# Run in a process of its own: the bench makes itself a child subreaper, which a test runner must not become.
_MEASURE = """
import os, sys
sys.path.insert(0, sys.argv[1])
from scale_runs import timed
run = timed([sys.executable, "-c", sys.argv[2]], dict(os.environ))
print(run.cpu_s, run.wall_s)
"""


def test_the_cpu_of_an_orphaned_child_is_charged_to_its_step() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(BENCH), _STEP], capture_output=True, text=True, timeout=60, check=True
    )
    cpu, wall = (float(x) for x in done.stdout.split())
    assert cpu >= 0.35  # the orphan's 0.4 s (the parent's own start is a few hundredths)
    assert wall >= 0.35  # the step ends when its orphan has ended
