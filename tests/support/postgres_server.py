"""A real PostgreSQL 15 for checkpoint tests: ``initdb`` + ``pg_ctl`` on a free loopback port.

The server's binaries come from the Debian image (``/usr/lib/postgresql/15/bin``).
``initdb`` refuses to run as root, so as root the cluster is created and run by the
``postgres`` system user (``runuser``). Authentication is ``trust`` on loopback only.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.virtuoso_server import free_port

POSTGRES_BIN_DIRS = (Path("/usr/lib/postgresql/15/bin"), Path("/usr/lib/postgresql/16/bin"))
_SYSTEM_USER = "postgres"


def postgres_bin_dir() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl``, or ``None`` when absent."""
    for candidate in POSTGRES_BIN_DIRS:
        if (candidate / "initdb").is_file() and (candidate / "pg_ctl").is_file():
            return candidate
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _as_server_user(command: list[str]) -> list[str]:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return ["runuser", "-u", _SYSTEM_USER, "--", *command]
    return command


@dataclass
class PostgresServer:
    """A running cluster.

    Attributes:
        port: The loopback port.
        data_dir: The cluster directory.
        bin_dir: Where its binaries are.
    """

    port: int
    data_dir: Path
    bin_dir: Path
    _names: Iterator[int] = field(default_factory=itertools.count)

    def url(self, database: str = "postgres") -> str:
        """A ``postgresql://`` URL of ``database`` on this server."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create a fresh, empty database and return its URL."""
        name = f"saga_test_{next(self._names)}"
        psql = [str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"]
        subprocess.run([*psql, "-c", f"CREATE DATABASE {name}"], check=True, capture_output=True, timeout=60)
        return self.url(name)


@contextmanager
def postgres_server(workdir: Path) -> Iterator[PostgresServer]:
    """Create a cluster under ``workdir``, serve it on a free loopback port until the block ends.

    Raises:
        FileNotFoundError: No PostgreSQL binaries.
        subprocess.CalledProcessError: initdb or pg_ctl failed.
    """
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL binaries (initdb, pg_ctl) are not installed")
    data_dir, socket_dir = workdir / "pgdata", workdir / "pgsocket"
    socket_dir.mkdir(parents=True, exist_ok=True)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        shutil.chown(workdir, user=_SYSTEM_USER)
        shutil.chown(socket_dir, user=_SYSTEM_USER)
    init = [str(bin_dir / "initdb"), "-D", str(data_dir), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
    subprocess.run(_as_server_user(init), check=True, capture_output=True, timeout=120)
    port = free_port()
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {socket_dir} -c fsync=off"
    ctl = [str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-l", str(workdir / "server.log")]
    subprocess.run(_as_server_user([*ctl, "-o", options, "-w", "start"]), check=True, capture_output=True, timeout=120)
    try:
        yield PostgresServer(port=port, data_dir=data_dir, bin_dir=bin_dir)
    finally:
        subprocess.run(_as_server_user([*ctl, "-m", "fast", "-w", "stop"]), capture_output=True, timeout=120)
