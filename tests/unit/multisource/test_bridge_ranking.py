"""The bridge ranks the true join first, with normalised keys and the score's parts shown (issue 23, points 1-2)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from saga_kgqa.sources.grounding import bridge_sources
from saga_kgqa.sources.session import SourceSet
from tests.unit.multisource.conftest import L, R


def _pairs(sources: SourceSet) -> list[tuple[str | None, str | None]]:
    result = bridge_sources(sources, "concerts", "venues")
    return [(c.left_property, c.right_property) for c in result.candidates if c.kind == "shared_value"]


def test_small_colliding_ids_do_not_outrank_the_named_key(concert_sources: Callable[[str], SourceSet]) -> None:
    # num_guests shares more values with singerId (6) than stadium_id does with stadiumId (4).
    pairs = _pairs(concert_sources("integer"))
    assert pairs[0] == (L + "stadium_id", R + "stadiumId")


@pytest.mark.parametrize("form", ["string", "padded", "double", "prefix", "iri"])
def test_keys_that_differ_in_datatype_still_match(concert_sources: Callable[[str], SourceSet], form: str) -> None:
    # prefix, iri: every stadium id re-encoded one to one ("ID:1", <…/id/1>) still outranks the exact
    # coincidence of stadium_id with singerId (the same containment): a re-encoding loses nothing.
    sources = concert_sources(form)
    result = bridge_sources(sources, "concerts", "venues")
    top = result.candidates[0]
    assert (top.left_property, top.right_property) == (L + "stadium_id", R + "stadiumId"), result.text
    expected = {"string": "datatype", "padded": "zero-padding", "double": "datatype"}.get(form, form)
    expected = "local-name" if form == "iri" else expected
    assert top.normalisation == expected
    assert expected in result.text


def test_the_score_shows_its_parts(concert_sources: Callable[[str], SourceSet]) -> None:
    result = bridge_sources(concert_sources("integer"), "concerts", "venues")
    top = result.candidates[0]
    assert top.parts.containment == 1.0 and top.parts.names > 0.5 and top.parts.distinct == 1.0
    assert top.score == max(c.score for c in result.candidates)
    for word in ("containment", "distinct", "names", "datatypes", "second batch"):
        assert word in result.text
