"""Virtuoso SQLSTATE lines as Virtuoso 7.2.5 writes them (copied from its answers)."""

from __future__ import annotations

import pytest

from saga_kgqa.kg.core.profiles import get_profile, protocol_params
from saga_kgqa.kg.remote.sqlstate import parse_sql_error, without_query_echo

ECHO = "\n\nSPARQL query:\ndefine sql:big-data-const 0 SELECT (1/0 AS ?x) {}"


@pytest.mark.parametrize(
    ("line", "kind", "code"),
    [
        ("Virtuoso 22012 Error SR084: Division by 0.", "query_error", "SR084"),
        ("Virtuoso 2201B Error SR098: regexp error at '(' column 1 (missing ))", "query_error", "SR098"),
        (
            "Virtuoso 22007 Error DT006: Cannot convert foo to datetime : Incorrect year delimiter",
            "query_error",
            "DT006",
        ),
        ("Virtuoso 42001 Error SR185: Undefined procedure DB.DBA.http://ex.org/f.", "query_error", "SR185"),
        (
            "Virtuoso 42000 Error The estimated execution time 114604 (sec) exceeds the limit of 400 (sec).",
            "too_heavy",
            "",
        ),
        ("Virtuoso S1T00 Error SR171: Transaction timed out", "server_timeout", "SR171"),
        (
            "Virtuoso 42000 Error SR186:SECURITY: No permission to execute procedure DB.DBA.SPARQL_INSERT_DICT_CONTENT",
            "refused",
            "SR186",
        ),
        ("Virtuoso 37000 Error SP030: SPARQL compiler, line 2: syntax error at '}'", "syntax", "SP030"),
        ("Virtuoso 08C01 Error CL065: Lost connection to server", "unavailable", "CL065"),
    ],
)
def test_error_lines_are_classified(line: str, kind: str, code: str) -> None:
    error = parse_sql_error(line + ECHO)
    assert error is not None
    assert (error.kind, error.code) == (kind, code)
    assert error.state == line.split()[1]


def test_text_without_a_sqlstate_is_left_to_the_status_rules() -> None:
    assert parse_sql_error("Internal Server Error") is None
    assert parse_sql_error("Virtuoso 42S22 Error SQ200: No column x.") is None


def test_query_echo_is_dropped() -> None:
    assert without_query_echo("Virtuoso 22012 Error SR084: Division by 0." + ECHO) == (
        "Virtuoso 22012 Error SR084: Division by 0."
    )


def test_timeout_parameter_stays_well_below_the_deadline() -> None:
    virtuoso = get_profile("virtuoso")
    assert protocol_params(virtuoso, remaining_s=30.0) == [("timeout", "22500")]
    assert protocol_params(virtuoso, remaining_s=4.0) == [("timeout", "2000")]
    assert protocol_params(virtuoso, remaining_s=1.0) == [("timeout", "500")]
    assert protocol_params(virtuoso, remaining_s=1000.0) == [("timeout", "120000")]
    assert protocol_params(get_profile("generic"), remaining_s=30.0) == []
