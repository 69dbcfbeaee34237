"""One running query worker process: its start, its framed pipes, its lifeline and its end.

:class:`~saga_kgqa.kg.embedded.worker.QueryWorker` decides when a worker starts, what it is
asked and when it is killed; this module holds the process itself, so the policy and the
plumbing are read apart.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import tempfile
import time
from typing import IO, Any

from saga_kgqa.errors import BackendError
from saga_kgqa.kg.embedded import worker_main as wire

__all__ = ["KilledFromOutside", "WorkerDied", "WorkerProcess", "pyoxigraph_search_dir"]


def pyoxigraph_search_dir() -> str:
    """Return the ``sys.path`` entry the host imported pyoxigraph from, for the worker's ``-S`` start.

    The worker runs without ``site`` (it saves ~3 ms of a ~30 ms start, ``.pth`` hooks such as
    ``_distutils_hack`` included), so it has no site-packages on its path. Naming the directory
    the host's own import resolved finds pyoxigraph wherever it is installed (a venv, the user
    site, the system's packages, ``PYTHONPATH``) and always the same copy as the host's.
    """
    import pyoxigraph

    home = os.path.dirname(os.path.abspath(pyoxigraph.__file__))
    # A package (pyoxigraph/__init__.py beside its extension) sits one level below the entry.
    return os.path.dirname(home) if hasattr(pyoxigraph, "__path__") else home


class WorkerDied(Exception):
    """The worker process ended (crash, kill) while we talked to it."""


class KilledFromOutside(Exception):
    """The worker's watchdog itself was killed by a signal (not by its query): safe to run the query again."""


class WorkerProcess:
    """One running worker: the process, its pipes and the lifeline only this host holds."""

    def __init__(self, cleanup: str | None) -> None:
        """Start the worker script; ``cleanup`` is a temporary store it deletes if this host dies first."""
        read_end, self.lifeline = os.pipe()
        # A file, not a pipe: a worker writing a long backtrace must never block on a full pipe.
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in stop()
        # -S: no ``site`` (see pyoxigraph_search_dir); -P: nothing from the working directory.
        command = [sys.executable, "-S", "-P", wire.__file__, "--lifeline", str(read_end)]
        command += ["--pyoxigraph-dir", pyoxigraph_search_dir()]
        if cleanup is not None:
            command += ["--cleanup", cleanup]
        try:
            self.popen = subprocess.Popen(  # noqa: S603 -- our interpreter running our own worker file
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                pass_fds=(read_end,),
                bufsize=0,
                env={**os.environ, "RUST_BACKTRACE": "0"},  # the allocator's one-line message, not a backtrace
            )
        except OSError:
            os.close(self.lifeline)
            self.stderr.close()
            raise
        finally:
            os.close(read_end)
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.request_fd = self.popen.stdin.fileno()
        self.reply_fd = self.popen.stdout.fileno()

    @property
    def pid(self) -> int:
        """The worker's process id."""
        return self.popen.pid

    def alive(self) -> bool:
        """Whether the worker has not exited."""
        return self.popen.poll() is None

    def send(self, value: Any) -> None:
        """Write one request frame; raises ``WorkerDied`` when the worker is gone."""
        try:
            wire.write_frame(self.request_fd, value)
        except OSError as exc:
            raise WorkerDied from exc

    def receive(self, deadline: float, limit: int) -> Any | None:
        """Read one frame by ``deadline`` (``None`` when it passes first); raises ``WorkerDied`` at EOF."""
        header = self._read(wire.HEADER_BYTES, deadline)
        if header is None:
            return None
        try:
            size = wire.decode_length(header, limit)
        except wire.FrameTooLarge as exc:
            raise BackendError(f"the embedded store's query worker sent an oversized answer: {exc}") from exc
        payload = self._read(size, deadline)
        return None if payload is None else wire.decode_payload(payload)

    def _read(self, size: int, deadline: float) -> bytes | None:
        chunks: list[bytes] = []
        while size:
            # select() wakes up as soon as bytes arrive or the worker dies (EOF), so a fast
            # query costs no waiting; only a query that runs past the deadline waits it out.
            ready, _, _ = select.select([self.reply_fd], [], [], max(deadline - time.perf_counter(), 0.0))
            if not ready:
                return None
            chunk = os.read(self.reply_fd, min(size, 1 << 20))
            if not chunk:
                raise WorkerDied
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def death(self) -> tuple[int | None, str]:
        """Wait briefly for the exit status; return it with the tail of the worker's stderr."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5.0)
        self.stderr.seek(0)
        # The allocator's message comes first, a backtrace may follow: the head says why.
        return self.popen.returncode, self.stderr.read(16384).decode("utf-8", "replace")

    def stop(self) -> None:
        """Kill the worker if it runs, reap it and close its pipes and lifeline."""
        if self.popen.poll() is None:
            self.popen.kill()  # the watchdog; the server has asked to die with it
        self.popen.wait()
        for stream in (self.popen.stdin, self.popen.stdout, self.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        with contextlib.suppress(OSError):
            os.close(self.lifeline)
