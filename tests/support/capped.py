"""Run a small Python driver in a child process under an address-space cap.

Memory-bomb and billion-laughs tests run their payload here, so that a regression that
lets memory grow without bound fails the test (the child dies or raises) instead of
taking the machine down. ``RLIMIT_AS`` is inherited by the child's own children, so the
embedded store's query worker started by the driver is capped too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DriverRun:
    """What a capped driver did: its exit status, its JSON outcome (last stdout line) and stderr."""

    returncode: int
    outcome: dict[str, Any] | None
    stderr: str


def run_capped(
    code: str, *, address_space_mb: int, timeout_s: float = 120.0, env: dict[str, str] | None = None
) -> DriverRun:
    """Run ``code`` with ``python -c`` under ``RLIMIT_AS`` and read the JSON it prints last.

    Args:
        code: The driver's source; it prints one JSON object as its last stdout line.
        address_space_mb: The child's address-space cap, in MiB.
        timeout_s: Wall-clock limit; past it the child is killed and the test fails.
        env: Extra environment variables for the child.
    """
    limit = address_space_mb * 1024 * 1024

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        preexec_fn=cap,
        env={**os.environ, **(env or {})},
        check=False,
    )
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    outcome: dict[str, Any] | None = None
    if lines:
        try:
            outcome = json.loads(lines[-1])
        except json.JSONDecodeError:
            outcome = None
    return DriverRun(completed.returncode, outcome, completed.stderr[-4000:])
