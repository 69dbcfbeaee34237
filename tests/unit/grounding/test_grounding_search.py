"""search and property_examples on tests/data/mini.ttl, and the name index's matching tiers."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import ConfigurationError, ToolInputError
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.schema import SchemaIndex, SchemaVocabulary
from saga_kgqa.tools.results import SearchHit, SearchResult
from saga_kgqa.tools.search.label_index import LabelIndex, NameEntry, name_predicates
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import EX, MINI_PREFIXES, RES, FailingReader, RecordingReader, tool_view

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
ALT = "http://www.w3.org/2004/02/skos/core#altLabel"


def first(result: SearchResult, kind: str = "entity") -> SearchHit:
    return next(hit for hit in result.hits if (hit.kind == "property") == (kind == "property"))


@pytest.mark.parametrize(
    ("query", "resource", "match"),
    [
        ("Alice Smith", RES + "alice", "exact"),
        ("  alice   SMITH ", RES + "alice", "exact"),  # case and spacing folded
        ("Alic", RES + "alice", "prefix"),
        ("smith alice", RES + "alice", "words"),
        ("earch Depart", RES + "research", "substring"),
        ("Berln", RES + "berlin", "fuzzy"),
        ("Alcie Smith", RES + "alice", "fuzzy"),
        ("Ali", RES + "alice", "exact"),  # skos:altLabel alias
        ("Widget 3000", RES + "widget", "exact"),  # ex:name, a literal name predicate
    ],
)
def test_search_tiers(kit: ToolView, query: str, resource: str, match: str) -> None:
    hit = first(kit.search(query))
    assert (hit.resource.iri, hit.match) == (resource, match)


def test_entity_hits_show_types_description_and_the_alias_that_matched(kit: ToolView) -> None:
    result = kit.search("Ali")
    hit = first(result)
    assert [t.id for t in hit.types] == ["ex:Employee"]
    assert hit.description == "A research engineer."
    assert hit.matched == "Ali"
    assert '- "Alice Smith" (res:alice) — types: ex:Employee — "A research engineer." [matched "Ali"]' in result.text
    assert len(result.type_delta) == 0


def test_property_hits_carry_domain_and_range(kit: ToolView) -> None:
    result = kit.search("member of")
    hit = first(result, "property")
    assert hit.resource.iri == EX + "memberOf"
    assert hit.property is not None
    assert [r.id for r in hit.property.domain] == ["ex:Employee"]
    assert [r.id for r in hit.property.range] == ["ex:Department"]
    assert "Properties:" in result.text
    assert "- ex:memberOf: " in result.text
    assert "domain: ex:Employee; range: ex:Department" in result.text
    assert all(h.resource.iri != EX + "memberOf" for h in result.hits if h.kind != "property")


def test_class_hits_show_their_superclasses(kit: ToolView) -> None:
    hit = first(kit.search("Employee"))
    assert hit.kind == "class"
    assert [c.id for c in hit.superclasses] == ["ex:Person"]
    assert "ex:Employee [class] — subclass of: ex:Person" in kit.search("Employee").text


def test_no_match_says_so(kit: ToolView) -> None:
    result = kit.search("zzqqxxyy")
    assert result.hits == ()
    assert result.text.startswith('No entity, class or property name matches "zzqqxxyy".')


def test_name_index_is_built_once(kit: ToolView, reader: RecordingReader) -> None:
    kit.search("Alice")
    built = sum(1 for q in reader.queries if "?name" in q.text)
    # The curated name predicates and those found in the data, each read once.
    assert built == len(kit.context.name_predicates) + len(kit.context.detected_names.predicates)
    kit.search("Bob")
    assert sum(1 for q in reader.queries if "?name" in q.text) == built


def test_labels_are_read_in_the_preferred_language(reader: RecordingReader, schema: SchemaIndex) -> None:
    english = tool_view(reader, schema, prefixes=MINI_PREFIXES)
    # A name in another language still finds its entity (issue 25.4: ranked after the question's
    # language and untagged names), and the entity is shown by its English label.
    found = first(english.search("Vertrieb"))
    assert (found.resource.iri, found.matched) == (RES + "sales", "Vertrieb")
    assert found.resource.label != "Vertrieb"
    german = tool_view(reader, schema, prefixes=MINI_PREFIXES, language="de")
    hit = first(german.search("Vertrieb"))
    assert (hit.resource.iri, hit.resource.label, hit.match) == (RES + "sales", "Vertrieb", "exact")
    with pytest.raises(ConfigurationError, match="not a language tag"):
        tool_view(reader, schema, language='en") || true || ("')


def test_a_timed_out_name_predicate_costs_only_its_names(store: EmbeddedStore, schema: SchemaIndex) -> None:
    kit = tool_view(FailingReader(store, ALT), schema, prefixes=MINI_PREFIXES)
    result = kit.search("Alice Smith")
    assert first(result).resource.iri == RES + "alice"
    assert all(h.matched != "Ali" for h in kit.search("Ali").hits)
    assert any("altLabel: timed out" in note for note in result.notes)
    assert "Note: names via http://www.w3.org/2004/02/skos/core#altLabel: timed out" in result.text


def test_name_predicates_include_literal_name_properties(schema: SchemaIndex) -> None:
    found = name_predicates(schema, SchemaVocabulary())
    assert EX + "name" in found
    assert ALT in found
    assert EX + "nickname" not in found
    assert EX + "email" not in found


def test_index_prefers_preferred_labels_among_equal_matches() -> None:
    entries = [
        NameEntry("http://x/hardware", "Inductor", "http://x/name"),
        NameEntry("http://x/category", "Inductor", RDFS_LABEL),
        NameEntry("http://x/long", "Inductor Switch", RDFS_LABEL),
    ]
    index = LabelIndex(entries, primary=[RDFS_LABEL])
    assert [m.resource for m in index.search("inductor", limit=3)] == [
        "http://x/category",
        "http://x/hardware",
        "http://x/long",
    ]
    assert [m.match for m in index.search("inductor", limit=3)] == ["exact", "exact", "prefix"]
    without_category = index.search("inductor", limit=3, reject=frozenset({"http://x/category"}))
    assert [m.resource for m in without_category] == ["http://x/hardware", "http://x/long"]
    assert index.search("", limit=3) == []


def test_index_ignores_invisible_characters_in_names_and_queries() -> None:
    index = LabelIndex([NameEntry("http://x/eve", "Eve\u200b Doe", RDFS_LABEL)])
    assert index.search("eve doe", limit=1)[0].match == "exact"
    assert index.search("Eve\u202e Doe", limit=1)[0].match == "exact"


def test_property_examples_are_labelled_and_diverse(kit: ToolView) -> None:
    result = kit.examples("ex:memberOf")
    assert result.found
    assert len(result.examples) == 5
    subjects = [e.subject.value for e in result.examples]
    assert len(set(subjects)) == len(subjects)
    alice = next(e for e in result.examples if e.subject.value == RES + "alice")
    assert alice.object.label == "Research Department"
    assert '"Alice Smith" (res:alice) ex:memberOf "Research Department" (res:research)' in result.text
    assert result.text.startswith('Property ex:memberOf: "The department an employee belongs to."')


def test_property_examples_show_literal_values_with_types(kit: ToolView) -> None:
    result = kit.examples(EX + "price")
    assert {e.object.datatype_id for e in result.examples} == {"xsd:decimal"}
    assert "res:widget ex:price 99.9" in result.text


def test_unused_property_suggests_similar_names(kit: ToolView) -> None:
    result = kit.examples("ex:member")
    assert not result.found
    assert [s.resource.id for s in result.suggestions][:1] == ["ex:memberOf"]
    assert "No triple uses this property." in result.text
    assert "Properties with similar names:" in result.text


def test_property_examples_reject_literals(kit: ToolView, reader: RecordingReader) -> None:
    with pytest.raises(ToolInputError, match="literal value"):
        kit.examples('"member of"')
    assert reader.queries == []
