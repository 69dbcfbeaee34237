"""PostgreSQL checkpoints: LangGraph's ``PostgresSaver`` over a connection pool, plus a registry connection.

Used when ``SAGA_CHECKPOINT_DB`` (or ``--checkpoint-db``) is a ``postgresql://`` URL, so
shards on several machines share one checkpoint database and a thread killed on one
resumes on another. Needs the ``postgres`` extra (``langgraph-checkpoint-postgres``,
``psycopg``, ``psycopg-pool``); imported only then.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol

from saga_kgqa.errors import ConfigurationError

#: Connections the saver may hold at once (threads of one process share the pool).
POOL_SIZE = 4

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


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

    def __init__(self, url: str, *, serde: SerializerProtocol | None = None) -> None:
        """Connect, and create LangGraph's tables when missing.

        Raises:
            ConfigurationError: The ``postgres`` extra is missing or the database is unreachable.
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
        self.saver.setup()

    def close(self) -> None:
        """Close the pool and the registry connection."""
        self.pool.close()
        self.conn.close()
