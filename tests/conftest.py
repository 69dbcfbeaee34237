"""Shared test configuration: tracing off, data directory discovery, no egress."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres_server import PostgresServer, postgres_bin_dir, postgres_server
from tests.support.required import missing
from tests.support.virtuoso_server import (
    VIRTUOSO_TEST_MAX_EXEC_S,
    VirtuosoServer,
    ensure_installed,
    skip_or_fail,
    virtuoso_server,
)

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGSMITH_TEST_TRACKING"] = "false"
os.environ.pop("LANGCHAIN_TRACING_V2", None)

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session", autouse=True)
def survey_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Surveys, name indexes and schemas kept per content go to a per-session directory, not ~/.cache."""
    root = tmp_path_factory.mktemp("survey-cache")
    before = os.environ.get("SAGA_SURVEY_DIR")
    os.environ["SAGA_SURVEY_DIR"] = str(root)
    yield root
    if before is None:
        os.environ.pop("SAGA_SURVEY_DIR", None)
    else:
        os.environ["SAGA_SURVEY_DIR"] = before


@pytest.fixture(scope="session", autouse=True)
def store_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point the CLI's store cache at a per-session directory: tests never write into ~/.cache."""
    root = tmp_path_factory.mktemp("store-cache")
    before = os.environ.get("SAGA_STORE_CACHE_DIR")
    os.environ["SAGA_STORE_CACHE_DIR"] = str(root)
    yield root
    if before is None:
        os.environ.pop("SAGA_STORE_CACHE_DIR", None)
    else:
        os.environ["SAGA_STORE_CACHE_DIR"] = before


def shared_data_dir() -> Path:
    """The third-party data directory: $SAGA_DATA_DIR, else ../shared/data beside the repo."""
    return Path(os.environ.get("SAGA_DATA_DIR", REPO_ROOT.parent / "shared" / "data"))


def require_data_dir() -> Path:
    """The third-party data directory; skip (saying why) when it is absent, or fail under ``CI=true``."""
    path = shared_data_dir()
    if not path.is_dir():
        missing(f"third-party data directory {path} is absent (set SAGA_DATA_DIR)")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The third-party data directory (:func:`require_data_dir`)."""
    return require_data_dir()


@pytest.fixture(autouse=True)
def no_egress(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any test that opens a connection outside the loopback range."""
    real_connect = socket.socket.connect

    def guarded_connect(self: socket.socket, address: object) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if isinstance(host, str) and not (host.startswith("127.") or host in ("::1", "localhost")):
            raise AssertionError(f"test tried to connect to non-loopback address {address!r}")
        real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    yield


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """One real Virtuoso for the whole session (installed when absent and permitted); tests load named graphs."""
    problem = ensure_installed()
    if problem is not None:
        skip_or_fail(problem)
    with virtuoso_server(tmp_path_factory.mktemp("virtuoso"), max_exec_s=VIRTUOSO_TEST_MAX_EXEC_S) as server:
        yield server


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """One real PostgreSQL for the whole session, on a free loopback port; tests create their own databases."""
    if postgres_bin_dir() is None:
        skip_or_fail("PostgreSQL binaries (initdb, pg_ctl) are not installed")
    # Not under pytest's own temp dir: that is root-only (0700) and, as root, the server
    # runs as the postgres user, which must reach its cluster directory.
    with (
        tempfile.TemporaryDirectory(prefix="saga-pg-", ignore_cleanup_errors=True) as workdir,
        postgres_server(Path(workdir)) as server,
    ):
        yield server
