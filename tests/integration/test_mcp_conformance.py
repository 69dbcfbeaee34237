"""``saga mcp --http`` against the official MCP conformance suite, for the server features it implements.

The suite is the npm package ``@modelcontextprotocol/conformance``, installed by ``make
conformance`` into ``.tools/conformance`` (ignored by git). The scenarios listed are the ones
for features the server has: initialization, ping, tool listing, DNS-rebinding protection
on loopback, several concurrent streams. The tool-call scenarios need the suite's own
fixture tools (``test_simple_text`` ...), and logging, resources, prompts, completion,
sampling and elicitation are features ``saga mcp`` does not offer.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import REPO_ROOT
from tests.support.mcp_servers import http_server
from tests.support.required import missing

CONFORMANCE = REPO_ROOT / ".tools" / "conformance" / "node_modules" / ".bin" / "conformance"
SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"]


@pytest.fixture(scope="module")
def mcp_url() -> object:
    if shutil.which("node") is None:
        missing("node is not installed")
    if not CONFORMANCE.exists():
        missing(f"{CONFORMANCE} is absent: run `make conformance` (needs the npm registry)")
    with http_server() as url:
        yield url


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(mcp_url: str, scenario: str) -> None:
    run = subprocess.run(
        [str(CONFORMANCE), "server", "--url", mcp_url, "--scenario", scenario],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "0 failed" in output and "Passed: " in output, output
