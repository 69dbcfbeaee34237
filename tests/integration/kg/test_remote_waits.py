"""Entity search has a total deadline; Retry-After waits are capped (issue 10, hole 11).

The MediaWiki client used to give each socket operation the whole deadline, so a
server trickling its body took 38 s under ``deadline_s=3``; one ``Retry-After: 999999``
paused the endpoint for the whole process.
"""

from __future__ import annotations

import time

import pytest

from saga_kgqa.errors import EndpointThrottled, QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.remote.http_classify import parse_retry_after
from saga_kgqa.kg.remote.http_retry import MAX_RETRY_AFTER_ENV, max_retry_after_s
from saga_kgqa.kg.remote.wikidata_search import WikidataEntitySearch
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted
from tests.support.remote_cases import ANCHORED, endpoint_for, one_row

HITS = b'{"search": [' + b'{"id": "Q1", "label": "x"},' * 10 + b'{"id": "Q2"}]}'


def test_entity_search_stops_at_its_total_deadline_on_a_trickling_server(fake_endpoint: FakeEndpoint) -> None:
    # One byte every 0.1 s: each read succeeds well within any per-read timeout.
    fake_endpoint.script(Scripted(body=HITS, content_type="application/json", chunk_bytes=1, chunk_interval_s=0.1))
    client = WikidataEntitySearch(fake_endpoint.url)
    started = time.monotonic()
    with pytest.raises(QueryTimeout, match="within the deadline"):
        client.search("Isfahan", deadline_s=1.0)
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, f"a deadline of 1 s fired after {elapsed:.1f} s"


@pytest.mark.parametrize("value", ["²", "٣", "9" * 300, "9" * 400, "-5", "1e9", " 12 "])
def test_retry_after_values_never_raise_and_are_finite(value: str) -> None:
    wait = parse_retry_after(value, wall_now=time.time())
    assert wait is None or (0 <= wait < float("inf"))
    if value.strip() == "12":
        assert wait == 12.0


def test_the_cap_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_RETRY_AFTER_ENV, "7.5")
    assert max_retry_after_s() == 7.5
    monkeypatch.delenv(MAX_RETRY_AFTER_ENV)
    assert 60 <= max_retry_after_s() <= 600


@pytest.mark.parametrize("retry_after", ["999999", "9" * 300])
def test_a_huge_retry_after_is_capped_and_the_cap_is_reported(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch, retry_after: str
) -> None:
    monkeypatch.setenv(MAX_RETRY_AFTER_ENV, "20")
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": retry_after}, content_type="text/plain"))
    backend = endpoint_for(fake_endpoint, clock=fake_clock)
    with pytest.raises(EndpointThrottled) as caught:
        backend.execute(ANCHORED, ExecutionLimits(deadline_s=600))
    assert "cap of 20 s" in caught.value.message and MAX_RETRY_AFTER_ENV in caught.value.message
    assert caught.value.retry_after_s == 20
    assert fake_clock.sleeps == []  # it gave up at once instead of sleeping for days
    # The endpoint is paused for the cap, not for the whole process: a later call waits it out.
    fake_endpoint.script(one_row())
    assert len(backend.execute(ANCHORED, ExecutionLimits(deadline_s=600)).rows) == 1
    assert max(fake_clock.sleeps) <= 20


def test_an_unreadable_retry_after_falls_back_to_the_profile_default(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": "²"}, content_type="text/plain"), one_row())
    backend = endpoint_for(fake_endpoint, clock=fake_clock)
    assert len(backend.execute(ANCHORED, ExecutionLimits(deadline_s=600)).rows) == 1
    assert fake_clock.sleeps == [backend.profile.default_retry_after_s]


def test_entity_search_caps_retry_after_too(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_RETRY_AFTER_ENV, "20")
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": "999999"}, content_type="text/plain"))
    client = WikidataEntitySearch(fake_endpoint.url, clock=fake_clock)
    with pytest.raises(EndpointThrottled, match="cap of 20 s") as caught:
        client.search("Isfahan", deadline_s=600)
    assert caught.value.retry_after_s == 20 and fake_clock.sleeps == []
