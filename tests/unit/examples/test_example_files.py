"""Worked-example files are read as files (issue 38 build point 6; faults AH5).

Regular files only (a FIFO, ``/dev/zero`` or a directory is refused without reading), the size
checked before anything is read, strict UTF-8 with a typed error naming the line and byte,
JSON nesting capped: each a ``ConfigurationError`` with one line, never a traceback or a hang.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.confirmed import read_run
from saga_kgqa.examples.harvest import harvest_files
from saga_kgqa.examples.model import QueryExample, read_examples, write_examples
from saga_kgqa.examples.run_examples import load_examples

GOOD = QueryExample(question="Who?", sparql="SELECT ?s WHERE { ?s ?p ?o }", source="runs")


def _refused_within(seconds: float, read: Callable[[], object], fifo: Path | None = None) -> str:
    """The refusal ``read`` raises, within ``seconds`` (a reader stuck on a FIFO fails the test, then is freed)."""
    outcome: list[BaseException | object] = []

    def work() -> None:
        try:
            outcome.append(read())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive() and fifo is not None:  # free the reader blocked in open(): give it a writer
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
    assert outcome, f"no answer within {seconds} s (blocked reading)"
    error = outcome[0]
    assert isinstance(error, ConfigurationError), repr(error)
    assert "\n" not in error.message
    return error.message


def test_invalid_utf8_is_a_typed_error_naming_line_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    write_examples([GOOD], path)
    path.write_bytes(path.read_bytes() + b'{"question": "caf\xe9", "sparql": "ASK {}", "source": "runs"}\n')
    message = _refused_within(10, lambda: read_examples(path))
    assert "line 2" in message and "byte 18" in message and "UTF-8" in message, message


def test_deep_nesting_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    path.write_text("[" * 200_000 + "]" * 200_000 + "\n", encoding="utf-8")
    message = _refused_within(10, lambda: read_examples(path))
    assert "line 1" in message and "nested" in message, message
    run = tmp_path / "run.json"
    run.write_text('{"a": ' * 50_000 + "1" + "}" * 50_000, encoding="utf-8")
    assert "nested" in _refused_within(10, lambda: read_run(run))


@pytest.mark.parametrize("name", ["ex.jsonl", "ex.ttl"])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    message = _refused_within(10, lambda: load_examples(fifo), fifo)
    assert "not a regular file" in message and "FIFO" in message, message


@pytest.mark.parametrize("reader", [read_examples, lambda p: harvest_files([p]), read_run])
def test_a_device_or_directory_is_refused_without_reading(tmp_path: Path, reader: Callable[[Path], object]) -> None:
    message = _refused_within(10, lambda: reader(Path("/dev/zero")))
    assert "not a regular file" in message and "device" in message, message
    assert "not a regular file" in _refused_within(10, lambda: reader(tmp_path))


@pytest.mark.parametrize("name", ["big.jsonl", "big.ttl"])
def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    with path.open("wb") as handle:  # sparse: 300 MB on paper, nothing on disk
        handle.truncate(300 * 1024 * 1024)
    message = _refused_within(10, lambda: load_examples(path))
    assert "bytes" in message and "larger" in message, message


def test_a_good_file_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "ex.jsonl"
    write_examples([GOOD, GOOD], path)
    assert read_examples(path) == [GOOD, GOOD]
