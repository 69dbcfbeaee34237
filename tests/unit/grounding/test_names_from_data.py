"""Entities are found by the names their graph uses, whatever the property's local name (issue 22, point 1).

The graph has Spider4SPARQL's shape: no rdfs:label, names in ``concert_name``, ``first_name`` +
``last_name``, categorical values in ``nationality``, a ``week`` text beside numeric ``id``s.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import build_schema_index
from saga_kgqa.tools.search.name_detection import classify_values
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import tool_view

EX = "http://valuenet/ontop/"
GRAPH = f"""
@prefix : <{EX}> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:c1 a :concert ; :concert_name "Auditions" ; :theme "Free choice" ; :id 1 ; :week "Week 1" .
:c2 a :concert ; :concert_name "Home Visits" ; :theme "Bleeding Love" ; :id 2 ; :week "Week 2" .
:c3 a :concert ; :concert_name "Week 1" ; :theme "Wide Awake" ; :id 3 ; :week "Week 3" .
:s1 a :singer ; :first_name "Joe" ; :last_name "Sharp" ; :nationality "France" ; :singer_id "1" .
:s2 a :singer ; :first_name "Timbaland" ; :last_name "Mosley" ; :nationality "United States" ; :singer_id "2" .
:s3 a :singer ; :first_name "Justin" ; :last_name "Brown" ; :nationality "France" ; :singer_id "3" .
:s4 a :singer ; :first_name "Rose" ; :last_name "White" ; :nationality "Netherlands" ; :singer_id "4" .
"""


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolView]:
    path = tmp_path_factory.mktemp("names") / "g.ttl"
    path.write_text(GRAPH, encoding="utf-8")
    with EmbeddedStore.from_files([path]) as store:
        yield tool_view(KnowledgeGraph(store), build_schema_index(store))


def _top(kit: ToolView, text: str, n: int = 5) -> list[tuple[str, str]]:
    hits = [h for h in kit.search(text).hits if h.kind == "entity"]
    return [(h.resource.iri, h.matched) for h in hits[:n]]


def test_a_name_in_a_property_named_concert_name_is_found(kit: ToolView) -> None:
    assert _top(kit, "Auditions")[0] == (EX + "c1", "Auditions")
    assert _top(kit, "Home Visits")[0] == (EX + "c2", "Home Visits")


def test_a_categorical_value_is_found_with_the_property_that_holds_it(kit: ToolView) -> None:
    top = _top(kit, "France")
    assert {iri for iri, _text in top[:2]} == {EX + "s1", EX + "s3"}
    assert f'[matched "France" via <{EX}nationality>]' in kit.search("France").text


def test_a_compound_name_is_found(kit: ToolView) -> None:
    assert _top(kit, "Joe Sharp")[0][0] == EX + "s1"


def test_an_identifier_never_outranks_a_name_match(kit: ToolView) -> None:
    top = _top(kit, "Week 1")
    # The concert named "Week 1" and the one whose week is "Week 1" come first; nothing whose id is 1.
    assert {iri for iri, _text in top[:2]} == {EX + "c1", EX + "c3"}
    assert all(text == "Week 1" for _iri, text in top[:2])


def test_values_are_classified_as_names_texts_or_identifiers() -> None:
    def lit(values: list[str]) -> list[Term]:
        return [Term("literal", v) for v in values]

    subjects = [f"s{i}" for i in range(6)]
    assert classify_values(EX + "song_name", lit(["a", "b", "c", "d", "e", "f"]), subjects) == "name"
    assert classify_values(EX + "nationality", lit(["France", "France", "Peru"] * 2), subjects) == "text"
    assert classify_values(EX + "age", lit(["32", "33", "41", "29", "30", "30"]), subjects) == "identifier"
    assert classify_values(EX + "player_code", lit(["A1", "A2", "B7", "C9", "D1", "E4"]), subjects) == "identifier"
    assert classify_values(EX + "text", lit(["word " * 60] * 6), subjects) is None
    sentences = [f"The {i}th slot of a schema, read only" for i in range(6)]
    assert classify_values(EX + "description", lit(sentences), subjects) == "text"
    numbers = [Term("literal", "3", "http://www.w3.org/2001/XMLSchema#integer")] * 6
    assert classify_values(EX + "count", numbers, subjects) is None
