"""``saga eval run`` checks its inputs before the first question (issue 43): gold, data, the model's server."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from tests.support.openai_mock import MockReply, serve_openai_mock

pytestmark = pytest.mark.shared_data


def model_env(monkeypatch: pytest.MonkeyPatch, base_url: str) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "SAGA_MODEL_FACTORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SAGA_BASE_URL", base_url)
    monkeypatch.setenv("SAGA_MODEL", "mock")
    monkeypatch.setenv("SAGA_API_KEY", "unused")


def run(data_dir: Path, out: Path, *extra: str) -> list[str]:
    graph = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    return ["eval", "run", "ck25", "--out", str(out), "--data-dir", str(data_dir), "--data", graph, *extra]


def test_a_missing_gold_file_exits_2_before_any_model_request(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve_openai_mock([MockReply(content="never asked")] * 5) as mock:
        model_env(monkeypatch, mock.base_url)
        out = tmp_path / "run.jsonl"
        outcome = CliRunner().invoke(app, run(data_dir, out, "--gold", str(tmp_path / "missing.jsonl"), "--limit", "3"))
    assert outcome.exit_code == 2, outcome.output
    assert "missing.jsonl" in outcome.output
    assert mock.requests == []  # not one chat request
    assert not out.exists()


def test_an_unreachable_model_server_exits_2_before_the_first_question(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model_env(monkeypatch, f"http://127.0.0.1:{port}/v1")
    out = tmp_path / "run.jsonl"
    outcome = CliRunner().invoke(app, run(data_dir, out, "--limit", "3"))
    assert outcome.exit_code == 2, outcome.output
    assert "not reachable" in outcome.output and str(port) in outcome.output
    assert not out.exists()  # no question was started


def test_a_reachable_server_costs_no_chat_request_before_the_run(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe asks for the model list (a 501 from the mock is an answer): the scripted replies stay whole."""
    with serve_openai_mock([MockReply(content="I cannot answer.")] * 40) as mock:
        model_env(monkeypatch, mock.base_url)
        outcome = CliRunner().invoke(app, run(data_dir, tmp_path / "run.jsonl", "--limit", "1", "--max-steps", "2"))
        assert outcome.exit_code == 0, outcome.output
        assert mock.requests and all("messages" in body for body in mock.requests)


def test_ablate_checks_its_gold_before_any_model_request(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = str(data_dir / "text2sparql_ck25" / "prod-inst.ttl")
    with serve_openai_mock([MockReply(content="never asked")] * 5) as mock:
        model_env(monkeypatch, mock.base_url)
        outcome = CliRunner().invoke(
            app,
            [
                "eval",
                "ablate",
                "ck25",
                "--data-dir",
                str(data_dir),
                "--data",
                graph,
                "--limit",
                "2",
                "--gold",
                str(tmp_path / "missing.jsonl"),
                "--out-dir",
                str(tmp_path / "ablate"),
            ],
        )
    assert outcome.exit_code == 2, outcome.output
    assert "missing.jsonl" in outcome.output and mock.requests == []
