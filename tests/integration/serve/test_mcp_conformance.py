"""``saga mcp --http`` against the official MCP conformance suite, for both requirement sets.

The suite is the npm package ``@modelcontextprotocol/conformance`` (0.2.0-alpha, which runs
the 2025-11-25 and the 2026-07-28 requirement sets), installed with Node 22 by ``make
conformance`` into ``.tools/conformance`` (ignored by git). Every scenario runs; the ones
that fail are listed below, each with the reason, and the test fails when the failing set
changes either way (a new failure, or a listed one that now passes and should leave the list).
Every failing scenario carries a class (issue 43): ``SUITE_TOOL`` (it needs the suite's own fixture tools,
resources or prompts, ``test_image_content``, ``test://static-text``, ``test_simple_prompt`` ..., which a
real server does not have and which are not faked here), ``NOT_OFFERED`` (it tests a feature ``saga mcp``
does not offer, with the reason) or ``DEFECT`` (a fault of ours); the test fails while any scenario is
classed as a defect, so a defect is fixed, never listed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.support.mcp_servers import http_server
from tests.support.required import missing

BIN = REPO_ROOT / ".tools" / "conformance" / "node_modules" / ".bin"
CONFORMANCE = BIN / "conformance"

#: The classes of a failing scenario.
SUITE_TOOL = "needs the suite's own tool"
NOT_OFFERED = "feature not offered"
DEFECT = "defect"
CLASSES = (SUITE_TOOL, NOT_OFFERED, DEFECT)

FIXTURE_TOOL = "needs the suite's fixture tool"
FIXTURE_PROMPT = "needs the suite's fixture prompt"
FIXTURE_RESOURCE = "needs the suite's fixture resource"
NO_INPUT_REQUESTS = "needs a fixture tool that asks the client for input (saga's tools never do)"
NO_TASKS = "tasks extension (not offered: kg_ask reports progress and resumes by run_id instead)"

#: Shared by both sets: the suite's fixtures.
FIXTURES = {
    "tools-call-image": FIXTURE_TOOL + " test_image_content",
    "tools-call-audio": FIXTURE_TOOL + " test_audio_content",
    "tools-call-embedded-resource": FIXTURE_TOOL + " test_embedded_resource",
    "tools-call-mixed-content": FIXTURE_TOOL + " test_multiple_content_types",
    "tools-call-with-progress": FIXTURE_TOOL + " test_tool_with_progress (kg_ask's progress: test_mcp_long_calls)",
    "resources-read-text": FIXTURE_RESOURCE + " test://static-text",
    "resources-read-binary": FIXTURE_RESOURCE + " test://static-binary",
    "resources-templates-read": FIXTURE_RESOURCE + " template test://template/{id}/data",
    "prompts-get-simple": FIXTURE_PROMPT + " test_simple_prompt",
    "prompts-get-with-args": FIXTURE_PROMPT + " test_prompt_with_arguments",
    "prompts-get-embedded-resource": FIXTURE_PROMPT + " test_prompt_with_embedded_resource",
    "prompts-get-with-image": FIXTURE_PROMPT + " test_prompt_with_image",
    "json-schema-2020-12": FIXTURE_TOOL + " json_schema_2020_12_tool (pending scenario)",
}

EXPECTED_FAILURES: dict[str, dict[str, str]] = {
    "2025-11-25": {
        **FIXTURES,
        "logging-set-level": "logging is not offered (deprecated in 2026-07-28; not declared)",
        "tools-call-with-logging": "logging is not offered; and the fixture tool test_tool_with_logging",
        "tools-call-sampling": FIXTURE_TOOL + " test_sampling (saga never samples the client's model)",
        "tools-call-elicitation": FIXTURE_TOOL + " test_elicitation (saga never elicits)",
        "elicitation-sep1034-defaults": FIXTURE_TOOL + " test_elicitation_sep1034_defaults (saga never elicits)",
        "elicitation-sep1330-enums": FIXTURE_TOOL + " test_elicitation_sep1330_enums (saga never elicits)",
        "resources-subscribe": "subscriptions are not offered (resources do not change while serving)",
        "resources-unsubscribe": "subscriptions are not offered (resources do not change while serving)",
        "server-sse-polling": FIXTURE_TOOL + " test_reconnection (pending scenario)",
    },
    "2026-07-28": {
        **FIXTURES,
        **{
            f"input-required-result-{name}": NO_INPUT_REQUESTS
            for name in (
                "basic-elicitation",
                "basic-sampling",
                "basic-list-roots",
                "request-state",
                "multiple-input-requests",
                "multi-round",
                "non-tool-request",
                "result-type",
                "tampered-state",
                "capability-check",
            )
        },
        "server-stateless": FIXTURE_TOOL + " test_missing_capability",
        **{
            f"tasks-{name}": NO_TASKS
            for name in (
                "lifecycle",
                "capability-negotiation",
                "wire-fields",
                "request-state-removal",
                "mrtr-input",
                "request-headers",
                "dispatch-and-envelope",
                "required-task-error",
                "mrtr-composition",
            )
        },
        "http-custom-header-server-validation": "needs a tool with x-mcp-header annotations (pending scenario)",
    },
}

#: The features a scenario tests that ``saga mcp`` does not offer (each with its reason in EXPECTED_FAILURES).
_NOT_OFFERED = {
    "logging-set-level",
    "tools-call-with-logging",
    "resources-subscribe",
    "resources-unsubscribe",
    "http-custom-header-server-validation",
    *(name for name in EXPECTED_FAILURES["2026-07-28"] if name.startswith("tasks-")),
}
#: Our faults the suite finds: fixed, never listed (the test fails while this holds any).
_DEFECTS: set[str] = set()


def scenario_class(name: str) -> str:
    """The class of a listed failing scenario: a defect, a feature not offered, or the suite's own tool."""
    if name in _DEFECTS:
        return DEFECT
    return NOT_OFFERED if name in _NOT_OFFERED else SUITE_TOOL


def test_every_failing_scenario_has_a_class_and_none_is_a_defect() -> None:
    listed = {name for failures in EXPECTED_FAILURES.values() for name in failures}
    classes = {name: scenario_class(name) for name in listed}
    assert listed >= _NOT_OFFERED, _NOT_OFFERED - listed  # a class for a scenario that no longer fails
    assert [name for name, kind in classes.items() if kind == DEFECT] == []
    # A suite-tool scenario names the fixture it needs; a feature not offered says why it is not.
    for requirements, failures in EXPECTED_FAILURES.items():
        for name, reason in failures.items():
            kind = classes[name]
            assert kind in CLASSES
            if kind == SUITE_TOOL:
                assert "fixture" in reason, (requirements, name, reason)
            else:
                assert "not offered" in reason or "pending" in reason, (requirements, name, reason)


_COMMON = ("tools-list", "tools-call-error", "resources-list", "prompts-list", "completion-complete")
MUST_PASS = {
    "2025-11-25": (*_COMMON, "server-initialize", "ping", "dns-rebinding-protection", "server-session-lifecycle"),
    "2026-07-28": (
        *_COMMON,
        "dns-rebinding-protection",
        "caching",
        "sep-2164-resource-not-found",
        "http-header-validation",
    ),
}

_LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed", re.MULTILINE)


@pytest.fixture(scope="module")
def mcp_url() -> Iterator[str]:
    if not CONFORMANCE.exists() or not (BIN / "node").exists():
        if shutil.which("npm") is None:
            missing("npm is not installed")
        missing(f"{CONFORMANCE} is absent: run `make conformance` (needs the npm registry)")
    with http_server() as url:
        yield url


@pytest.mark.parametrize("requirements", sorted(EXPECTED_FAILURES))
def test_conformance_requirement_set(mcp_url: str, requirements: str) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run(
        [str(CONFORMANCE), "server", "--url", mcp_url, "--requirements", requirements],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
    )
    output = run.stdout + run.stderr
    results = {name: mark == "✓" for mark, name, _passed, _failed in _LINE.findall(output)}
    assert len(results) >= 30, output[-3000:]
    failing = {name for name, ok in results.items() if not ok}
    expected = EXPECTED_FAILURES[requirements]
    classed = "\n".join(
        f"  {name}: {scenario_class(name)} ({expected[name]})" for name in sorted(failing & set(expected))
    )
    assert failing - set(expected) == set(), f"new failures (class each, or fix a defect):\n{output[-6000:]}"
    assert set(expected) - failing == set(), f"now passing: take them off EXPECTED_FAILURES; failing:\n{classed}"
    # The behaviour the server implements passes: listings, errors, completions, DNS rebinding, and per set
    # the handshake and ping (2025-11-25) or caching hints and resource-not-found (2026-07-28).
    for scenario in MUST_PASS[requirements]:
        assert results.get(scenario) is True, scenario


@pytest.mark.parametrize("requirements", sorted(EXPECTED_FAILURES))
def test_the_documented_baseline_files_list_exactly_the_expected_failures(requirements: str) -> None:
    """``docs/mcp.md`` runs the suite by hand with ``--expected-failures`` on these files: they agree with the test."""
    baseline = REPO_ROOT / "tests" / "data" / "conformance" / f"expected-failures.{requirements}.yml"
    listed = yaml.safe_load(baseline.read_text(encoding="utf-8"))
    assert sorted(listed["server"]) == sorted({*EXPECTED_FAILURES[requirements], *WARNED.get(requirements, {})})


#: Scenarios that pass (no failed check, marked ✓) with a WARNING check, which the suite's own
#: ``--expected-failures`` baseline counts as failing: listed in the baseline files only.
WARNED: dict[str, dict[str, str]] = {
    "2026-07-28": {
        "input-required-result-missing-input-response": "passes with a WARNING check (no fixture tool asks for input)",
        "input-required-result-validate-input": "passes with a WARNING check (no fixture tool asks for input)",
    },
}
