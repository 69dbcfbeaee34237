"""A process-wide cap on requests in flight to one model server.

Evaluation runs answer several questions at once; a local vLLM or Ollama server slows
down (or queues past its timeout) when more requests arrive than it has slots for. The
cap is per model at one server, shared by every chat model object in the process, in
the same way as the per-endpoint gate of the SPARQL client (``kg/remote/endpoint_gate.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_slots: dict[tuple[str, str], tuple[int, threading.BoundedSemaphore]] = {}


def model_slots(server: str, model: str, limit: int) -> threading.BoundedSemaphore:
    """Return the semaphore that bounds requests to ``model`` at ``server``.

    When two callers ask for different limits for the same model, the stricter one wins,
    so a limit set anywhere in the process is never exceeded.

    Raises:
        ValueError: ``limit`` is below 1.
    """
    if limit < 1:
        raise ValueError("a model concurrency limit must be at least 1")
    key = (server, model)
    with _lock:
        known = _slots.get(key)
        if known is None or limit < known[0]:
            known = (limit, threading.BoundedSemaphore(limit))
            _slots[key] = known
        return known[1]


@contextmanager
def model_slot(server: str, model: str, limit: int | None) -> Iterator[None]:
    """Hold one request slot for the duration of a model call (no cap when ``limit`` is ``None``)."""
    if limit is None:
        yield
        return
    semaphore = model_slots(server, model, limit)
    with semaphore:
        yield
