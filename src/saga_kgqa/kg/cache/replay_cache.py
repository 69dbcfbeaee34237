"""Record/replay cache: answer queries from disk so runs can be repeated offline.

:class:`RecordReplayBackend` wraps any :class:`~saga_kgqa.kg.core.backend.KGBackend`. Each
request is keyed by the SHA-256 of the endpoint id, the query text normalised by
:func:`~saga_kgqa.kg.guard.query_text.normalise_query_text` (layout and comments ignored,
strings and IRIs exact) and the caps that change the answer (row and byte caps). Each
answer is one JSON file, ``<cache_dir>/<key[:2]>/<key>.json``, written atomically::

    {"format": "saga-kgqa/replay/1", "key": "...", "endpoint_id": "...",
     "query": "<text as sent>", "normalised_query": "...", "form": "SELECT",
     "limits": {"deadline_s": 30.0, "max_rows": 10000, "max_bytes": 16777216},
     "recorded_at": "2025-01-01T00:00:00+00:00",
     "outcome": "result", "result": <QueryResult.to_dict()>}

or, for an error that the query itself causes, ``"outcome": "error"`` and
``"error": {"type": "QueryTimeout" | "QuerySyntaxError", "message": ..., "server_text": ...}``.
Transient errors (throttling, unavailability, bad responses) are never recorded.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from saga_kgqa.errors import (
    CacheCorrupted,
    CacheMiss,
    ConfigurationError,
    QueryEvaluationError,
    QuerySyntaxError,
    QueryTimeout,
    QueryTooHeavy,
)
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard.query_text import normalise_query_text

CACHE_FORMAT = "saga-kgqa/replay/1"


class CacheMode(StrEnum):
    """How :class:`RecordReplayBackend` uses its cache."""

    #: Pass every query through; read and write nothing.
    OFF = "off"
    #: Run every query live and (over)write its recording.
    RECORD = "record"
    #: Answer only from recordings; a miss raises CacheMiss and nothing is sent.
    REPLAY = "replay"
    #: Answer from recordings when present, else run live and record.
    REPLAY_OR_RECORD = "replay-or-record"


def cache_key(endpoint_id: str, query_text: str, limits: ExecutionLimits) -> str:
    """Return the cache key of one request.

    The deadline is not part of the key: it does not change an answer, only whether one
    arrives (a recorded timeout is checked against the deadline on replay instead).
    """
    material = {
        "v": CACHE_FORMAT,
        "endpoint": endpoint_id,
        "query": normalise_query_text(query_text),
        "max_rows": limits.max_rows,
        "max_bytes": limits.max_bytes,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class RecordReplayBackend:
    """A :class:`~saga_kgqa.kg.core.backend.KGBackend` that records answers to disk and replays them."""

    def __init__(self, inner: KGBackend, *, cache_dir: Path, mode: CacheMode) -> None:
        """Wrap a backend.

        Args:
            inner: The backend that answers live queries.
            cache_dir: Directory of the recordings; created now in a recording mode.
            mode: How to use the recordings.

        Raises:
            ConfigurationError: A recording mode and the directory cannot be created or written.
        """
        self._inner = inner
        self._cache_dir = cache_dir
        self._mode = CacheMode(mode)
        if self._mode in (CacheMode.RECORD, CacheMode.REPLAY_OR_RECORD):
            # Refuse before any live call: an answer that cannot be recorded is a wasted request.
            try:
                cache_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _unwritable(cache_dir, exc) from None
            if not os.access(cache_dir, os.W_OK | os.X_OK):
                raise _unwritable(cache_dir, PermissionError("not writable"))

    @property
    def endpoint_id(self) -> str:
        """The wrapped backend's identifier (recordings are keyed by it)."""
        return self._inner.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        """The wrapped backend's profile."""
        return self._inner.profile

    @property
    def mode(self) -> CacheMode:
        """The cache mode in force."""
        return self._mode

    @property
    def cache_dir(self) -> Path:
        """The directory holding the recordings."""
        return self._cache_dir

    def path_for(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> Path:
        """Return the file that holds (or would hold) the recording of a request."""
        key = cache_key(self.endpoint_id, query.text, limits or ExecutionLimits())
        return self._cache_dir / key[:2] / f"{key}.json"

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        """Answer from the recordings or the wrapped backend, as the mode says.

        Raises:
            CacheMiss: Replay mode and no usable recording exists; nothing was sent.
            CacheCorrupted: The recording exists but cannot be read back.
            QuerySyntaxError: Live or replayed: the query is malformed.
            QueryTimeout: Live or replayed: the query ran past its deadline.
            BackendError: Any other live failure of the wrapped backend (never recorded).
        """
        limits = limits or ExecutionLimits()
        if self._mode is CacheMode.OFF:
            return self._inner.execute(query, limits)
        path = self.path_for(query, limits)
        if self._mode in (CacheMode.REPLAY, CacheMode.REPLAY_OR_RECORD):
            entry = self._read(path)
            if entry is not None:
                stale_reason = _stale_reason(entry, limits)
                if stale_reason is None:
                    return _replay(entry, path)
                if self._mode is CacheMode.REPLAY:
                    raise CacheMiss(f"the recording {path} cannot be replayed: {stale_reason}; no live call was made")
            elif self._mode is CacheMode.REPLAY:
                raise CacheMiss(
                    f"no recording of this query on {self.endpoint_id} (expected {path}); "
                    "record it first (cache mode 'record' or 'replay-or-record'); no live call was made"
                )
        return self._record(query, limits, path)

    def close(self) -> None:
        """Close the wrapped backend."""
        self._inner.close()

    def _record(self, query: CheckedQuery, limits: ExecutionLimits, path: Path) -> QueryResult:
        entry: dict[str, Any] = {
            "format": CACHE_FORMAT,
            "key": path.stem,
            "endpoint_id": self.endpoint_id,
            "query": query.text,
            "normalised_query": normalise_query_text(query.text),
            "form": query.form,
            "limits": {"deadline_s": limits.deadline_s, "max_rows": limits.max_rows, "max_bytes": limits.max_bytes},
        }
        try:
            result = self._inner.execute(query, limits)
        except (QuerySyntaxError, QueryTimeout) as exc:
            # Deterministic for the query text: replay must reproduce them. Transient
            # errors (throttled, unavailable, bad response) fall through unrecorded.
            server_text = exc.server_text if isinstance(exc, QuerySyntaxError) else ""
            error = {"type": type(exc).__name__, "message": exc.message, "server_text": server_text}
            self._write(path, {**entry, "recorded_at": _now(), "outcome": "error", "error": error})
            raise
        self._write(path, {**entry, "recorded_at": _now(), "outcome": "result", "result": result.to_dict()})
        return result

    def _write(self, path: Path, entry: dict[str, Any]) -> None:
        try:
            _write_atomically(path, entry)
        except OSError as exc:  # the directory went away, the disk is full, ...
            raise _unwritable(self._cache_dir, exc) from None

    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise _corrupted(path, f"cannot read it: {exc}") from exc
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _corrupted(path, f"invalid JSON: {exc}") from exc
        if not isinstance(entry, dict) or entry.get("format") != CACHE_FORMAT:
            raise _corrupted(path, f"not a {CACHE_FORMAT} recording")
        if entry.get("key") != path.stem or entry.get("endpoint_id") != self.endpoint_id:
            raise _corrupted(path, "its key or endpoint does not match its name")
        outcome = entry.get("outcome")
        if outcome == "result" and not isinstance(entry.get("result"), dict):
            raise _corrupted(path, "its result is missing")
        if outcome == "error":
            error = entry.get("error")
            if (
                not isinstance(error, dict)
                or error.get("type") not in _REPLAYED_ERRORS
                or not isinstance(error.get("message"), str)
                or not isinstance(error.get("server_text", ""), str)
            ):
                raise _corrupted(path, "its error record is malformed")
        elif outcome != "result":
            raise _corrupted(path, f"unknown outcome {outcome!r}")
        return entry


_REPLAYED_ERRORS = ("QueryTimeout", "QueryTooHeavy", "QuerySyntaxError", "QueryEvaluationError")


def _stale_reason(entry: dict[str, Any], limits: ExecutionLimits) -> str | None:
    """Say why a recording does not answer this request, or ``None`` when it does."""
    if entry["outcome"] == "error" and entry["error"]["type"] == "QueryTimeout":
        recorded = entry.get("limits", {}).get("deadline_s") if isinstance(entry.get("limits"), dict) else None
        if isinstance(recorded, int | float) and limits.deadline_s > recorded:
            return (
                f"it recorded a timeout under a {recorded:g} s deadline and this request allows {limits.deadline_s:g} s"
            )
    return None


def _replay(entry: dict[str, Any], path: Path) -> QueryResult:
    if entry["outcome"] == "result":
        try:
            return QueryResult.from_dict(entry["result"])
        except ValueError as exc:
            raise _corrupted(path, f"its result is malformed: {exc}") from exc
    error = entry["error"]
    if error["type"] == "QueryTimeout":
        raise QueryTimeout(error["message"])
    if error["type"] == "QueryTooHeavy":
        raise QueryTooHeavy(error["message"])
    if error["type"] == "QueryEvaluationError":
        raise QueryEvaluationError(error["message"], server_text=error.get("server_text", ""))
    raise QuerySyntaxError(error["message"], server_text=error.get("server_text", ""))


def _corrupted(path: Path, why: str) -> CacheCorrupted:
    return CacheCorrupted(f"replay cache file {path} is unusable ({why}); delete it to record again", path=str(path))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _unwritable(cache_dir: Path, exc: OSError) -> ConfigurationError:
    return ConfigurationError(
        f"cannot write the record cache {cache_dir} ({exc.strerror or exc}); choose a writable --cache-dir"
    )


def _write_atomically(path: Path, entry: dict[str, Any]) -> None:
    """Write one recording so that readers see the old file or the new one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed before os.replace, deleted on failure
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            json.dump(entry, handle, ensure_ascii=False, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise
