"""Queries, canned bodies and a constructor shared by the remote backend tests."""

from __future__ import annotations

from typing import Any

from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted, select_json, uri_rows

SELECT = from_template("SELECT ?s WHERE { ?s ?p ?o } LIMIT 10", limit=10)
OTHER_SELECT = from_template("SELECT ?o WHERE { ?s ?p ?o } LIMIT 5", limit=5)
ANCHORED = from_template("SELECT ?o WHERE { wd:Q42 wdt:P31 ?o } LIMIT 10", limit=10)
UNANCHORED = from_template("SELECT ?s WHERE { ?s wdt:P31 ?o } LIMIT 10", limit=10)
JETTY_429 = b"<html><body><h2>HTTP ERROR 429</h2><p>Too Many Requests - Please retry in 7 seconds.</p></body></html>"
PROXY_HTML = b"<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>"


def endpoint_for(
    fake: FakeEndpoint, profile: str = "generic", clock: FakeClock | None = None, **kwargs: Any
) -> RemoteEndpoint:
    """A remote backend pointed at the fake endpoint."""
    return RemoteEndpoint(fake.url, profile=get_profile(profile), clock=clock, **kwargs)


def one_row() -> Scripted:
    """A 200 answer with one binding of ?s."""
    return select_json(["s"], uri_rows(1))
