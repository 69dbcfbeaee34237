"""Under ``CI=true`` a missing prerequisite fails the run; elsewhere its tests skip saying why.

One check per prerequisite: the third-party data (the ``data_dir`` fixture and ``make data``),
npm and Chromium (:func:`tests.support.required.missing`, used by the conformance and web page
tests), the PostgreSQL and Virtuoso servers (:func:`tests.support.virtuoso_server.skip_or_fail`),
and the Makefile's system steps (``.ci/prerequisite``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, require_data_dir
from tests.support.required import missing
from tests.support.virtuoso_server import skip_or_fail

SKIPPED = pytest.skip.Exception
FAILED = pytest.fail.Exception


@pytest.mark.parametrize("ci", ["true", ""])
def test_missing_data_fails_under_ci_and_skips_elsewhere(
    ci: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", ci)
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path / "absent"))
    with pytest.raises(FAILED if ci else SKIPPED, match="absent"):
        require_data_dir()
    monkeypatch.setenv("SAGA_DATA_DIR", str(tmp_path))
    assert require_data_dir() == tmp_path


@pytest.mark.parametrize("check", [missing, skip_or_fail], ids=["npm-chromium", "postgres-virtuoso"])
@pytest.mark.parametrize("ci", ["true", ""])
def test_a_missing_tool_fails_under_ci_and_skips_elsewhere(
    check: object, ci: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(FAILED if ci else SKIPPED, match="initdb"):
        check("initdb is not installed")  # type: ignore[operator]


@pytest.mark.parametrize("test_file", ["test_mcp_conformance.py", "test_web_page.py"])
def test_the_npm_and_chromium_tests_use_the_ci_aware_check(test_file: str) -> None:
    text = (REPO_ROOT / "tests" / "integration" / "serve" / test_file).read_text(encoding="utf-8")
    assert "missing(" in text and "pytest.skip(" not in text


def _run(command: list[str], *, ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": ci, "SAGA_PREREQUISITES_INSTALL": "0", "SAGA_DATA_DIR": "/nonexistent/saga-data"}
    return subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("ci", ["true", "false"])
def test_a_system_step_fails_under_ci_when_its_prerequisite_is_missing(ci: str) -> None:
    step = _run([str(REPO_ROOT / ".ci" / "prerequisite"), "npm", "false", "nodejs", "npm"], ci=ci)
    assert step.returncode == (1 if ci == "true" else 0), step.stderr
    assert "npm is missing" in step.stderr
    present = _run([str(REPO_ROOT / ".ci" / "prerequisite"), "sh", "command -v sh", "dash"], ci=ci)
    assert present.returncode == 0 and present.stderr == ""


@pytest.mark.parametrize("ci", ["true", "false"])
def test_make_data_fails_under_ci_without_the_data(ci: str) -> None:
    step = _run(["make", "--no-print-directory", "-s", "data"], ci=ci)
    assert (step.returncode != 0) == (ci == "true"), step.stderr
    assert "no data at /nonexistent/saga-data" in step.stderr
