"""A real Virtuoso for tests and for operators: install, configure, start, bulk-load, stop.

Usable two ways:

* from tests, through the session-scoped ``virtuoso`` fixture (tests/conftest.py), which
  starts one server per pytest session and shares it;
* from a shell, as a documented script::

      python -m tests.support.virtuoso_server --load data.ttl=http://example.org/g [--keep]

  installs Virtuoso if absent and permitted, starts it on free loopback ports, loads
  the files into the named graphs, prints the SPARQL endpoint URL and waits for Ctrl-C.

Virtuoso comes from the Debian package ``virtuoso-opensource`` (7.2.5 here). It is
installed only when absent *and* permitted: running as root with ``apt-get`` present,
unless ``SAGA_VIRTUOSO_INSTALL=0``. Under ``CI=true`` a test that cannot get a server
fails instead of skipping (:func:`skip_or_fail`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.sparql_ready import answers_ask

VIRTUOSO_BINARY = "virtuoso-t"
ISQL_BINARY = "isql-vt"
DEBIAN_PACKAGE = "virtuoso-opensource"
INSTALL_ENV = "SAGA_VIRTUOSO_INSTALL"
#: Server-wide row cap of the test server: above every CK25 answer (1,938 rows), below
#: what a LIMIT 10000 over the whole graph returns, so truncation can be provoked.
TEST_MAX_ROWS = 5000
#: A cost estimate above this many seconds is refused with SQLSTATE 42000.
TEST_MAX_COST_S = 20_000
#: The session server's MaxQueryExecutionTime: a query sent without a ``timeout``
#: parameter that runs longer fails with S1T00 SR171 (every CK25 query takes milliseconds).
VIRTUOSO_TEST_MAX_EXEC_S = 3
#: Named graph the CK25 instance data is loaded into.
CK25_GRAPH = "http://saga.test/ck25"
_READY_TIMEOUT_S = 60.0
_ISQL_TIMEOUT_S = 120.0


def in_ci() -> bool:
    """Whether the suite runs under CI (``CI=true``), where a real server must be available."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def skip_or_fail(reason: str) -> None:
    """Skip the test, or fail it under CI: a missing real server is a broken CI machine."""
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def _install_permitted() -> bool:
    if os.environ.get(INSTALL_ENV, "").strip() == "0":
        return False
    return hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get") is not None


def ensure_installed() -> str | None:
    """Install Virtuoso when absent and permitted.

    Returns:
        ``None`` when ``virtuoso-t`` and ``isql-vt`` are available, else why not.
    """
    if shutil.which(VIRTUOSO_BINARY) and shutil.which(ISQL_BINARY):
        return None
    if not _install_permitted():
        return (
            f"{VIRTUOSO_BINARY} is not installed and may not be installed here "
            f"(needs root and apt-get; run: apt-get install -y --no-install-recommends {DEBIAN_PACKAGE})"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", DEBIAN_PACKAGE]
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        # A fresh image has no package lists yet.
        subprocess.run(["apt-get", "update"], env=env, capture_output=True, timeout=600, check=False)
        done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or not shutil.which(VIRTUOSO_BINARY):
        return f"installing {DEBIAN_PACKAGE} failed: {done.stderr.strip()[-500:]}"
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 at the time of asking."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ini(base: Path, sql_port: int, http_port: int, load_dir: Path, max_exec_s: int) -> str:
    db = base / "db"
    return f"""[Database]
DatabaseFile = {db}/virtuoso.db
ErrorLogFile = {db}/virtuoso.log
LockFile = {db}/virtuoso.lck
TransactionFile = {db}/virtuoso.trx
xa_persistent_file = {db}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {db}/virtuoso-temp.db
TransactionFile = {db}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
DisableTcpSocket = 0
MaxClientConnections = 10
CheckpointInterval = 60
CaseMode = 2
DirsAllowed = ., {load_dir}
ThreadsPerQuery = 2
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
MaxQueryMem = 500M

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {base}/vsp
MaxClientConnections = 8
ServerThreads = 8
EnabledDavVSP = 0
Charset = UTF-8
EnabledGzipContent = 0

[Client]
SQL_PREFETCH_ROWS = 100
SQL_PREFETCH_BYTES = 16000
SQL_QUERY_TIMEOUT = 0
SQL_TXN_TIMEOUT = 0

[SPARQL]
ResultSetMaxRows = {TEST_MAX_ROWS}
MaxQueryCostEstimationTime = {TEST_MAX_COST_S}
MaxQueryExecutionTime = {max_exec_s}
"""


@dataclass
class VirtuosoServer:
    """A running Virtuoso.

    Attributes:
        url: The SPARQL endpoint (``http://127.0.0.1:<port>/sparql``).
        sql_port: The ODBC/isql port.
        base: The server's own directory (database, ini, load files).
        process: The ``virtuoso-t +foreground`` process.
        graphs: Named graphs loaded so far, IRI -> source file.
    """

    url: str
    sql_port: int
    base: Path
    process: subprocess.Popen[bytes]
    graphs: dict[str, Path] = field(default_factory=dict)

    def isql(self, *statements: str) -> str:
        """Run SQL statements through ``isql-vt`` as dba; raise on an error."""
        script = "\n".join(s.rstrip().rstrip(";") + ";" for s in statements) + "\n"
        done = subprocess.run(
            [ISQL_BINARY, f"127.0.0.1:{self.sql_port}", "dba", "dba", "VERBOSE=OFF", "BANNER=OFF", "PROMPT=OFF"],
            input=script,
            capture_output=True,
            text=True,
            timeout=_ISQL_TIMEOUT_S,
            check=False,
        )
        output = done.stdout + done.stderr
        if done.returncode != 0 or "*** Error" in output:
            raise RuntimeError(f"isql failed: {output.strip()[-1500:]}")
        return output

    def load(self, path: Path, graph: str) -> None:
        """Bulk-load one RDF file into named graph ``graph`` (``ld_dir`` + ``rdf_loader_run``), once."""
        if self.graphs.get(graph) == path:
            return
        target = self.base / "load" / f"{len(self.graphs)}-{path.name}"
        shutil.copyfile(path, target)
        escaped = graph.replace("'", "''")
        self.isql(
            f"ld_dir('{target.parent}', '{target.name}', '{escaped}')",
            "rdf_loader_run()",
            "checkpoint",
        )
        failed = self.isql(f"SELECT ll_error FROM DB.DBA.LOAD_LIST WHERE ll_file LIKE '%{target.name}'")
        if "NULL" not in failed:
            raise RuntimeError(f"loading {path} failed: {failed.strip()[-800:]}")
        self.graphs[graph] = path

    def stop(self) -> None:
        """Stop with ``shutdown``; kill only if it does not go."""
        if self.process.poll() is None:
            with suppress(RuntimeError, subprocess.TimeoutExpired):
                self.isql("shutdown")
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def _wait_ready(server: VirtuosoServer) -> bool:
    return answers_ask(server.url, server.process, within_s=_READY_TIMEOUT_S, poll_s=0.2)


@contextmanager
def virtuoso_server(workdir: Path, *, max_exec_s: int = 60, attempts: int = 3) -> Iterator[VirtuosoServer]:
    """Start a Virtuoso on free loopback ports with its own database under ``workdir``.

    Raises:
        RuntimeError: The server could not be started.
    """
    for attempt in range(attempts):
        base = workdir / f"virtuoso-{attempt}"
        for sub in ("db", "vsp", "load"):
            (base / sub).mkdir(parents=True, exist_ok=True)
        sql_port, http_port = free_port(), free_port()
        ini = base / "virtuoso.ini"
        ini.write_text(_ini(base, sql_port, http_port, base / "load", max_exec_s), encoding="utf-8")
        log = (base / "stdout.log").open("wb")
        process = subprocess.Popen(
            [VIRTUOSO_BINARY, "+foreground", "+configfile", str(ini)],
            cwd=base / "db",
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        server = VirtuosoServer(
            url=f"http://127.0.0.1:{http_port}/sparql", sql_port=sql_port, base=base, process=process
        )
        try:
            ready = _wait_ready(server)
        except BaseException:
            server.stop()
            log.close()
            raise
        if ready:
            try:
                yield server
            finally:
                server.stop()
                log.close()
            return
        server.stop()
        log.close()
    raise RuntimeError(f"virtuoso-t failed to start {attempts} times; see {workdir}/virtuoso-*/db/virtuoso.log")


def main(argv: list[str] | None = None) -> int:
    """Install (if permitted), start, load, print the endpoint URL, serve until interrupted."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--load", action="append", default=[], metavar="FILE=GRAPH", help="file to load, repeatable")
    parser.add_argument("--workdir", type=Path, default=None, help="server directory (default: a temporary one)")
    args = parser.parse_args(argv)
    problem = ensure_installed()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    import tempfile

    with tempfile.TemporaryDirectory(prefix="saga-virtuoso-") as tmp:
        workdir = args.workdir or Path(tmp)
        with virtuoso_server(workdir) as server:
            for item in args.load:
                path, _, graph = item.partition("=")
                server.load(Path(path).resolve(), graph)
            print(server.url, flush=True)
            with suppress(KeyboardInterrupt):
                server.process.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
