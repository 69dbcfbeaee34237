"""A property or class of another catalog source is named as living there (issue 23, point 4)."""

from __future__ import annotations

from collections.abc import Callable

from saga_kgqa.sources.grounding import execute_on_source
from saga_kgqa.sources.session import SourceSet
from tests.unit.multisource.conftest import L, R


def test_a_property_from_the_other_source_is_named_as_living_there(
    concert_sources: Callable[[str], SourceSet],
) -> None:
    sources = concert_sources("integer")
    outcome = execute_on_source(sources, "venues", f"SELECT ?c WHERE {{ ?c <{L}year> 2014 }}")
    assert outcome.status != "ok"
    assert "lives in source concerts" in outcome.text, outcome.text
    assert "year" in outcome.text


def test_a_class_from_the_other_source_is_named_too(concert_sources: Callable[[str], SourceSet]) -> None:
    sources = concert_sources("integer")
    outcome = execute_on_source(sources, "concerts", f"PREFIX r: <{R}> SELECT ?s WHERE {{ ?s a r:Stadium }}")
    assert "lives in source venues" in outcome.text, outcome.text


def test_a_query_that_answers_gets_no_hint(concert_sources: Callable[[str], SourceSet]) -> None:
    sources = concert_sources("integer")
    outcome = execute_on_source(sources, "concerts", f"SELECT ?c WHERE {{ ?c <{L}year> 2014 }}")
    assert outcome.status == "ok" and "lives in source" not in outcome.text
