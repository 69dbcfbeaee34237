"""Remote endpoint faults B11-B17 of docs/faults.md section 8B (bodies, caps, terms, User-Agent, concurrency).

B1-B10 are in test_remote_faults.py.
"""

from __future__ import annotations

import json
import threading
import tracemalloc
from collections.abc import Iterator

import pytest

from saga_kgqa.errors import BadResponse, ConfigurationError
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import Term
from tests.support.fake_clock import FakeClock
from tests.support.fake_endpoint import FakeEndpoint, Scripted, ask_json, select_json, uri_rows
from tests.support.remote_cases import ANCHORED, PROXY_HTML, SELECT, endpoint_for, one_row


@pytest.mark.parametrize(
    ("query", "scripted"),
    [
        (SELECT, Scripted(body=b"<html><body>Service starting</body></html>", content_type="text/html")),
        (SELECT, Scripted(body=b'{"head": {"vars": ["s"]}, "results": {"bindings": [}')),
        (SELECT, Scripted(body=b'{"head": {"vars": ["s"]}}')),
        (SELECT, Scripted(body=b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": ', content_length=4096)),
        (SELECT, Scripted(body=b"")),
        (from_template("ASK { ?s ?p ?o }", "ASK"), one_row()),
        (SELECT, Scripted(body=b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": {"type": "uri"}}]}}')),
    ],
    ids=["html", "invalid-json", "no-results", "cut-off", "empty-body", "ask-given-bindings", "term-without-value"],
)
def test_b11_bad_bodies_are_bad_response_never_an_empty_result(
    fake_endpoint: FakeEndpoint, query: CheckedQuery, scripted: Scripted
) -> None:
    fake_endpoint.script(scripted)
    backend = endpoint_for(fake_endpoint)

    with pytest.raises(BadResponse, match="not an empty result"):
        backend.execute(query)
    assert len(fake_endpoint.requests) == 1


def _fifty_megabytes() -> Iterator[bytes]:
    yield b'{"head": {"vars": ["s"]}, "results": {"bindings": [\n'
    sent, index = 0, 0
    while sent < 50 * 1024 * 1024:
        batch = ",\n".join(
            json.dumps({"s": {"type": "uri", "value": f"http://example.org/item/{i}"}})
            for i in range(index, index + 1000)
        )
        piece = (",\n" if index else "") + batch
        index += 1000
        sent += len(piece)
        yield piece.encode()
    yield b"\n]}}"


def test_b12_byte_cap_stops_reading_a_50_mb_body_and_keeps_complete_rows(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(Scripted(body_stream=_fifty_megabytes, content_length=None))
    backend = endpoint_for(fake_endpoint)
    cap = 1024 * 1024

    tracemalloc.start()
    try:
        result = backend.execute(SELECT, ExecutionLimits(max_bytes=cap, max_rows=1_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert result.truncated
    assert any("byte cap" in note for note in result.notes)
    assert 10_000 < len(result.rows) < cap // 40  # each row takes more than 40 bytes of JSON
    assert [row["s"].value for row in result.rows] == [f"http://example.org/item/{i}" for i in range(len(result))]
    assert peak < 40 * 1024 * 1024, f"peak memory {peak / 1e6:.1f} MB for a 1 MB cap"
    assert fake_endpoint.bytes_sent < 16 * 1024 * 1024, "the server kept sending: the client did not stop reading"


def test_b12_row_cap_marks_the_result_truncated(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(select_json(["s"], uri_rows(50)))
    result = endpoint_for(fake_endpoint).execute(SELECT, ExecutionLimits(max_rows=7))

    assert result.truncated
    assert [row["s"].value for row in result.rows] == [f"http://example.org/item/{i}" for i in range(7)]
    assert result.notes == ["stopped after 7 rows (row cap)"]


def test_b13_virtuoso_anytime_header_marks_the_result_incomplete(fake_endpoint: FakeEndpoint) -> None:
    headers = {"X-SQL-State": "S1TAT", "X-SQL-Message": "RC...: Returning incomplete results, query interrupted"}
    fake_endpoint.script(select_json(["s"], uri_rows(3), headers=headers), select_json(["s"], uri_rows(3)))
    backend = endpoint_for(fake_endpoint, "virtuoso")

    partial = backend.execute(SELECT)
    assert not partial.complete
    assert len(partial.rows) == 3
    assert any("S1TAT" in note and "counts" in note for note in partial.notes)
    whole = backend.execute(SELECT)
    assert whole.complete and whole.notes == []


def test_b14_terms_are_parsed_losslessly(fake_endpoint: FakeEndpoint) -> None:
    rows = [
        {
            "x": {"type": "bnode", "value": "b0"},
            "label": {"type": "literal", "value": "Zürich", "xml:lang": "de-CH"},
            "n": {"type": "literal", "value": "42", "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
            "text": {"type": "literal", "value": 'naïve 𝄞 "q"\n\u200b'},
        },
        {"x": {"type": "uri", "value": "http://example.org/ä"}},  # label, n and text unbound
    ]
    # ensure_ascii escapes every non-ASCII character as \\uXXXX (surrogate pairs included).
    fake_endpoint.script(
        Scripted(
            body=json.dumps({"head": {"vars": ["x", "label", "n", "text"]}, "results": {"bindings": rows}}).encode()
        )
    )

    result = endpoint_for(fake_endpoint).execute(SELECT)

    assert result.variables == ["x", "label", "n", "text"]
    first, second = result.rows
    assert first["x"] == Term("bnode", "b0")
    assert first["label"] == Term("literal", "Zürich", lang="de-CH")
    assert first["n"] == Term("literal", "42", datatype="http://www.w3.org/2001/XMLSchema#integer")
    assert first["text"] == Term("literal", 'naïve 𝄞 "q"\n\u200b')
    assert second == {"x": Term("uri", "http://example.org/ä")}
    assert result.to_sparql_json()["results"]["bindings"] == rows


def test_b15_every_request_names_the_project_and_its_contact(
    fake_endpoint: FakeEndpoint, fake_clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SAGA_CONTACT", "mailto:ops@example.org")
    fake_endpoint.script(
        Scripted(status=502, body=PROXY_HTML, content_type="text/html"), ask_json(True), one_row(), one_row()
    )
    endpoint_for(fake_endpoint, clock=fake_clock).execute(SELECT)  # query, probe, retry
    endpoint_for(fake_endpoint, clock=fake_clock, contact="https://example.org/bot").execute(SELECT)

    agents = [request.user_agent for request in fake_endpoint.requests]
    assert len(agents) == 4
    for agent in agents:
        assert agent.startswith("saga-kgqa/0.1.0 (")
        assert agent.endswith(") SPARQLWrapper/2.0.0")
        assert not agent.lower().startswith("sparqlwrapper"), "SPARQLWrapper's default UA was sent"
    assert agents[:3] == ["saga-kgqa/0.1.0 (mailto:ops@example.org) SPARQLWrapper/2.0.0"] * 3
    assert agents[3] == "saga-kgqa/0.1.0 (https://example.org/bot) SPARQLWrapper/2.0.0"


@pytest.mark.parametrize("contact", ["", "bad\r\nX-Injected: 1", "has (parentheses)"])
def test_b15_an_unusable_contact_is_a_configuration_error(fake_endpoint: FakeEndpoint, contact: str) -> None:
    with pytest.raises(ConfigurationError, match="contact"):
        endpoint_for(fake_endpoint, contact=contact)


@pytest.mark.parametrize(("profile", "bound"), [("wikidata", 1), ("generic", 4)])
def test_b16_parallel_calls_are_bounded_by_the_profile(fake_endpoint: FakeEndpoint, profile: str, bound: int) -> None:
    fake_endpoint.fallback = select_json(["s"], uri_rows(1), delay_s=0.2)
    backends = [endpoint_for(fake_endpoint, profile) for _ in range(2)]  # two objects, one shared gate
    results: list[int] = []
    errors: list[BaseException] = []

    def call(index: int) -> None:
        try:
            results.append(len(backends[index % 2].execute(SELECT).rows))
        except BaseException as error:  # collected and re-raised by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)

    assert errors == []
    assert results == [1] * 8
    assert fake_endpoint.max_in_flight == bound


def test_b17_empty_bindings_are_an_empty_result_not_an_error(fake_endpoint: FakeEndpoint) -> None:
    fake_endpoint.script(select_json(["item", "label"], []), ask_json(False))
    backend = endpoint_for(fake_endpoint, "wikidata")

    empty = backend.execute(ANCHORED)
    assert empty.rows == [] and empty.variables == ["item", "label"]
    assert empty.complete and not empty.truncated
    assert backend.execute(from_template("ASK { wd:Q42 wdt:P31 wd:Q5 }", "ASK")).boolean is False
