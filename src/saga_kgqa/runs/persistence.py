"""Durable runs: a SQLite (or PostgreSQL) checkpointer and the identity of each thread.

``saga ask`` checkpoints every step (``durability="sync"``) so an interrupted or failed run
resumes with ``saga ask --resume THREAD`` without repeating completed model calls. The
database runs in WAL mode with a busy timeout, so several workers may share one file
without "database is locked" (faults.md E7). Each thread records which graph and which
model it ran against; resuming with another one is refused unless forced (faults.md E6),
because a half-built query grounded in one graph means nothing in another. The same model
served from another host or port is the same model: that resume only warns.

A ``postgresql://`` URL instead of a path puts checkpoints and the thread registry in
PostgreSQL (:mod:`saga_kgqa.runs.postgres_checkpoints`), shared across machines.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.sqlite import SqliteSaver

from saga_kgqa.closing import Closing
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.runs.postgres_checkpoints import PostgresCheckpoints, is_postgres_url, redacted

CHECKPOINT_DB_ENV = "SAGA_CHECKPOINT_DB"
#: Seconds a writer waits for another writer's lock before SQLite gives up.
DEFAULT_BUSY_TIMEOUT_S = 30.0

_THREADS_TABLE = """
CREATE TABLE IF NOT EXISTS saga_threads (
    thread_id TEXT PRIMARY KEY,
    graph TEXT NOT NULL,
    model TEXT NOT NULL,
    question TEXT NOT NULL,
    created {time_type} NOT NULL
)
"""

#: Where checkpoints live: a SQLite file, or a ``postgresql://`` URL.
CheckpointTarget = Path | str


class UnknownThread(ConfigurationError):
    """``--resume`` names a thread that this checkpoint database has never seen."""


class ResumeMismatch(ConfigurationError):
    """A thread would resume against another graph or model than it started with."""


@dataclass(frozen=True)
class RunIdentity:
    """What a thread's state is only valid against.

    Attributes:
        graph: The knowledge graph (endpoint URL, data files or store directory).
        model: The model (name and server, never the key).
    """

    graph: str
    model: str


def moved_server_only(before: str, after: str) -> bool:
    """Whether two model descriptions (``name at URL``) differ only in the server's host or port.

    The model name, URL scheme and path must be equal; only the network location may differ.
    """
    name_before, sep_before, url_before = before.rpartition(" at ")
    name_after, sep_after, url_after = after.rpartition(" at ")
    if not (sep_before and sep_after) or name_before != name_after:
        return False
    old, new = urlsplit(url_before), urlsplit(url_after)
    return (old.scheme, old.path.rstrip("/")) == (new.scheme, new.path.rstrip("/")) and old.netloc != new.netloc


@dataclass(frozen=True)
class ThreadRecord:
    """A thread as recorded when it started.

    Attributes:
        thread_id: The LangGraph thread id.
        identity: Graph and model it ran against.
        question: The question it answers.
        created: Unix time it started.
    """

    thread_id: str
    identity: RunIdentity
    question: str
    created: float


def default_checkpoint_path() -> CheckpointTarget:
    """``$SAGA_CHECKPOINT_DB`` (a path or a ``postgresql://`` URL), else the default SQLite file.

    The default is ``checkpoints.sqlite`` under ``$XDG_STATE_HOME/saga-kgqa``.
    """
    explicit = os.environ.get(CHECKPOINT_DB_ENV, "").strip()
    if explicit:
        return checkpoint_target(explicit)
    state_home = os.environ.get("XDG_STATE_HOME", "").strip() or str(Path.home() / ".local" / "state")
    return Path(state_home) / "saga-kgqa" / "checkpoints.sqlite"


def checkpoint_target(value: str) -> CheckpointTarget:
    """Read a ``--checkpoint-db`` value: a ``postgresql://`` URL stays a string, anything else is a path."""
    return value if is_postgres_url(value) else Path(value)


def connect(path: Path, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> sqlite3.Connection:
    """Open a checkpoint database in WAL mode with a busy timeout (shared by threads of one process)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=busy_timeout_s, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
    _use_wal(conn, busy_timeout_s)
    conn.execute(_THREADS_TABLE.format(time_type="REAL"))
    return conn


def _use_wal(conn: sqlite3.Connection, busy_timeout_s: float) -> None:
    """Switch to WAL, waiting for other connections as long as the busy timeout would.

    The switch takes a lock that SQLite's busy handler does not wait for: a new file opened by several
    threads or workers at once failed all but the first with "database is locked" (faults E7b).
    """
    deadline = time.monotonic() + busy_timeout_s
    pause = 0.002
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _unusable(path: Path, exc: Exception) -> ConfigurationError:
    return ConfigurationError(
        f"cannot use the checkpoint database {path} ({exc}): move it aside, or set SAGA_CHECKPOINT_DB "
        "or --checkpoint-db to another file"
    )


class CheckpointStore(Closing):
    """A checkpointer plus the thread registry, in one database (a SQLite file or PostgreSQL).

    Use as a context manager; :attr:`saver` goes to ``builder.compile(checkpointer=...)``.
    """

    def __init__(
        self,
        path: CheckpointTarget,
        *,
        serde: SerializerProtocol | None = None,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
    ) -> None:
        """Open (or create) the database at ``path``.

        Args:
            path: The database file (its directory is created), or a ``postgresql://`` URL.
            serde: Checkpoint serializer (LangGraph's default when ``None``).
            busy_timeout_s: How long a write waits for another writer (SQLite).

        Raises:
            ConfigurationError: The SQLite file is not a database (corrupt) or cannot be opened, or a
                PostgreSQL database cannot be opened (or the extra is missing).
        """
        self._postgres: PostgresCheckpoints | None = None
        self.saver: BaseCheckpointSaver[Any]
        if is_postgres_url(path):
            self.path = redacted(str(path))
            tables = (_THREADS_TABLE.format(time_type="DOUBLE PRECISION"),)
            self._postgres = PostgresCheckpoints(str(path), serde=serde, tables=tables)
            self._conn: Any = self._postgres.conn
            self._duplicate: tuple[type[Exception], ...] = (self._postgres.unique_violation,)
            self.saver = self._postgres.saver
            return
        self.path = str(path)
        try:
            self._conn = connect(Path(path), busy_timeout_s)
        except (sqlite3.Error, OSError) as exc:
            raise _unusable(Path(path), exc) from None
        self._duplicate = (sqlite3.IntegrityError,)
        try:
            self.saver = SqliteSaver(self._conn, serde=serde)
            self.saver.setup()
        except sqlite3.Error as exc:
            self._conn.close()
            raise _unusable(Path(path), exc) from None

    def _execute(self, sql: str, params: tuple[object, ...]) -> Any:
        # sqlite3 takes ``?`` placeholders, psycopg ``%s``.
        return self._conn.execute(sql.replace("?", "%s") if self._postgres else sql, params)

    def close(self) -> None:
        """Close the database connection (the pool too, on PostgreSQL)."""
        if self._postgres is not None:
            self._postgres.close()
        else:
            self._conn.close()

    def thread(self, thread_id: str) -> ThreadRecord | None:
        """Return the recorded thread, or ``None`` when unknown."""
        row = self._execute(
            "SELECT thread_id, graph, model, question, created FROM saga_threads WHERE thread_id = ?", (thread_id,)
        ).fetchone()
        if row is None:
            return None
        return ThreadRecord(row[0], RunIdentity(graph=row[1], model=row[2]), row[3], row[4])

    def threads(self, limit: int = 50) -> list[ThreadRecord]:
        """The most recently started threads, newest first."""
        rows = self._execute(
            "SELECT thread_id, graph, model, question, created FROM saga_threads ORDER BY created DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [ThreadRecord(r[0], RunIdentity(graph=r[1], model=r[2]), r[3], r[4]) for r in rows]

    def start_thread(self, thread_id: str, identity: RunIdentity, question: str) -> ThreadRecord:
        """Record a new thread.

        Raises:
            ConfigurationError: The thread id is already taken.
        """
        try:
            self._execute(
                "INSERT INTO saga_threads (thread_id, graph, model, question, created) VALUES (?, ?, ?, ?, ?)",
                (thread_id, identity.graph, identity.model, question, time.time()),
            )
        except self._duplicate:
            raise ConfigurationError(
                f"thread {thread_id!r} already exists in {self.path}; resume it with --resume {thread_id}"
            ) from None
        record = self.thread(thread_id)
        assert record is not None  # just inserted
        return record

    def check_resume(
        self,
        thread_id: str,
        identity: RunIdentity,
        *,
        force: bool = False,
        warn: Callable[[str], None] | None = None,
    ) -> ThreadRecord:
        """Return the thread to resume, refusing another graph or model unless forced.

        The same model on a server that only moved (another host or port,
        :func:`moved_server_only`) is not another model: the resume goes on, the record is
        updated, and ``warn`` hears about it.

        Args:
            thread_id: The thread to resume.
            identity: Graph and model of the resuming run.
            force: Resume even when graph or model differ (the record is updated).
            warn: Told, in one sentence, when the model's server moved.

        Raises:
            UnknownThread: No such thread in this database.
            ResumeMismatch: Graph or model differ and ``force`` is false.
        """
        record = self.thread(thread_id)
        if record is None:
            raise UnknownThread(f"no thread {thread_id!r} in {self.path}")
        if record.identity == identity:
            return record
        changes = [
            f"{name} was {before!r}, now {after!r}"
            for name, before, after in (
                ("graph", record.identity.graph, identity.graph),
                ("model", record.identity.model, identity.model),
            )
            if before != after
        ]
        moved = record.identity.graph == identity.graph and moved_server_only(record.identity.model, identity.model)
        if moved and warn is not None:
            warn(f"thread {thread_id!r} resumes on another server of the same model ({'; '.join(changes)})")
        if not force and not moved:
            raise ResumeMismatch(
                f"thread {thread_id!r} started against another setup ({'; '.join(changes)}); "
                "resume with the same --data/--endpoint and model, or pass --force"
            )
        self._execute(
            "UPDATE saga_threads SET graph = ?, model = ? WHERE thread_id = ?",
            (identity.graph, identity.model, thread_id),
        )
        return ThreadRecord(thread_id, identity, record.question, record.created)
