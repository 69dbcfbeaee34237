"""PostgreSQL checkpoints: LangGraph's ``PostgresSaver`` over a connection pool, plus a registry connection.

Used when ``SAGA_CHECKPOINT_DB`` (or ``--checkpoint-db``) is a ``postgresql://`` URL, so
shards on several machines share one checkpoint database and a thread killed on one
resumes on another. Needs the ``postgres`` extra (``langgraph-checkpoint-postgres``,
``psycopg``, ``psycopg-pool``); imported only then.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol

from saga_kgqa.errors import ConfigurationError

#: Connections the saver may hold at once (threads of one process share the pool).
POOL_SIZE = 4

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
#: The advisory lock that makes creating the tables one opener at a time (a fixed key: the same in every process).
SETUP_LOCK_KEY = 0x5A6A_C4EC
#: Seconds an opener waits for another one to finish creating the tables.
SETUP_WAIT_S = 120.0


def is_postgres_url(target: object) -> bool:
    """Whether a checkpoint target names a PostgreSQL database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


class PostgresCheckpoints:
    """A ``PostgresSaver`` on a pool and one autocommit connection for saga's own thread table."""

    def __init__(self, url: str, *, serde: SerializerProtocol | None = None, tables: Sequence[str] = ()) -> None:
        """Connect, and create LangGraph's tables (and ``tables``, statements) when missing.

        Openers take turns while they create them (faults E7c): shard workers starting at once against a new
        database each ran ``CREATE TABLE IF NOT EXISTS`` and LangGraph's migrations, and PostgreSQL lets two
        such creations collide (a unique violation in its catalogue, or on the migration's number).

        Raises:
            ConfigurationError: The ``postgres`` extra is missing, the database is unreachable, or its tables
                cannot be created.
        """
        try:
            import psycopg
            from langgraph.checkpoint.postgres import PostgresSaver
            from psycopg.rows import dict_row
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ConfigurationError(
                f"PostgreSQL checkpoints need the postgres extra (pip install 'saga-kgqa[postgres]'): {exc}"
            ) from None
        self.unique_violation: type[Exception] = psycopg.errors.UniqueViolation
        try:
            self.conn: Any = psycopg.connect(url, autocommit=True)
            # PostgresSaver's documented connection settings: autocommit, dict rows, no prepared statements.
            self.pool: Any = ConnectionPool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
                open=True,
            )
        except psycopg.OperationalError as exc:
            raise ConfigurationError(f"cannot open the checkpoint database {redacted(url)}: {exc}") from None
        self.saver = PostgresSaver(self.pool, serde=serde)
        self._take_setup_lock(url)
        try:
            self.saver.setup()
            for statement in tables:
                self.conn.execute(statement)
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))
        except psycopg.Error as exc:
            self.close()  # the session's end releases the lock
            raise ConfigurationError(f"cannot set up the checkpoint database {redacted(url)}: {exc}") from None

    def _take_setup_lock(self, url: str) -> None:
        """Take the setup lock, asking again and again rather than waiting inside a statement.

        A statement waiting for the lock would hold a snapshot, and LangGraph's migrations build their
        indexes ``CONCURRENTLY``, which waits for every snapshot: the holder would wait for the waiter.

        Raises:
            ConfigurationError: Another opener held it for :data:`SETUP_WAIT_S` seconds.
        """
        deadline = time.monotonic() + SETUP_WAIT_S
        while not self.conn.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK_KEY,)).fetchone()[0]:
            if time.monotonic() >= deadline:
                self.close()
                raise ConfigurationError(
                    f"cannot open the checkpoint database {redacted(url)}: another process has been creating "
                    f"its tables for {SETUP_WAIT_S:.0f} s"
                )
            time.sleep(0.05)

    def close(self) -> None:
        """Close the pool and the registry connection."""
        self.pool.close()
        self.conn.close()
