"""Progress bars: counts and an ETA on a terminal, nothing on a pipe or with quiet output."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from saga_kgqa.cli import output
from saga_kgqa.cli.progress import bar_wanted, progress_bar, tracked


def _terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    sink = io.StringIO()
    monkeypatch.setattr(output, "stderr", Console(file=sink, force_terminal=True, width=120))
    import saga_kgqa.cli.progress as progress

    monkeypatch.setattr(progress, "stderr", output.stderr)
    return sink


def test_a_terminal_shows_counts_and_an_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    sink = _terminal(monkeypatch)
    assert bar_wanted()
    with progress_bar("gold", 3) as advance:
        for _ in range(3):
            advance()
    drawn = sink.getvalue()
    assert "gold" in drawn and "3/3" in drawn and "eta" in drawn


def test_quiet_output_draws_nothing_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    sink = _terminal(monkeypatch)
    assert not bar_wanted(quiet=True)
    assert list(tracked(range(4), "runs", 4, quiet=True)) == [0, 1, 2, 3]
    assert sink.getvalue() == ""


def test_a_pipe_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    sink = io.StringIO()
    monkeypatch.setattr(output, "stderr", Console(file=sink, force_terminal=False))
    import saga_kgqa.cli.progress as progress

    monkeypatch.setattr(progress, "stderr", output.stderr)
    with progress_bar("store", 2) as advance:
        advance(description="codex: 10 triples")
    assert sink.getvalue() == ""
