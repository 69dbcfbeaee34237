"""Build an embedded store's full-text name index by streaming, in bounded memory, resumably.

:meth:`FullTextIndex.build` takes names already read into Python. For an embedded store the
names are streamed from the store's indexes instead (:mod:`~saga_kgqa.tools.search.store_names`)
into a tantivy writer whose memory is a fixed budget (``$SAGA_NAME_INDEX_MB``, default
:data:`DEFAULT_BUDGET_MB`), so the build's peak memory does not grow with the graph and no
name is left out.

The index is written in ``<path>.building-resumable`` and renamed into place when complete. Every
:data:`COMMIT_EVERY` names the writer commits and a checkpoint records how far the stream
got; a build that was interrupted (killed, out of disk) resumes from its last checkpoint
when the same content is indexed again. One builder at a time: an exclusive ``flock`` on
the index's parent directory; a second one waits, then opens what the first built.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tantivy

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.tools.search.fulltext import FullTextIndex, add_fields, add_name, new_index, write_meta
from saga_kgqa.tools.search.label_index import NameEntry
from saga_kgqa.tools.search.name_detection import DetectedNames
from saga_kgqa.tools.search.store_names import StoreNames

#: Environment variable: the index writer's memory budget in MiB.
BUDGET_ENV = "SAGA_NAME_INDEX_MB"
#: The writer's memory budget when ``$SAGA_NAME_INDEX_MB`` is unset (tantivy needs at least 15). At 10M
#: triples 256 rather than 64 cut the indexing threads' time by a fifth (fewer segments to merge) for 192 MB more.
DEFAULT_BUDGET_MB = 256
_MIN_BUDGET_MB = 15
#: Names between two commits (and checkpoints a resumed build restarts from).
COMMIT_EVERY = 1_000_000
_CHECKPOINT = "saga-build.json"
#: Suffix of the directory an index is built (and resumed) in; cache eviction leaves ``.building-`` alone.
BUILDING_SUFFIX = ".building-resumable"

#: Told how many names are indexed so far.
Progress = Callable[[int], None]


def budget_bytes_from_env() -> int:
    """The writer's memory budget in bytes, from ``$SAGA_NAME_INDEX_MB`` or the default.

    Raises:
        ConfigurationError: The variable is not a whole number of MiB of at least 15.
    """
    raw = os.environ.get(BUDGET_ENV, "").strip()
    if not raw:
        return DEFAULT_BUDGET_MB * 1024 * 1024
    if not raw.isdigit() or int(raw) < _MIN_BUDGET_MB:
        raise ConfigurationError(f"{BUDGET_ENV} must be a whole number of MiB, at least {_MIN_BUDGET_MB}; not {raw!r}")
    return int(raw) * 1024 * 1024


def writer_threads(budget: int) -> int:
    """Indexing threads of the writer: two, each with half the budget, when the budget gives each tantivy's minimum.

    The budget bounds the writer's memory whatever the thread count (tantivy splits it between them). With
    the names read in a child process (:mod:`saga_kgqa.tools.search.store_names`) this process only turns
    rows into documents, so a second indexing thread no longer waits on a single Python loop (issue 39).
    """
    return 2 if budget >= 2 * _MIN_BUDGET_MB * 1024 * 1024 else 1


def build_from_store(
    path: Path,
    names: StoreNames,
    *,
    endpoint_id: str,
    extra: Iterable[NameEntry] = (),
    identifier_sources: Iterable[str] = (),
    secondary_sources: Iterable[str] = (),
    primary: Iterable[str] = (),
    notes: Sequence[str] = (),
    progress: Progress | None = None,
    budget_bytes: int | None = None,
    commit_every: int = COMMIT_EVERY,
    reuse: bool = True,
    detected: DetectedNames | None = None,
    rest: Callable[[], NamePlan] | None = None,
) -> FullTextIndex:
    """Stream every name of the store into a fresh index at ``path`` (resuming an interrupted build).

    Args:
        path: The index directory (replaced when complete).
        names: The store's names to stream.
        endpoint_id: The identity recorded in the index (a stale index is detected by it).
        extra: Names that are not in the store's triples (the schema's class and property names).
        identifier_sources: Predicates whose literals are identifiers.
        secondary_sources: Predicates of text attributes (``nationality``), ranked after names.
        primary: Sources of preferred names (``rdfs:label``).
        notes: Remarks kept with the index.
        progress: Called with the names indexed so far, after every commit and at the end.
        budget_bytes: The writer's memory budget (:func:`budget_bytes_from_env` when ``None``).
        commit_every: Names between two checkpoints.
        reuse: Return a finished index of the same ``endpoint_id`` at ``path`` instead of rebuilding it.
        detected: The name detection the predicates came from, recorded with the index.
        rest: When given, ``names`` are only the first predicates (the vocabulary's labels, known before
            anything is read), streamed while another thread surveys the graph; then ``rest()`` gives the
            whole plan, whose predicates start with those (else the build starts again from the plan) and
            whose ``extra``, identifiers, texts, notes and detection replace the arguments'.

    Raises:
        ConfigurationError: The budget is malformed, or the index directory cannot be written.
    """
    budget = budget_bytes if budget_bytes is not None else budget_bytes_from_env()
    path.parent.mkdir(parents=True, exist_ok=True)
    # The parent directory is the lock (no lock file to clutter it): builds beside each other take turns.
    lock = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = _finished(path, endpoint_id, primary) if reuse else None
        if done is not None:
            return done  # another builder finished it while this one waited
        building = path.with_name(f"{path.name}{BUILDING_SUFFIX}")
        start, count = _resume_point(building, endpoint_id)
        index = _open_resumed(building) if count else None
        if index is None:
            start, count = (0, 0), 0
            index = _create(building)
        writer = index.writer(heap_size=budget, num_threads=writer_threads(budget))
        plan = NamePlan(
            names, tuple(extra), frozenset(identifier_sources), tuple(secondary_sources), tuple(notes), detected
        )
        stream = _Stream(writer, building, endpoint_id, count, commit_every, progress)
        if rest is not None:
            early = len(names.sources)
            if start[0] < early:
                stream.names(plan, start)  # while ``rest`` is still being found out (a survey in another thread)
                start = (early, 0)
            plan = rest()
            if plan.names.sources[:early] != names.sources or plan.identifier_sources & set(names.sources):
                # The guess was wrong (a label predicate that holds identifiers): index everything as planned.
                # Committed first: tantivy's delete-all drops committed segments, not documents still in the writer.
                writer.commit()
                writer.delete_all_documents()
                writer.commit()
                (building / _CHECKPOINT).unlink(missing_ok=True)  # an interruption now resumes from zero
                start, stream.count, stream.seen = (0, 0), 0, set()
        stream.names(plan, start)
        count = stream.count
        seen: set[str] = set()
        for entry in plan.extra:
            count += add_name(writer, entry, plan.identifier_sources, first_of_resource=entry.resource not in seen)
            seen.add(entry.resource)
        writer.commit()
        writer.wait_merging_threads()
        (building / _CHECKPOINT).unlink(missing_ok=True)
        write_meta(building, endpoint_id, count, plan.notes, plan.secondary_sources, plan.detected)
        if path.exists():
            shutil.rmtree(path)
        building.rename(path)
        if progress is not None:
            progress(count)
        return FullTextIndex.open(path, primary=primary)
    except OSError as exc:
        raise ConfigurationError(f"cannot write the name index at {path}: {exc}") from exc
    finally:
        os.close(lock)


@dataclass(frozen=True, slots=True)
class NamePlan:
    """What a build indexes: the names streamed from the store and what goes with them.

    Attributes:
        names: The store's names, by predicate (preferred first).
        extra: Names that are not in the store's triples (the schema's class and property names).
        identifier_sources: Predicates whose literals are identifiers.
        secondary_sources: Predicates of text attributes, ranked after names.
        notes: Remarks kept with the index.
        detected: The name detection the predicates came from.
    """

    names: StoreNames
    extra: tuple[NameEntry, ...] = ()
    identifier_sources: frozenset[str] = frozenset()
    secondary_sources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    detected: DetectedNames | None = None


@dataclass(slots=True)
class _Stream:
    """Names into the writer, a checkpoint every ``commit_every``; ``seen`` spans the parts of one build."""

    writer: tantivy.IndexWriter
    building: Path
    endpoint_id: str
    count: int
    commit_every: int
    progress: Progress | None
    seen: set[int] = field(default_factory=set)

    def names(self, plan: NamePlan, start: tuple[int, int]) -> None:
        writer, sources, pending = self.writer, plan.names.sources, 0
        ident_of = [source in plan.identifier_sources for source in sources]
        for resource, text, language, at, position, first in plan.names.rows(start=start, seen=self.seen):
            self.count += add_fields(writer, resource, text, sources[at], language, ident_of[at], first)
            pending += 1
            if pending >= self.commit_every:
                writer.commit()
                _checkpoint(self.building, self.endpoint_id, (at, position + 1), self.count)
                pending = 0
                if self.progress is not None:
                    self.progress(self.count)


def _finished(path: Path, endpoint_id: str, primary: Iterable[str]) -> FullTextIndex | None:
    if not path.is_dir():
        return None
    with contextlib.suppress(ConfigurationError):
        index = FullTextIndex.open(path, primary=primary)
        if index.meta.get("endpoint_id") == endpoint_id:
            return index
    return None


def _resume_point(building: Path, endpoint_id: str) -> tuple[tuple[int, int], int]:
    """Where an interrupted build of the same content stopped: ((predicate, triples), names); else zeros."""
    try:
        saved = json.loads((building / _CHECKPOINT).read_text(encoding="utf-8"))
        if saved.get("endpoint_id") == endpoint_id:
            return (int(saved["predicate"]), int(saved["position"])), int(saved["names"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return (0, 0), 0


def _open_resumed(building: Path) -> tantivy.Index | None:
    try:
        return tantivy.Index.open(str(building))
    except (ValueError, OSError):
        return None  # unreadable: start again


def _create(building: Path) -> tantivy.Index:
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True, mode=0o700)  # its meta file names the source's endpoint
    return new_index(building)


def _checkpoint(building: Path, endpoint_id: str, position: tuple[int, int], names: int) -> None:
    saved = {"endpoint_id": endpoint_id, "predicate": position[0], "position": position[1], "names": names}
    scratch = building / f".{_CHECKPOINT}.tmp"
    scratch.write_text(json.dumps(saved), encoding="utf-8")
    os.replace(scratch, building / _CHECKPOINT)
