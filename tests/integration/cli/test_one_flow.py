"""The one flow: ``saga ask --source X`` reaches everything a run is made of through at most 15 modules.

The counting rule (``docs/architecture.md``, "One flow"): in a fresh process, with a scripted model,
take the saga_kgqa modules on the call stack from the command down to each maker the first time it is
entered (:data:`tests.support.flow_trace.MAKERS`: the run's settings, model settings, checkpoint store,
catalog, named sources, the store and its guard, the schema index, the toolbox, the compiled graph and
the run's config); the flow is every module on those paths, once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT
from tests.integration.cli.test_ask_cli import clean_env
from tests.support.flow_trace import MAKERS, flow_modules

#: The issue's bound (issue 41): 21 modules by the hand count before the composition root owned the run.
MOST_MODULES = 15


def test_saga_ask_on_a_source_reaches_the_store_through_at_most_15_modules(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.flow_trace", str(tmp_path)],
        env=clean_env(PYTHONPATH=str(REPO_ROOT)),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    traced = json.loads(done.stdout.strip().splitlines()[-1])
    paths: dict[str, list[str]] = traced["paths"]
    assert traced["exit_code"] in (0, 3, 4, 5, 6, 7, 8), traced  # the run finished, whatever its outcome
    # Every maker was reached: a renamed one fails here instead of quietly shortening the flow.
    assert set(paths) == set(MAKERS)
    assert all(path[0] == "cli/ask/command.py" for path in paths.values()), paths
    # The command asks the composition root, which opens everything; the face's display opens nothing.
    assert all(path[1] == "app/run.py" for path in paths.values()), paths
    assert not any("cli/ask/run.py" in path for path in paths.values()), paths
    modules = flow_modules(paths)
    report = "\n".join(f"{maker}: {' > '.join(path)}" for maker, path in paths.items())
    assert len(modules) <= MOST_MODULES, f"{len(modules)} modules:\n{report}"
    assert paths["store"][-1] in ("kg/embedded/store.py", "kg/remote/endpoint.py")
