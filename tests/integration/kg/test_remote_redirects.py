"""Redirects are never followed (issue 10, hole 2): not by the SPARQL client, not by entity search.

A redirect from the configured endpoint would send saga (its User-Agent, a POST re-sent
as GET) to any host and scheme, and the target's reply would be used, and recorded, as
the endpoint's result. Each test points the redirect at a second loopback listener and
checks that it sees no connection at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import EndpointRedirected
from saga_kgqa.kg.cache.replay_cache import CacheMode, RecordReplayBackend
from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from saga_kgqa.kg.remote.wikidata_search import WikidataEntitySearch
from tests.support.fake_endpoint import FakeEndpoint, Scripted, redirect
from tests.support.remote_cases import SELECT, endpoint_for, one_row


@pytest.fixture
def target() -> Iterator[FakeEndpoint]:
    """The redirect's destination: a second origin (another port) that must stay untouched."""
    with FakeEndpoint() as endpoint:
        forget_gate(endpoint.url)
        endpoint.fallback = one_row()
        yield endpoint
        forget_gate(endpoint.url)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_never_followed(
    fake_endpoint: FakeEndpoint, target: FakeEndpoint, status: int
) -> None:
    fake_endpoint.script(redirect(target.url, status))
    backend = endpoint_for(fake_endpoint)
    with pytest.raises(EndpointRedirected) as caught:
        backend.execute(SELECT)
    message = caught.value.message
    assert f"redirected to {target.url}" in message and "configure that URL if you trust it" in message
    assert caught.value.location == target.url
    assert target.requests == [] and len(fake_endpoint.requests) == 1


@pytest.mark.parametrize("location", ["ftp://127.0.0.1:1/x", "file:///etc/passwd", "/other/sparql"])
def test_other_schemes_and_same_origin_redirects_are_not_followed_either(
    fake_endpoint: FakeEndpoint, location: str
) -> None:
    fake_endpoint.script(redirect(location, 307))
    with pytest.raises(EndpointRedirected, match="configure that URL"):
        endpoint_for(fake_endpoint, method="POST").execute(SELECT)
    assert len(fake_endpoint.requests) == 1  # the same-origin target was not asked either


def test_a_redirected_reply_is_never_recorded(
    fake_endpoint: FakeEndpoint, target: FakeEndpoint, tmp_path: Path
) -> None:
    fake_endpoint.script(redirect(target.url))
    cached = RecordReplayBackend(endpoint_for(fake_endpoint), cache_dir=tmp_path / "cache", mode=CacheMode.RECORD)
    with pytest.raises(EndpointRedirected):
        cached.execute(SELECT)
    assert not cached.path_for(SELECT).exists()
    assert target.requests == []


def test_entity_search_does_not_follow_redirects(fake_endpoint: FakeEndpoint, target: FakeEndpoint) -> None:
    target.fallback = Scripted(body=b'{"search": [{"id": "Q1"}]}', content_type="application/json")
    fake_endpoint.script(redirect(target.url))
    client = WikidataEntitySearch(fake_endpoint.url)
    with pytest.raises(EndpointRedirected, match="configure that URL if you trust it"):
        client.search("Isfahan")
    assert target.requests == []
