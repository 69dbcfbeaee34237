"""Surveys cached in memory and on disk, keyed by source, store, named graphs and limits.

A survey costs up to :meth:`SurveyLimits.max_requests` queries, so it is built once and
reused until an operator rebuilds it (``saga source survey NAME --refresh``) when the
source changes. The file records its build date; the key includes the backend's
``endpoint_id`` (a content digest for embedded files), so a changed store is surveyed
anew rather than served stale evidence.

A partial survey (probes failed, skipped at the deadline, or a source that misbehaved) is
kept for :data:`PARTIAL_TTL_S` only, then surveyed again: a degraded survey is never
served for good. The directory is private (:func:`~saga_kgqa.private_files.private_root`):
a survey found in a directory another user owns or can write is not read, and a file is
served only when the key computed from its own content is the one asked for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from threading import Lock

from pydantic import ValidationError

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.private_files import UnsafeCacheDir, private_root, read_private, write_private

# Re-exported: callers and tests name the cache directory from here, as before it moved out.
from saga_kgqa.schema.cache_dir import SURVEY_DIR_ENV as SURVEY_DIR_ENV
from saga_kgqa.schema.cache_dir import default_survey_dir as default_survey_dir
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SURVEY_FORMAT_VERSION, SourceSurvey, SurveyLimits
from saga_kgqa.schema.vocab import SchemaVocabulary

#: Environment variable setting a survey's overall time budget in seconds (``SurveyLimits.total_s``).
SURVEY_SECONDS_ENV = "SAGA_SURVEY_SECONDS"

#: Seconds a partial or degraded survey is served before the source is surveyed again.
PARTIAL_TTL_S = 600.0

_LOG = logging.getLogger(__name__)
_memory: dict[str, SourceSurvey] = {}
_memory_lock = Lock()
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
#: Identities of embedded stores that name their content, not their place.
CONTENT_KEYED = "embedded:files:"


def default_limits() -> SurveyLimits:
    """The survey's bounds, with ``$SAGA_SURVEY_SECONDS`` as its overall budget when set.

    Raises:
        ConfigurationError: The variable is not a positive number of seconds.
    """
    raw = os.environ.get(SURVEY_SECONDS_ENV, "").strip()
    if not raw:
        return SurveyLimits()
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < 86_400:
        raise ConfigurationError(f"{SURVEY_SECONDS_ENV} must be a number of seconds between 0 and 86400, got {raw!r}")
    return SurveyLimits(total_s=seconds)


def survey_key(source: str, endpoint_id: str, graphs: Sequence[str], limits: SurveyLimits) -> str:
    """The cache key: the same store, graphs and limits give the same survey.

    The overall time budget is not part of it: a complete survey does not depend on it, and a
    partial one expires (:data:`PARTIAL_TTL_S`). A store whose identity is its content
    (``embedded:files:…``) is still surveyed once whatever name it goes by: see
    :func:`_same_content`.
    """
    bounds = limits.model_dump(mode="json", exclude={"total_s"})
    material = json.dumps([SURVEY_FORMAT_VERSION, source, endpoint_id, sorted(graphs), bounds], sort_keys=True)
    return hashlib.sha256(material.encode()).hexdigest()[:20]


def cached_survey(
    graph: KnowledgeGraph,
    *,
    source: str,
    graphs: Sequence[str] = (),
    limits: SurveyLimits | None = None,
    vocabulary: SchemaVocabulary | None = None,
    cache_dir: Path | None = None,
    refresh: bool = False,
) -> SourceSurvey:
    """Return the source's survey from memory, else from disk, else build and store it.

    Args:
        graph: The source behind its guard.
        source: The source's catalog name.
        graphs: Named graphs the survey is scoped to.
        limits: The survey's bounds.
        vocabulary: Type and subclass predicates.
        cache_dir: Where surveys are kept (:func:`default_survey_dir` when omitted).
        refresh: Rebuild even when a cached survey exists.

    Returns:
        The survey (its ``built_at`` says when it was taken).
    """
    limits = limits or SurveyLimits()
    key = survey_key(source, graph.endpoint_id, graphs, limits)
    root = cache_dir or default_survey_dir()
    shared = graph.endpoint_id.startswith(CONTENT_KEYED)
    path = root / f"{_UNSAFE.sub('_', source)[:60]}-{key}.json"
    try:
        private_root(root)
        usable = True
    except UnsafeCacheDir as exc:
        _LOG.warning("%s", exc.message)  # surveyed afresh and kept in memory only
        usable = False
    if not refresh:
        with _memory_lock:
            found = _memory.get(key)
        if found is None and usable:
            found = _read(path, key)
        if found is None and usable and shared:
            found = _same_content(root, graph.endpoint_id, graphs, limits)
        if found is not None and not _expired(found):
            with _memory_lock:
                _memory[key] = found
            return found if found.source == source else found.model_copy(update={"source": source})
    survey = survey_source(graph, source=source, graphs=graphs, limits=limits, vocabulary=vocabulary)
    if usable:
        _write(path, survey)
    with _memory_lock:
        _memory[key] = survey
    return survey


def forget_surveys() -> None:
    """Drop the in-memory cache (tests; a long-running server after sources change)."""
    with _memory_lock:
        _memory.clear()


def _now() -> float:
    return time.time()


def _expired(survey: SourceSurvey) -> bool:
    """Whether a partial survey has outlived :data:`PARTIAL_TTL_S` (a complete one never expires)."""
    if not survey.partial:
        return False
    try:
        built = datetime.fromisoformat(survey.built_at).timestamp()
    except ValueError:
        return True
    return _now() - built > PARTIAL_TTL_S


def _same_content(root: Path, endpoint_id: str, graphs: Sequence[str], limits: SurveyLimits) -> SourceSurvey | None:
    """A survey of the same content under another source name (``saga load``'s ``store``), checked as any other.

    A content-keyed store's survey depends on its content, not on the name it goes by, so the
    first ``--source NAME`` after ``saga load`` does not survey again (221 s, 6.9 GB at 5M).
    Each candidate's key is recomputed from its file name and must match, as :func:`_read` checks.
    """
    for candidate in sorted(root.glob("*-*.json")):
        name, _, digest = candidate.stem.rpartition("-")
        key = survey_key(name, endpoint_id, graphs, limits)
        if digest != key:
            continue
        found = _read(candidate, key)
        if found is not None and not _expired(found):
            return found
    return None


def _read(path: Path, key: str) -> SourceSurvey | None:
    """A cached survey whose own content gives ``key``; ``None`` when absent, foreign or unreadable."""
    text = read_private(path)
    if text is None:
        return None
    try:
        found = SourceSurvey.model_validate_json(text)
    except ValidationError:
        return None
    if survey_key(found.source, found.endpoint_id, found.graphs, found.limits) != key:
        return None  # planted or renamed: not the survey this name promises
    return found


def _write(path: Path, survey: SourceSurvey) -> None:
    """Write atomically with mode 0600 (the survey names the source's endpoint)."""
    write_private(path, survey.model_dump_json())
