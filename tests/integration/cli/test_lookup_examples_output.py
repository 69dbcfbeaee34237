"""Issue 11, point 4 on a real store: a datatype stands in for an unknown range; examples vary their values."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from saga_kgqa.cli import app
from saga_kgqa.kg.core.result import Term
from saga_kgqa.tools.search.tool import varied_rows

SHOP = """
@prefix ex: <http://example.org/shop/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:acme a ex:Supplier . ex:bolt a ex:Supplier . ex:cog a ex:Supplier .
ex:p1 a ex:Product ; ex:hasSupplier ex:acme ; ex:released "2020-01-01"^^xsd:date .
ex:p2 a ex:Product ; ex:hasSupplier ex:acme ; ex:released "2021-01-01"^^xsd:date .
ex:p3 a ex:Product ; ex:hasSupplier ex:acme .
ex:p4 a ex:Product ; ex:hasSupplier ex:acme .
ex:p5 a ex:Product ; ex:hasSupplier ex:acme .
ex:p6 a ex:Product ; ex:hasSupplier ex:acme .
ex:p7 a ex:Product ; ex:hasSupplier ex:bolt .
ex:p8 a ex:Product ; ex:hasSupplier ex:cog .
"""


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    path = tmp_path / "shop.ttl"
    path.write_text(SHOP, encoding="utf-8")
    return path


def test_examples_show_distinct_suppliers_when_the_graph_has_them(shop: Path) -> None:
    done = CliRunner().invoke(app, ["examples", "ex:hasSupplier", "--data", str(shop)])
    assert done.exit_code == 0, done.output
    rows = [line for line in done.stdout.splitlines() if line.startswith("- ")]
    assert len(rows) == 5
    assert {line.rsplit(" ", 1)[-1] for line in rows} == {"ex:acme", "ex:bolt", "ex:cog"}
    assert len({line.split()[1] for line in rows}) == 5  # and no subject twice


def test_a_property_with_two_values_shows_its_datatype_as_range(shop: Path) -> None:
    done = CliRunner().invoke(app, ["lookup", "ex:p1", "--data", str(shop)])
    assert done.exit_code == 0, done.output
    (released,) = [line for line in done.stdout.splitlines() if line.startswith("- ex:released")]
    assert "range: xsd:date" in released
    assert "unknown" not in released


def _uri(name: str) -> Term:
    return Term(kind="uri", value=f"http://e/{name}")


def test_varied_rows_prefers_new_subjects_and_objects_then_fills_up() -> None:
    rows = [{"s": _uri(s), "o": _uri(o)} for s, o in [("a", "x"), ("b", "x"), ("a", "y"), ("c", "z"), ("d", "x")]]
    assert varied_rows(rows, 2) == [rows[0], rows[3]]
    assert varied_rows(rows, 3) == [rows[0], rows[1], rows[3]]  # one new side beats none
    assert varied_rows(rows, 9) == rows
