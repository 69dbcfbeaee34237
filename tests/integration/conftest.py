"""Fixtures for the remote backend tests: a fake endpoint, a fake clock, a real oxigraph server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint
from tests.support.oxigraph_server import OxigraphServer, serving_in_test

TEST_DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture
def fake_clock() -> FakeClock:
    """A clock whose sleeps are instant and recorded."""
    return FakeClock()


@pytest.fixture
def fake_endpoint() -> Iterator[FakeEndpoint]:
    """A scriptable loopback endpoint; its URL's shared gate state is dropped before and after."""
    with FakeEndpoint() as endpoint:
        # Ports are reused across tests: never inherit a breaker or pause from an earlier one.
        forget_gate(endpoint.url)
        yield endpoint
        forget_gate(endpoint.url)


@pytest.fixture(scope="module")
def oxigraph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    """``oxigraph serve-read-only`` over tests/data/remote_terms.ttl, one per test module."""
    with serving_in_test(TEST_DATA / "remote_terms.ttl", tmp_path_factory) as server:
        yield server
