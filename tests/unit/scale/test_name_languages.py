"""Names keep their language tag; search ranks the question's language first, then untagged, then any (issue 25.4).

And numbers and dates are values, not names (issue 27): typed literals are never indexed as names,
and a survey never takes an integer or date property for an identifier property.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.schema.model import TypeCount
from saga_kgqa.schema.survey_model import KindCount, SourceSurvey, SurveyedClass, SurveyedProperty, SurveyLimits
from saga_kgqa.sources.resolution import identifier_predicates
from saga_kgqa.tools.search.fulltext import FullTextIndex
from saga_kgqa.tools.search.label_index import LabelIndex, NameEntry, NameIndex, language_rank
from saga_kgqa.tools.search.store_names import StoreNames
from saga_kgqa.tools.search.streamed_build import build_from_store
from tests.support.grounding import tool_view

EX = "http://example.org/lang/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
XSD = "http://www.w3.org/2001/XMLSchema#"
#: One entity with a German and a Spanish label; two more named the same word in one language each.
GRAPH = f"""\
<{EX}port> <{LABEL}> "Hafen Alfa"@de .
<{EX}port> <{LABEL}> "Puerto Alfa"@es .
<{EX}station> <{LABEL}> "Alfa Bahnhof"@de .
<{EX}estacion> <{LABEL}> "Alfa estación"@es .
<{EX}plain> <{LABEL}> "Alfa Zero" .
<{EX}numbered> <{LABEL}> "1987"^^<{XSD}integer> .
<{EX}dated> <{LABEL}> "1987-05-01"^^<{XSD}date> .
<{EX}numbered> <{LABEL}> "number holder" .
<{EX}dated> <{LABEL}> "date holder" .
"""


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lang") / "g.nt"
    path.write_text(GRAPH, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def store(graph_file: Path) -> Path:
    target = graph_file.parent / "store"
    build_store(target, [graph_file])
    return target


@pytest.fixture(scope="module")
def tantivy_index(store: Path) -> FullTextIndex:
    return build_from_store(store.parent / "names", StoreNames(store, [LABEL]), endpoint_id="x")


@pytest.fixture(scope="module")
def memory_index(store: Path) -> LabelIndex:
    entries = [name.entry for name in StoreNames(store, [LABEL]).stream()]
    return LabelIndex(entries, primary=[LABEL])


def test_streamed_names_carry_their_language_tags(store: Path) -> None:
    tagged = {(n.entry.text, n.entry.language) for n in StoreNames(store, [LABEL]).stream()}
    assert ("Hafen Alfa", "de") in tagged
    assert ("Puerto Alfa", "es") in tagged
    assert ("Alfa Zero", "") in tagged


@pytest.mark.parametrize("kind", ["memory", "tantivy"])
@pytest.mark.parametrize(
    ("language", "port_name", "first"),
    [("de", "Hafen Alfa", f"{EX}station"), ("es", "Puerto Alfa", f"{EX}estacion")],
)
def test_search_prefers_the_questions_language(
    kind: str,
    language: str,
    port_name: str,
    first: str,
    memory_index: LabelIndex,
    tantivy_index: FullTextIndex,
) -> None:
    index: NameIndex = memory_index if kind == "memory" else tantivy_index
    matches = index.search("alfa", limit=10, language=language)
    by_resource = {m.resource: m for m in matches}
    # The same entity is shown by its name in the question's language.
    assert by_resource[f"{EX}port"].text == port_name
    assert by_resource[f"{EX}port"].language == language
    # Among the prefix matches, the question's language first, then untagged, then the other language.
    prefix_order = [m.resource for m in matches if m.match == "prefix"]
    other = f"{EX}estacion" if first == f"{EX}station" else f"{EX}station"
    assert prefix_order == [first, f"{EX}plain", other]


def test_language_rank_orders_the_language_untagged_then_others() -> None:
    assert language_rank("de", "de") == language_rank("de-AT", "de") == 0
    assert language_rank("", "de") == 1
    assert language_rank("es", "de") == 2
    assert language_rank("es", None) == language_rank("", None) == 0


@pytest.mark.parametrize("kind", ["memory", "tantivy"])
def test_numbers_and_dates_are_not_names(kind: str, memory_index: LabelIndex, tantivy_index: FullTextIndex) -> None:
    index: NameIndex = memory_index if kind == "memory" else tantivy_index
    assert index.search("1987", limit=5) == []
    assert index.search("1987-05-01", limit=5) == []
    assert [m.resource for m in index.search("number holder", limit=1)] == [f"{EX}numbered"]


@pytest.mark.parametrize(("language", "expected"), [("de", "Hafen Alfa"), ("es", "Puerto Alfa")])
def test_the_search_tool_shows_the_label_in_the_toolkits_language(
    graph_file: Path, language: str, expected: str
) -> None:
    # The in-memory path: names read by a query, all languages, tagged.
    with EmbeddedStore.from_files([graph_file]) as backend:
        kit = tool_view(KnowledgeGraph(backend), build_schema_index(backend, induce=False), language=language)
        result = kit.search("alfa")
    by_resource = {hit.resource.iri: hit for hit in result.hits}
    assert by_resource[f"{EX}port"].matched == expected
    assert f"{EX}numbered" not in by_resource


def test_full_text_index_build_keeps_languages(tmp_path: Path) -> None:
    entries = [
        NameEntry(f"{EX}a", "Rio Grande", LABEL, "es"),
        NameEntry(f"{EX}b", "Rio Grande", LABEL, "pt"),
        NameEntry(f"{EX}c", "Rio Grande", LABEL),
    ]
    index = FullTextIndex.build(tmp_path / "ft", entries, primary=[LABEL])
    assert [m.resource for m in index.search("rio grande", limit=3, language="pt")] == [f"{EX}b", f"{EX}c", f"{EX}a"]
    assert [m.resource for m in index.search("rio grande", limit=3, language="es")] == [f"{EX}a", f"{EX}c", f"{EX}b"]


def _property(iri: str, datatype: str, examples: tuple[str, ...]) -> SurveyedProperty:
    return SurveyedProperty(
        iri=iri,
        instances_using=3,
        object_kinds=(KindCount(kind="literal", count=3),),
        object_types=(TypeCount(type_iri=datatype, count=3),),
        examples=examples,
    )


def test_integer_and_date_properties_are_not_identifier_properties() -> None:
    survey = SourceSurvey(
        source="s",
        endpoint_id="x",
        built_at="2026-12-02T00:00:00+00:00",
        limits=SurveyLimits(),
        index=SchemaIndex(),
        classes=(
            SurveyedClass(
                iri=f"{EX}C",
                instances=3,
                sampled=3,
                properties=(
                    _property(f"{EX}count", XSD + "integer", tuple(f'"{n}"^^<{XSD}integer>' for n in (12, 345, 6789))),
                    _property(f"{EX}born", XSD + "date", tuple(f'"1990-01-0{d}"^^<{XSD}date>' for d in (1, 2, 3))),
                    _property(f"{EX}code", XSD + "string", ('"X-123"', '"X-124"', '"X-125"')),
                ),
            ),
        ),
    )
    assert identifier_predicates(survey) == (f"{EX}code",)
