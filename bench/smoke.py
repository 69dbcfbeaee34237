"""The benches' smoke mode: every documented bench command runs as written, end to end, in seconds.

With ``SAGA_BENCH_SMOKE=1`` in the environment a bench keeps its code path (generate or load the data, run the
measured steps, print its tables and its one ``RESULT`` line) but on tiny sizes: a few samples, one pair, one
round, the first graph, a graph of a few hundred triples. Its figures mean nothing then: the line it prints first,
``smoke mode: …``, says so and names what was shrunk. The documented-commands test
(``tests/integration/cli/test_documented_commands.py``) sets it, so the command lines of ``docs/`` are checked to
run exactly as written without the minutes to hours a measurement takes. Benches write only to scratch
directories (a new temporary one, or what the command names), never into the repository.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import pickle
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import TypeVar

#: The environment variable that turns the smoke mode on (any value but empty or ``0``).
SMOKE_ENV = "SAGA_BENCH_SMOKE"
#: A directory where smoke runs keep what is a pure function of the shared data (a trial Wikidata store, the
#: offline schema index), built once and reused by every bench of a session (the documented-commands test sets
#: it to a scratch folder of its own); unset, every run builds its own.
CACHE_ENV = "SAGA_BENCH_SMOKE_CACHE"

T = TypeVar("T")


def smoke() -> bool:
    """Whether this run is a smoke run (``SAGA_BENCH_SMOKE`` set)."""
    return os.environ.get(SMOKE_ENV, "") not in ("", "0")


def shrink(args: argparse.Namespace, **small: object) -> argparse.Namespace:
    """In smoke mode, set each named option to its small value and say so on stderr; else change nothing.

    Args:
        args: the parsed options.
        **small: option name (as on ``args``) to its smoke value.

    Returns:
        ``args`` itself.
    """
    if smoke():
        for name, value in small.items():
            if not hasattr(args, name):
                raise AttributeError(f"bench option {name!r} does not exist")
            setattr(args, name, value)
        shown = " ".join(f"{name}={value}" for name, value in small.items())
        print(f"smoke mode ({SMOKE_ENV}): tiny sizes, figures meaningless; {shown}".rstrip("; "), file=sys.stderr)
    return args


def first(items: Iterable[T], count: int = 1) -> list[T]:
    """All of ``items``, or in smoke mode only the first ``count``."""
    return list(islice(items, count)) if smoke() else list(items)


def size(full: int, tiny: int) -> int:
    """``full``, or ``tiny`` in smoke mode (a size not given as an option)."""
    return tiny if smoke() else full


def cap(tiny: int) -> int | None:
    """``None`` (no cap), or ``tiny`` in smoke mode (e.g. the triples per source of a trial Wikidata store)."""
    return tiny if smoke() else None


def _cache_dir() -> Path | None:
    folder = os.environ.get(CACHE_ENV, "")
    return Path(folder) if smoke() and folder else None


@contextmanager
def _entry(key: str) -> Iterator[Path]:
    """The cache entry for ``key`` (a path without suffix), held under an exclusive lock across processes."""
    folder = _cache_dir()
    assert folder is not None
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.sha256(key.encode()).hexdigest()[:24]
    with (folder / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits for the first one's build, then reuses it
        yield folder / name


def reuse(key: str, build: Callable[[], T]) -> T:
    """``build()``; in smoke mode with ``SAGA_BENCH_SMOKE_CACHE`` set, built once per ``key`` and unpickled after.

    Only for values that are a pure function of what ``key`` names (the data directory and the options).
    """
    if _cache_dir() is None:
        return build()
    with _entry(key) as entry:
        saved = entry.with_suffix(".pickle")
        if saved.exists():
            value: T = pickle.loads(saved.read_bytes())
            return value
        value = build()
        saved.with_suffix(".tmp").write_bytes(pickle.dumps(value))
        saved.with_suffix(".tmp").replace(saved)
        return value


def reuse_store(key: str, store_dir: Path, build: Callable[[Path], T]) -> T:
    """``build(store_dir)``; in a cached smoke session (see :func:`reuse`) a copy of the store built once per ``key``.

    The store is built into the cache the first time and copied into ``store_dir`` (a new directory) each time, so a
    bench owns its copy as if it had built it; what ``build`` returned the first time is returned again.
    """
    if _cache_dir() is None:
        return build(store_dir)
    with _entry(key) as entry:
        saved = entry.with_suffix(".pickle")
        if not saved.exists():
            shutil.rmtree(entry, ignore_errors=True)  # a build cut short earlier
            report = build(entry)
            saved.with_suffix(".tmp").write_bytes(pickle.dumps(report))
            saved.with_suffix(".tmp").replace(saved)
        shutil.copytree(entry, store_dir)
        value: T = pickle.loads(saved.read_bytes())
        return value
