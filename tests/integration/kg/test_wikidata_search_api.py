"""The wbsearchentities client against a loopback fake: etiquette, Retry-After, typed errors, toolkit search."""

from __future__ import annotations

import json
import threading
import urllib.parse
from pathlib import Path

import pytest

from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.errors import BadResponse, EndpointThrottled, EndpointUnavailable
from saga_kgqa.kg.remote.wikidata_search import WikidataEntitySearch
from saga_kgqa.schema import build_dialect_index
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted
from tests.support.grounding import tool_view
from tests.support.wikidata_store_data import write_store_sources

JSON = "application/json"


def answer(*hits: dict[str, object], delay_s: float = 0.0) -> Scripted:
    return Scripted(body=json.dumps({"search": list(hits)}).encode(), content_type=JSON, delay_s=delay_s)


ISFAHAN = {"id": "Q42053", "label": "Isfahan", "description": "city in Iran", "match": {"text": "Isfahan"}}


def test_search_sends_the_api_parameters_and_a_user_agent(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(answer(ISFAHAN, {"id": "Q1", "label": "Esfahan (disambiguation)"}))
    client = WikidataEntitySearch(fake_endpoint.url, contact="ops@example.org")
    hits = client.search("Isfahan", kind="item", limit=8)
    assert [(h.id, h.label, h.description) for h in hits] == [
        ("Q42053", "Isfahan", "city in Iran"),
        ("Q1", "Esfahan (disambiguation)", None),
    ]
    request = fake_endpoint.requests[0]
    params = dict(urllib.parse.parse_qsl(request.params))
    assert params["action"] == "wbsearchentities" and params["search"] == "Isfahan"
    assert params["type"] == "item" and params["limit"] == "8" and params["language"] == "en"
    assert request.user_agent.startswith("saga-kgqa/") and "ops@example.org" in request.user_agent


def test_retry_after_is_waited_out_on_the_clock_then_retried(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": "3"}, content_type="text/plain"), answer(ISFAHAN))
    client = WikidataEntitySearch(fake_endpoint.url, clock=fake_clock)
    assert [h.id for h in client.search("Isfahan")] == ["Q42053"]
    assert fake_clock.sleeps == [3.0]
    assert len(fake_endpoint.requests) == 2


def test_a_wait_longer_than_the_deadline_fails_fast_without_a_second_request(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock
) -> None:
    fake_endpoint.script(Scripted(status=429, headers={"Retry-After": "120"}, content_type="text/plain"))
    client = WikidataEntitySearch(fake_endpoint.url, clock=fake_clock)
    with pytest.raises(EndpointThrottled) as caught:
        client.search("Isfahan", deadline_s=5)
    assert caught.value.retry_after_s == 120
    assert len(fake_endpoint.requests) == 1 and fake_clock.sleeps == []


def test_html_and_server_errors_are_typed(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(
        Scripted(body=b"<html>maintenance</html>", content_type="text/html"),
        Scripted(status=500, body=b"oops", content_type="text/plain"),
    )
    client = WikidataEntitySearch(fake_endpoint.url)
    with pytest.raises(BadResponse):
        client.search("Isfahan")
    with pytest.raises(EndpointUnavailable):
        client.search("Isfahan")


def test_only_one_request_is_in_flight_at_a_time(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(*(answer(ISFAHAN, delay_s=0.1) for _ in range(4)))
    clients = [WikidataEntitySearch(fake_endpoint.url) for _ in range(2)]  # separate objects share the host's gate
    threads = [threading.Thread(target=clients[i % 2].search, args=("Isfahan",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(fake_endpoint.requests) == 4
    assert fake_endpoint.max_in_flight == 1


def test_toolkit_search_uses_the_api_when_online(fake_endpoint: FakeEndpoint, tmp_path: Path) -> None:
    from saga_kgqa.dialects.wikidata_store import build_wikidata_store
    from saga_kgqa.kg.core.profiles import get_profile
    from saga_kgqa.kg.embedded.store import EmbeddedStore
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

    data = write_store_sources(tmp_path / "data")
    build_wikidata_store(data, tmp_path / "store")
    fake_endpoint.script(
        answer(ISFAHAN), answer({"id": "P1082", "label": "population", "description": "number of people"})
    )
    schema = build_dialect_index("wikidata", data_dir=data)
    client = WikidataEntitySearch(fake_endpoint.url)
    with KnowledgeGraph(EmbeddedStore(tmp_path / "store", profile=get_profile("wikidata"))) as graph:
        kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT, entity_search=client)
        result = kit.search("Isfahan")
    entity, prop = result.hits
    assert entity.resource.id == "wd:Q42053" and entity.match == "exact"
    assert [t.id for t in entity.types] == ["wd:Q1549591", "wd:Q56557504"]  # types read from the graph
    # The graph's own description wins over the API's when it has one.
    assert entity.description == "city in Isfahan Province, Iran"
    assert prop.kind == "property" and prop.resource.id == "wdt:P1082"
    assert [dict(urllib.parse.parse_qsl(r.params))["type"] for r in fake_endpoint.requests] == ["item", "property"]
