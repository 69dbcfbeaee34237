from __future__ import annotations

import pytest

from saga_kgqa.kg.core.result import QueryResult, Term

DOC = {
    "head": {"vars": ["s", "label", "n", "b", "opt"]},
    "results": {
        "bindings": [
            {
                "s": {"type": "uri", "value": "http://example.org/x"},
                "label": {"type": "literal", "value": "Zürich \u202e", "xml:lang": "de"},
                "n": {"type": "literal", "value": "42", "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
                "b": {"type": "bnode", "value": "b0"},
            },
            {"s": {"type": "uri", "value": "http://example.org/y"}},
        ]
    },
}


def test_sparql_json_round_trip_is_lossless() -> None:
    result = QueryResult.from_sparql_json(DOC)
    assert result.variables == ["s", "label", "n", "b", "opt"]
    assert result.rows[0]["label"] == Term("literal", "Zürich \u202e", lang="de")
    assert result.rows[0]["n"].datatype == "http://www.w3.org/2001/XMLSchema#integer"
    assert result.rows[0]["b"].kind == "bnode"
    assert "opt" not in result.rows[0] and "label" not in result.rows[1]
    assert QueryResult.from_sparql_json(result.to_sparql_json()).rows == result.rows


def test_ask_result_and_form_mismatch() -> None:
    assert QueryResult.from_sparql_json({"head": {}, "boolean": True}).boolean is True
    with pytest.raises(ValueError, match="boolean"):
        QueryResult.from_sparql_json({"head": {}, "boolean": True}, form="SELECT")
    with pytest.raises(ValueError, match="lacks"):
        QueryResult.from_sparql_json({"head": {"vars": []}})


def test_n3_escapes_quotes_and_newlines() -> None:
    assert Term("literal", 'a "b"\nc').n3() == '"a \\"b\\"\\nc"'
    assert Term("literal", "1", datatype="http://x/int").n3() == '"1"^^<http://x/int>'
