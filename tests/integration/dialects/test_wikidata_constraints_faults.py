"""The P2302 reader on a faulty endpoint: a broken page is a typed error, never a smaller index."""

from __future__ import annotations

from typing import Any

import pytest

from saga_kgqa.errors import BadResponse, QueryTimeout
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.remote.endpoint import RemoteEndpoint, build_user_agent
from saga_kgqa.schema.wikidata_constraints import build_wikidata_constraint_index
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted, select_json

WD = "http://www.wikidata.org/entity/"
VARIABLES = ["property", "propertyType", "label", "description", "statement", "constraint", "class", "relation"]


def _property_rows(*pids: str) -> list[dict[str, Any]]:
    return [
        {
            "property": {"type": "uri", "value": WD + pid},
            "propertyType": {"type": "uri", "value": "http://wikiba.se/ontology#WikibaseItem"},
        }
        for pid in pids
    ]


def _backend(fake_endpoint: FakeEndpoint, fake_clock: FakeClock) -> RemoteEndpoint:
    return RemoteEndpoint(fake_endpoint.url, profile=get_profile("wikidata"), clock=fake_clock)


def test_html_on_the_second_page_is_a_bad_response(fake_endpoint: FakeEndpoint, fake_clock: FakeClock) -> None:
    # B11 on the schema path: the first page is full, the second is a proxy's HTML page.
    fake_endpoint.script(
        select_json(VARIABLES, _property_rows("P1", "P2")),
        Scripted(body=b"<html>maintenance</html>", content_type="text/html"),
    )
    with pytest.raises(BadResponse):
        build_wikidata_constraint_index(_backend(fake_endpoint, fake_clock), page_size=2)
    assert len(fake_endpoint.requests) == 2
    # B15: the schema reader identifies itself like every other request.
    agent = build_user_agent()
    assert all(request.user_agent == agent for request in fake_endpoint.requests)


def test_server_timeout_is_a_query_timeout(fake_endpoint: FakeEndpoint, fake_clock: FakeClock) -> None:
    # B6 on the schema path: WDQS's 500 with a Java TimeoutException (the query is not anchored: no retry).
    timeout = Scripted(status=500, body=b"java.util.concurrent.TimeoutException", content_type="text/plain")
    fake_endpoint.script(timeout, timeout)
    with pytest.raises(QueryTimeout):
        build_wikidata_constraint_index(_backend(fake_endpoint, fake_clock), page_size=2)


def test_a_short_page_ends_the_paging(fake_endpoint: FakeEndpoint, fake_clock: FakeClock) -> None:
    fake_endpoint.script(
        select_json(VARIABLES, _property_rows("P1", "P2")), select_json(VARIABLES, _property_rows("P3"))
    )
    index = build_wikidata_constraint_index(_backend(fake_endpoint, fake_clock), page_size=2)
    assert sorted(index.properties) == [f"http://www.wikidata.org/prop/direct/P{i}" for i in (1, 2, 3)]
    # Two property pages; no constraint classes, so no class query.
    assert len(fake_endpoint.requests) == 2
    assert "OFFSET 2" in fake_endpoint.queries[1]


def test_a_page_cut_by_the_row_limit_does_not_end_the_paging(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("saga_kgqa.schema.wikidata_constraints._ROWS_PER_PROPERTY", 1)
    # Page of 2 properties, row limit 2: both rows belong to P1 (label rows), so P2 is cut off.
    label_rows = [
        dict(row, label={"type": "literal", "value": name, "xml:lang": "en"})
        for row, name in zip(_property_rows("P1", "P1"), ["a", "b"], strict=True)
    ]
    fake_endpoint.script(select_json(VARIABLES, label_rows), select_json(VARIABLES, _property_rows("P3")))
    index = build_wikidata_constraint_index(_backend(fake_endpoint, fake_clock), page_size=2)
    assert len(fake_endpoint.requests) == 2
    assert "http://www.wikidata.org/prop/direct/P3" in index.properties
    assert any("stopped at 2 rows" in note for note in index.notes)
