"""A store's name index built in the background after ``saga load`` returns (``saga load --index background``).

The store answers queries as soon as it is loaded; its full-text name index can take minutes
more at 10M triples (issue 27). ``saga load --index background`` starts the build in a
detached process and returns. Its progress (names indexed so far) is the checkpoint of the
resumable build, and its log is ``STORE/saga-fulltext.log``. A build that was killed resumes
from its last checkpoint the next time one starts.

One builder per store (issue 38): the builder holds an exclusive ``flock`` on the store's marker,
``.STORE.saga-fulltext.pending`` beside the store directory (beside, so that a second load,
which replaces the directory, keeps it), which records the owner's pid. A second ``saga load
--index background`` finds the lock held and starts none (the running builder indexes the new
content when it ends); only the owner removes the marker, while still holding the lock; the lock
of a builder that was killed is released by the kernel, so a stale marker is recovered by the
next builder, and counts as no build meanwhile.

While a build is pending a search does not start a second one: it reads the store's names
directly (capped per predicate, with the usual note) and says that the index is being built.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

#: The background build's output, inside the store directory.
LOG_FILE = "saga-fulltext.log"
_CHECKPOINT = Path("saga-fulltext.building-resumable") / "saga-build.json"


def build_marker(store_dir: Path) -> Path:
    """The lock and marker of ``store_dir``'s background build: ``.NAME.saga-fulltext.pending`` beside it."""
    target = store_dir.resolve()
    return target.with_name(f".{target.name}.saga-fulltext.pending")


def pending_build(store_dir: Path) -> int | None:
    """The pid of the background build of ``store_dir``'s name index while it runs, else ``None``.

    A marker left by a build that died (its process is gone) counts as none.
    """
    try:
        pid = int(json.loads(build_marker(store_dir).read_text(encoding="utf-8"))["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return None
    except PermissionError:
        return pid  # alive, another user's
    return pid


def acquire_build_lock(store_dir: Path) -> int | None:
    """Take the store's builder lock; its descriptor (the marker now names this process), or ``None`` when held.

    A lock whose owner died was released with it: it is taken over here. A marker being removed by
    a finishing owner is opened again, so two builders never hold locks on two files.
    """
    marker = build_marker(store_dir)
    while True:
        fd = os.open(marker, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.stat(marker).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            name_owner(fd, os.getpid())
            return fd
        os.close(fd)  # the owner removed it between our open and our lock: take the new one


def name_owner(fd: int, pid: int) -> None:
    """Write ``pid`` as the owner into the marker held open (and locked) at ``fd``."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps({"pid": pid}).encode(), 0)


def release_build_lock(store_dir: Path, fd: int) -> None:
    """Remove the marker (only when it is still the one locked at ``fd``) and release the lock."""
    with contextlib.suppress(OSError):
        if os.stat(build_marker(store_dir)).st_ino == os.fstat(fd).st_ino:
            build_marker(store_dir).unlink()
    os.close(fd)


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


def start_background_build(store_dir: Path) -> tuple[int, bool]:
    """Start the name index build of ``store_dir`` in a detached process, unless one runs.

    The lock is taken here and handed to the process (it inherits the locked descriptor), so a
    second start that comes before the process runs still finds it held.

    Returns:
        The builder's pid, and whether this call started it (False: the running builder's pid).

    Raises:
        OSError: The process could not be started or the marker not written.
    """
    fd = acquire_build_lock(store_dir)
    if fd is None:
        running = pending_build(store_dir)
        if running is not None:
            return running, False
        fd = acquire_build_lock(store_dir)  # its owner ended between the two looks
        if fd is None:
            return pending_build(store_dir) or 0, False
    try:
        with (store_dir / LOG_FILE).open("ab") as log:
            process = subprocess.Popen(  # noqa: S603 - our own interpreter and module, a path argument
                [sys.executable, "-m", "saga_kgqa.cli.index.job", str(store_dir), "--lock-fd", str(fd)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # outlives the command and its terminal's signals
                pass_fds=(fd,),
            )
        name_owner(fd, process.pid)
    except BaseException:
        release_build_lock(store_dir, fd)
        raise
    os.close(fd)  # the builder holds the lock now (the same open file)
    return process.pid, True
