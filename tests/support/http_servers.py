"""Start a ``saga`` serving command on a free loopback port and read its URL from stderr."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

SAGA = str(Path(sys.executable).with_name("saga"))
_URL = re.compile(r"serving (http://\S+)")


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a server process: tracing off, no model or graph unless given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_", "LANGCHAIN_"))}
    env.update({"LANGSMITH_TRACING": "false", "LANGSMITH_TEST_TRACKING": "false"})
    env.update(extra or {})
    return env


@contextmanager
def saga_server(args: list[str], env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``saga ARGS --port 0``; yields the URL it serves, stops it after."""
    process = subprocess.Popen(
        [SAGA, *args, "--port", "0"],
        env=server_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            lines.append(line)
            found = _URL.search(line)
            if found:
                url = found.group(1)
                break
        assert url is not None, f"saga {args[0]} exited with {process.wait(5)}: {''.join(lines)}"
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
