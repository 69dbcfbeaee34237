"""Surveys cached in memory and on disk, keyed by source, store, named graphs and limits.

A survey costs up to :meth:`SurveyLimits.max_requests` queries, so it is built once and
reused until an operator rebuilds it (``saga source survey NAME --refresh``) when the
source changes. The file records its build date; the key includes the backend's
``endpoint_id`` (a content digest for embedded files), so a changed store is surveyed
anew rather than served stale evidence.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from threading import Lock

from pydantic import ValidationError

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema.survey import survey_source
from saga_kgqa.schema.survey_model import SURVEY_FORMAT_VERSION, SourceSurvey, SurveyLimits
from saga_kgqa.schema.vocab import SchemaVocabulary

#: Environment variable naming the directory of cached surveys.
SURVEY_DIR_ENV = "SAGA_SURVEY_DIR"

_memory: dict[str, SourceSurvey] = {}
_memory_lock = Lock()
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def default_survey_dir() -> Path:
    """``$SAGA_SURVEY_DIR``, else ``surveys`` under ``$XDG_CACHE_HOME/saga-kgqa`` (``~/.cache``)."""
    explicit = os.environ.get(SURVEY_DIR_ENV, "").strip()
    if explicit:
        return Path(explicit)
    cache_home = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(cache_home) / "saga-kgqa" / "surveys"


def survey_key(source: str, endpoint_id: str, graphs: Sequence[str], limits: SurveyLimits) -> str:
    """The cache key: the same source, store, graphs and limits give the same survey."""
    material = json.dumps(
        [SURVEY_FORMAT_VERSION, source, endpoint_id, sorted(graphs), limits.model_dump(mode="json")], sort_keys=True
    )
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
    path = (cache_dir or default_survey_dir()) / f"{_UNSAFE.sub('_', source)[:60]}-{key}.json"
    if not refresh:
        with _memory_lock:
            found = _memory.get(key)
        if found is None:
            found = _read(path)
        if found is not None:
            with _memory_lock:
                _memory[key] = found
            return found
    survey = survey_source(graph, source=source, graphs=graphs, limits=limits, vocabulary=vocabulary)
    _write(path, survey)
    with _memory_lock:
        _memory[key] = survey
    return survey


def forget_surveys() -> None:
    """Drop the in-memory cache (tests; a long-running server after sources change)."""
    with _memory_lock:
        _memory.clear()


def _read(path: Path) -> SourceSurvey | None:
    """A cached survey, or ``None`` when there is none or it is unreadable (it is then rebuilt)."""
    try:
        return SourceSurvey.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValidationError):
        return None


def _write(path: Path, survey: SourceSurvey) -> None:
    """Write atomically, so a concurrent reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(survey.model_dump_json())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
