"""The full trajectory of a run as JSON Lines: one line per node update, bracketed by start and end.

``saga ask --trace FILE`` writes it while the run streams, flushing every line, so an
interrupted run still leaves everything it did on disk and a resumed run appends to it.
Each line is a JSON object with an ``event`` (``start``, ``update``, ``end``), a sequence
number and a wall-clock time; ``update`` lines carry the node name and the node's state
delta exactly as LangGraph streamed it (records as their JSON form).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from saga_kgqa.closing import Closing


def jsonable(value: Any) -> Any:
    """Convert state values (pydantic records, messages, sets, tuples) to plain JSON values."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="json"))
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((jsonable(item) for item in value), key=repr)
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return repr(value)


class TrajectoryWriter(Closing):
    """Append a run's events to a JSONL file (use as a context manager)."""

    def __init__(self, path: Path) -> None:
        """Open ``path`` for appending (a resumed run continues the same file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._sink: IO[str] = path.open("a", encoding="utf-8")
        self._seq = 0

    def close(self) -> None:
        """Close the file."""
        self._sink.close()

    def _write(self, event: str, payload: Mapping[str, Any]) -> None:
        self._seq += 1
        line = {"event": event, "seq": self._seq, "time": time.time(), **jsonable(payload)}
        self._sink.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._sink.flush()

    def start(self, **details: Any) -> None:
        """Record the run's start: question, thread, graph, model, context switches, resume flag."""
        self._write("start", details)

    def update(self, node: str, delta: Any, *, namespace: tuple[str, ...] = ()) -> None:
        """Record one node's state delta."""
        payload: dict[str, Any] = {"node": node, "update": delta}
        if namespace:
            payload["namespace"] = list(namespace)
        self._write("update", payload)

    def end(self, **details: Any) -> None:
        """Record the run's end: status, or the error that stopped it."""
        self._write("end", details)


def read_trajectory(path: Path) -> list[dict[str, Any]]:
    """Read a trajectory file back (one dict per line)."""
    with path.open(encoding="utf-8") as source:
        return [json.loads(line) for line in source if line.strip()]
