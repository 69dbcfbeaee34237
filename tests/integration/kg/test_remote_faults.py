"""Remote endpoint faults B1-B10 of docs/faults.md section 8B (throttling, bans, timeouts, availability).

Each test scripts a fake loopback endpoint. Waits run on a fake clock (instant and
recorded); the deadline tests use short real deadlines. B11-B17 are in
test_remote_faults_responses.py.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from saga_kgqa.errors import (
    EndpointBanned,
    EndpointThrottled,
    EndpointUnavailable,
    QuerySyntaxError,
    QueryTimeout,
)
from saga_kgqa.kg.core.backend import ExecutionLimits, KGBackend
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from saga_kgqa.kg.remote.server_text import SERVER_TEXT_LIMIT
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted, ask_json
from tests.support.remote_cases import (
    ANCHORED,
    JETTY_429,
    OTHER_SELECT,
    PROXY_HTML,
    SELECT,
    UNANCHORED,
    endpoint_for,
    one_row,
)


def test_remote_endpoint_implements_the_backend_protocol(fake_endpoint: FakeEndpoint) -> None:
    backend = endpoint_for(fake_endpoint)
    assert isinstance(backend, KGBackend)
    assert backend.endpoint_id == f"remote:{fake_endpoint.url}"
    assert backend.profile.name == "generic"


def test_b1_retry_after_waits_on_the_clock_and_nothing_else_is_sent_meanwhile(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    fake_endpoint.script(
        Scripted(status=429, headers={"Retry-After": "7"}, body=JETTY_429, content_type="text/html"),
        one_row(),  # the retry
        one_row(),  # the other call, which must come after the retry
    )
    first = endpoint_for(fake_endpoint, clock=fake_clock)
    # A second object for the same URL shares the gate (the rules apply per client, not per object).
    second = endpoint_for(fake_endpoint, clock=fake_clock)
    outcome: dict[str, Any] = {}
    seen_during_wait: list[int] = []

    def during_wait(_seconds: float) -> None:
        worker = threading.Thread(target=lambda: outcome.setdefault("other", second.execute(OTHER_SELECT)))
        worker.start()
        outcome["worker"] = worker
        time.sleep(0.3)  # real time for the other call to try to send
        seen_during_wait.append(len(fake_endpoint.requests))

    fake_clock.on_sleep = during_wait
    result = first.execute(SELECT)
    outcome["worker"].join(timeout=10)

    assert [row["s"].value for row in result.rows] == ["http://example.org/item/0"]
    assert fake_clock.sleeps == [7.0]
    assert seen_during_wait == [1], "another request reached the endpoint during the Retry-After wait"
    assert fake_endpoint.queries == [SELECT.text, SELECT.text, OTHER_SELECT.text]
    assert len(outcome["other"].rows) == 1


def test_b2_throttle_without_retry_after_waits_the_default_then_gives_up(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    profile = get_profile("wikidata")
    fake_endpoint.script(*[Scripted(status=429, body=JETTY_429, content_type="text/html")] * 3)
    backend = endpoint_for(fake_endpoint, "wikidata", fake_clock)

    with pytest.raises(EndpointThrottled) as caught:
        backend.execute(ANCHORED, ExecutionLimits(deadline_s=600))

    assert fake_clock.sleeps == [profile.default_retry_after_s] * profile.max_throttle_retries == [60.0, 60.0]
    assert len(fake_endpoint.requests) == 1 + profile.max_throttle_retries
    assert caught.value.retry_after_s == 60.0
    assert caught.value.retryable and not caught.value.query_at_fault
    # The pause it was given outlives the next call's deadline: fail fast, send nothing.
    with pytest.raises(EndpointThrottled, match="retry after"):
        backend.execute(ANCHORED, ExecutionLimits(deadline_s=30))
    assert len(fake_endpoint.requests) == 3


def test_b3_retry_after_beyond_the_deadline_fails_fast_without_sleeping(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": "120"}, body=JETTY_429, content_type="text/html"))
    backend = endpoint_for(fake_endpoint, "wikidata", fake_clock)
    started = time.monotonic()

    with pytest.raises(EndpointThrottled, match=r"endpoint busy.*retry after 120 s") as caught:
        backend.execute(ANCHORED, ExecutionLimits(deadline_s=30))

    assert time.monotonic() - started < 2.0
    assert fake_clock.sleeps == []
    assert caught.value.retry_after_s == 120.0
    assert len(fake_endpoint.requests) == 1


def test_b4_ban_opens_the_breaker_for_the_ban_window_and_stops_all_calls(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    ban_ends = datetime.fromtimestamp(fake_clock.time() + 3600, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = f"You have been banned until {ban_ends}, please respect throttling and retry-after headers.".encode()
    fake_endpoint.script(Scripted(status=403, body=body, content_type="text/plain"), one_row())
    backend = endpoint_for(fake_endpoint, "wikidata", fake_clock)

    with pytest.raises(EndpointBanned, match="An operator must act") as caught:
        backend.execute(ANCHORED)
    assert not caught.value.retryable
    with pytest.raises(EndpointBanned):
        backend.execute(ANCHORED)
    with pytest.raises(EndpointBanned):
        endpoint_for(fake_endpoint, "wikidata", fake_clock).execute(ANCHORED)
    assert len(fake_endpoint.requests) == 1
    assert fake_clock.sleeps == []

    fake_clock.advance(3601)  # the ban is over
    assert len(backend.execute(ANCHORED).rows) == 1
    assert len(fake_endpoint.requests) == 2


def test_b5_qlever_429_with_a_timeout_exception_is_a_query_timeout(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    body = json.dumps({"exception": "Operation timed out. Last operation: IndexScan", "query": SELECT.text})
    fake_endpoint.script(Scripted(status=429, body=body.encode(), content_type="application/json"))
    backend = endpoint_for(fake_endpoint, "qlever", fake_clock)

    with pytest.raises(QueryTimeout, match="narrow it") as caught:
        backend.execute(SELECT)

    assert "Operation timed out" in caught.value.message
    assert caught.value.query_at_fault
    assert fake_clock.sleeps == []
    assert len(fake_endpoint.requests) == 1


@pytest.mark.parametrize(
    ("query", "second", "expect_requests"),
    [
        (ANCHORED, "success", 2),
        (ANCHORED, "timeout", 2),
        (UNANCHORED, "success", 1),
    ],
    ids=["anchored-retry-succeeds", "anchored-retry-times-out", "unanchored-no-retry"],
)
def test_b6_wdqs_timeout_is_retried_once_unchanged_only_when_anchored(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, query: CheckedQuery, second: str, expect_requests: int
) -> None:
    trace = b"java.util.concurrent.ExecutionException: java.util.concurrent.TimeoutException\n\tat java.base/..."
    wdqs_timeout = Scripted(status=500, body=trace, content_type="text/plain")
    fake_endpoint.script(wdqs_timeout, one_row() if second == "success" else wdqs_timeout)
    backend = endpoint_for(fake_endpoint, "wikidata", fake_clock)

    if expect_requests == 2 and second == "success":
        assert len(backend.execute(query).rows) == 1
    else:
        with pytest.raises(QueryTimeout):
            backend.execute(query)

    assert fake_endpoint.queries == [query.text] * expect_requests
    assert fake_clock.sleeps == []


@pytest.mark.parametrize(
    ("profile", "body", "content_type", "expected"),
    [
        (
            "wikidata",
            b"SPARQL-QUERY: queryStr=SELECT ?s WHERE { ?s ?p ?o\n" + b"x" * 6000 + b"\njava.util.concurrent."
            b'ExecutionException: org.openrdf.query.MalformedQueryException: Encountered " <EOF> "" at line 1\n'
            + b"\tat com.bigdata.rdf.sail.webapp.QueryServlet.doSparqlQuery\n"
            * 200,
            "text/plain",
            'MalformedQueryException: Encountered " <EOF> ""',
        ),
        (
            "qlever",
            json.dumps({"exception": 'Invalid SPARQL query: Token "}": mismatched input', "query": "SELECT"}).encode(),
            "application/json",
            'Invalid SPARQL query: Token "}": mismatched input',
        ),
    ],
    ids=["wdqs-java-trace", "qlever-json"],
)
def test_b7_syntax_errors_carry_the_server_text_and_are_not_retried(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, profile: str, body: bytes, content_type: str, expected: str
) -> None:
    fake_endpoint.script(Scripted(status=400, body=body, content_type=content_type), one_row())
    backend = endpoint_for(fake_endpoint, profile, fake_clock)

    with pytest.raises(QuerySyntaxError) as caught:
        backend.execute(SELECT)

    assert caught.value.server_text.startswith(expected)
    assert len(caught.value.server_text) <= SERVER_TEXT_LIMIT
    assert "do not resend" in caught.value.message
    assert len(fake_endpoint.requests) == 1


def _drip_forever() -> Iterator[bytes]:
    yield b'{"head": {"vars": ["s"]}, "results": {"bindings": ['
    yield from itertools.repeat(b" ")


@pytest.mark.parametrize(
    "scripted",
    [
        Scripted(delay_s=5.0, body=b"{}"),
        Scripted(body_stream=_drip_forever, chunk_interval_s=0.05, content_length=None),
        Scripted(endless_header_interval_s=0.05),
    ],
    ids=["sleeps-past-deadline", "slowloris-body", "slowloris-headers"],
)
@pytest.mark.timeout(15)
def test_b8_total_deadline_fires_at_the_configured_time(fake_endpoint: FakeEndpoint, scripted: Scripted) -> None:
    fake_endpoint.script(scripted)
    backend = endpoint_for(fake_endpoint)  # the real clock: these deadlines are real
    started = time.monotonic()

    with pytest.raises(QueryTimeout, match="within the deadline of 1 s"):
        backend.execute(SELECT, ExecutionLimits(deadline_s=1.0))

    elapsed = time.monotonic() - started
    assert 0.9 <= elapsed < 2.5, f"deadline of 1 s fired after {elapsed:.2f} s"


def _count_connects(monkeypatch: pytest.MonkeyPatch, port: int) -> list[object]:
    attempts: list[object] = []
    real = socket.create_connection

    def counting(address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        if address[1] == port:
            attempts.append(address)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", counting)
    return attempts


def test_b9_connection_refused_opens_the_breaker(monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/sparql"  # nothing listens here any more
    forget_gate(url)
    attempts = _count_connects(monkeypatch, port)
    backend = RemoteEndpoint(url, profile=get_profile("generic"), clock=fake_clock)

    with pytest.raises(EndpointUnavailable, match="not the query's fault") as caught:
        backend.execute(SELECT)
    assert not caught.value.query_at_fault
    with pytest.raises(EndpointUnavailable, match="marked unavailable"):
        backend.execute(SELECT)
    assert len(attempts) == 1, "the open breaker must stop the second call before it connects"

    fake_clock.advance(61)  # past the breaker's window: try again
    with pytest.raises(EndpointUnavailable):
        backend.execute(SELECT)
    assert len(attempts) == 2
    forget_gate(url)


def test_b9_unresolvable_host_is_endpoint_unavailable(monkeypatch: pytest.MonkeyPatch, fake_clock: FakeClock) -> None:
    real = socket.getaddrinfo

    def resolver(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "sparql.unresolvable.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    url = "http://sparql.unresolvable.invalid/sparql"
    forget_gate(url)
    backend = RemoteEndpoint(url, profile=get_profile("generic"), clock=fake_clock)

    with pytest.raises(EndpointUnavailable, match="cannot resolve"):
        backend.execute(SELECT)
    with pytest.raises(EndpointUnavailable, match="marked unavailable"):
        backend.execute(SELECT)
    forget_gate(url)


@pytest.mark.parametrize("status", [502, 503, 504])
def test_b10_gateway_fault_is_retried_once_after_a_successful_probe(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, status: int
) -> None:
    gateway = Scripted(status=status, body=PROXY_HTML, content_type="text/html")
    fake_endpoint.script(gateway, ask_json(True), one_row())
    backend = endpoint_for(fake_endpoint, clock=fake_clock)

    assert len(backend.execute(SELECT).rows) == 1
    assert fake_endpoint.queries == [SELECT.text, "ASK {}", SELECT.text]


def test_b10_gateway_fault_after_the_one_retry_is_endpoint_unavailable(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    gateway = Scripted(status=502, body=PROXY_HTML, content_type="text/html")
    fake_endpoint.script(gateway, ask_json(True), gateway, one_row())
    backend = endpoint_for(fake_endpoint, clock=fake_clock)

    with pytest.raises(EndpointUnavailable, match="HTTP 502"):
        backend.execute(SELECT)
    assert fake_endpoint.queries == [SELECT.text, "ASK {}", SELECT.text]
    # The endpoint answered the probe: no breaker, the next call goes out.
    assert len(backend.execute(SELECT).rows) == 1


def test_b10_gateway_fault_with_a_failed_probe_opens_the_breaker(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    gateway = Scripted(status=503, body=PROXY_HTML, content_type="text/html")
    fake_endpoint.script(gateway, gateway, one_row())
    backend = endpoint_for(fake_endpoint, clock=fake_clock)

    with pytest.raises(EndpointUnavailable, match="HTTP 503"):
        backend.execute(SELECT)
    with pytest.raises(EndpointUnavailable, match="liveness probe failed"):
        backend.execute(SELECT)
    assert fake_endpoint.queries == [SELECT.text, "ASK {}"]
