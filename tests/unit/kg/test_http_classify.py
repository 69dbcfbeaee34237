"""Reading HTTP answers through endpoint profiles (pure functions, no I/O)."""

from __future__ import annotations

import email.utils

import pytest

from saga_kgqa.errors import EndpointBanned, EndpointThrottled, EndpointUnavailable, QuerySyntaxError, QueryTimeout
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.remote.http_classify import (
    DEFAULT_BAN_S,
    HttpReply,
    classify,
    fault_error,
    parse_retry_after,
    partial_result_note,
)
from saga_kgqa.kg.remote.server_text import SERVER_TEXT_LIMIT, server_text

NOW = 1_700_000_000.0


def reply(status: int, body: bytes = b"", content_type: str = "text/plain", **headers: str) -> HttpReply:
    pairs = [("Content-Type", content_type), *((name.replace("_", "-"), value) for name, value in headers.items())]
    return HttpReply(status=status, headers=tuple(pairs), body=body)


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert parse_retry_after("7", wall_now=NOW) == 7.0
    assert parse_retry_after(email.utils.formatdate(NOW + 90, usegmt=True), wall_now=NOW) == pytest.approx(90.0)
    assert parse_retry_after(email.utils.formatdate(NOW - 90, usegmt=True), wall_now=NOW) == 0.0
    assert parse_retry_after("soon", wall_now=NOW) is None
    assert parse_retry_after(None, wall_now=NOW) is None


@pytest.mark.parametrize(
    ("profile", "status", "body", "kind"),
    [
        ("qlever", 429, b'{"exception": "Query timed out. Last operation: Query planning"}', "server_timeout"),
        ("qlever", 429, b"slow down", "throttled"),
        ("wikidata", 429, b'{"exception": "Operation timed out"}', "throttled"),
        ("wikidata", 500, b"java.util.concurrent.TimeoutException", "server_timeout"),
        ("virtuoso", 500, b"Virtuoso 37000 Error SP030: SPARQL compiler, line 1: syntax error", "syntax"),
        ("generic", 500, b"NullPointerException", "unavailable"),
        ("generic", 400, b"anything", "syntax"),
        ("generic", 414, b"", "syntax"),
        ("generic", 403, b"Forbidden", "unavailable"),
        ("generic", 404, b"", "unavailable"),
        ("generic", 503, b"", "gateway"),
        ("generic", 302, b"", "bad_response"),
    ],
)
def test_status_is_read_through_the_profile(profile: str, status: int, body: bytes, kind: str) -> None:
    fault = classify(reply(status, body), get_profile(profile), wall_now=NOW)
    assert fault is not None and fault.kind == kind


def test_only_a_500_timeout_may_be_retried_when_anchored() -> None:
    wdqs = classify(reply(500, b"java.util.concurrent.TimeoutException"), get_profile("wikidata"), wall_now=NOW)
    qlever = classify(reply(429, b'{"exception": "timed out"}'), get_profile("qlever"), wall_now=NOW)
    assert wdqs is not None and wdqs.retry_if_anchored
    assert qlever is not None and not qlever.retry_if_anchored


def test_a_503_with_retry_after_is_throttling() -> None:
    fault = classify(reply(503, Retry_After="30"), get_profile("generic"), wall_now=NOW)
    assert fault is not None and fault.kind == "throttled" and fault.retry_after_s == 30.0


def test_a_success_is_passed_to_the_parser_unless_html_or_cut() -> None:
    profile = get_profile("generic")
    assert classify(reply(200, b"{}", "application/sparql-results+json"), profile, wall_now=NOW) is None
    html = classify(reply(200, b"<html/>", "text/html; charset=utf-8"), profile, wall_now=NOW)
    assert html is not None and html.kind == "bad_response"
    cut = HttpReply(200, (), b'{"head": {', "cut")
    assert (classify(cut, profile, wall_now=NOW) or pytest.fail()).kind == "bad_response"


@pytest.mark.parametrize(
    ("body", "expected_s"),
    [
        (b"You have been banned until 2023-11-14T23:13:20Z, please respect throttling", 3600.0),
        (b"banned until Tue, 14 Nov 2023 23:13:20 GMT.", 3600.0),
        (b"You are banned.", DEFAULT_BAN_S),
    ],
)
def test_the_ban_window_is_read_from_the_body(body: bytes, expected_s: float) -> None:
    # 2023-11-14T23:13:20Z is NOW + 3600.
    fault = classify(reply(403, body), get_profile("wikidata"), wall_now=NOW)
    assert fault is not None and fault.kind == "banned"
    assert fault.ban_s == pytest.approx(expected_s)


def test_server_text_is_focused_and_cut() -> None:
    trace = (
        b"SPARQL-QUERY: "
        + b"q" * 5000
        + b"\norg.openrdf.query.MalformedQueryException: Encountered x\n"
        + b"at y\n" * 900
    )
    text = server_text(trace)
    assert text.startswith("MalformedQueryException: Encountered x")
    assert len(text) == SERVER_TEXT_LIMIT and text.endswith("…")
    assert server_text(b'{"exception": "bad token", "query": "..."}') == "bad token"
    assert server_text(b"<html><style>p{}</style><p>Too &amp; many</p></html>", "text/html") == "Too & many"


def test_partial_result_headers_follow_the_profile() -> None:
    partial = reply(200, X_SQL_State="S1TAT", X_SQL_Message="interrupted")
    note = partial_result_note(partial, get_profile("virtuoso"))
    assert note is not None and "S1TAT; interrupted" in note
    assert partial_result_note(partial, get_profile("generic")) is None


@pytest.mark.parametrize(
    ("status", "body", "error_type"),
    [
        (400, b"bad", QuerySyntaxError),
        (500, b"java.util.concurrent.TimeoutException", QueryTimeout),
        (429, b"", EndpointThrottled),
        (403, b"banned", EndpointBanned),
        (502, b"", EndpointUnavailable),
    ],
)
def test_faults_become_typed_errors(status: int, body: bytes, error_type: type[Exception]) -> None:
    fault = classify(reply(status, body), get_profile("wikidata"), wall_now=NOW)
    assert fault is not None
    assert type(fault_error(fault, endpoint="http://e/sparql")) is error_type
