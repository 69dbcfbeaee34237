"""A store's name index built in the background after ``saga load`` returns (``saga load --index background``).

The store answers queries as soon as it is loaded; its full-text name index can take minutes
more at 10M triples (issue 27). ``saga load --index background`` starts the build in a
detached process and returns. The process records itself in ``STORE/saga-fulltext.pending``
(its pid) and removes the file when it ends; its progress (names indexed so far) is the
checkpoint of the resumable build, and its log is ``STORE/saga-fulltext.log``. A build that
was killed resumes from its last checkpoint the next time one starts.

While a build is pending a search does not start a second one: it reads the store's names
directly (capped per predicate, with the usual note) and says that the index is being built.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

from saga_kgqa.private_files import write_private

#: The marker of a pending background build, inside the store directory.
PENDING_FILE = "saga-fulltext.pending"
#: The background build's output, inside the store directory.
LOG_FILE = "saga-fulltext.log"
_CHECKPOINT = Path("saga-fulltext.building-resumable") / "saga-build.json"


def pending_build(store_dir: Path) -> int | None:
    """The pid of the background build of ``store_dir``'s name index while it runs, else ``None``.

    A marker left by a build that died (its process is gone) counts as none.
    """
    try:
        pid = int(json.loads((store_dir / PENDING_FILE).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid  # alive, another user's
    return pid


def names_so_far(store_dir: Path) -> int:
    """Names the pending build has committed so far (0 before its first checkpoint)."""
    try:
        return int(json.loads((store_dir / _CHECKPOINT).read_text(encoding="utf-8"))["names"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def pending_note(store_dir: Path) -> str:
    """What a search says while the index is built in the background."""
    return (
        f"the store's name index is being built in the background ({names_so_far(store_dir):,} names so far); "
        "this search read the names from the store directly"
    )


def start_background_build(store_dir: Path) -> int:
    """Start the name index build of ``store_dir`` in a detached process; return its pid.

    Raises:
        OSError: The process could not be started or the marker not written.
    """
    log = (store_dir / LOG_FILE).open("ab")
    try:
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and module, a path argument
            [sys.executable, "-m", "saga_kgqa.cli.index_job", str(store_dir)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives the command and its terminal's signals
        )
    finally:
        log.close()
    write_private(store_dir / PENDING_FILE, json.dumps({"pid": process.pid}))
    return process.pid


def finish_background_build(store_dir: Path) -> None:
    """Remove the pending marker (the build ended, finished or not)."""
    with contextlib.suppress(OSError):
        (store_dir / PENDING_FILE).unlink()
