"""lookup on tests/data/mini.ttl: type filtering (subclass vs exact), hidden reasons, Θ, fallback, bad input."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import ToolInputError
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.state import answer_type_prior, extract_type_patterns, merge_type_state
from saga_kgqa.tools.results import LookupResult
from saga_kgqa.tools.toolbox import ToolView
from tests.support.grounding import EX, MINI_PREFIXES, RES, RecordingReader, tool_view


def kept_ids(result: LookupResult) -> set[str]:
    return {k.info.property.id for k in result.kept}


def hidden_ids(result: LookupResult) -> set[str]:
    return {h.info.property.id for h in result.hidden}


def test_lookup_hides_a_domain_conflict_and_keeps_unknown_domains(kit: ToolView) -> None:
    result = kit.lookup("res:alice")
    assert result.found
    assert [t.id for t in result.types] == ["ex:Employee"]
    # ex:price has domain ex:Product: a known conflict with Employee.
    assert hidden_ids(result) == {"ex:price"}
    # rdfs:label has no domain at all and is kept; ex:email (domain Person) is kept through Employee ⊑ Person.
    assert {"rdfs:label", "ex:email", "ex:memberOf", "ex:livesIn"} <= kept_ids(result)
    label = next(k for k in result.kept if k.info.property.id == "rdfs:label")
    assert (label.decision, label.basis) == ("unknown", "no_schema")
    email = next(k for k in result.kept if k.info.property.id == "ex:email")
    assert (email.decision, email.basis) == ("keep", "subclass")
    # ex:manages (domain Manager) is kept in subclass mode: an Employee may be a Manager.
    manages = next(k for k in result.kept if k.info.property.id == "ex:manages")
    assert manages.basis == "superclass"
    assert not result.needs_prune_fallback


def test_hidden_count_line_and_machine_readable_reasons(kit: ToolView) -> None:
    result = kit.lookup("<http://example.org/mini/res/alice>")
    line = next(line for line in result.text.splitlines() if "hidden" in line and line[0].isdigit())
    assert line.startswith("1 property hidden (subclass check), domain conflicts with the types above:")
    assert "ex:price (domain ex:Product)" in line
    dumped = result.model_dump(mode="json")
    assert "text" not in dumped
    [hidden] = dumped["hidden"]
    assert hidden["info"]["property"]["iri"] == EX + "price"
    assert hidden["basis"] == "conflict"
    assert "Product" in hidden["reason"]
    assert hidden["info"]["domain"] == [{"iri": EX + "Product", "id": "ex:Product", "label": "Product"}]
    assert {k["info"]["property"]["id"]: k["decision"] for k in dumped["kept"]}["rdfs:label"] == "unknown"


def test_exact_mode_hides_superclass_and_subclass_domains(reader: RecordingReader, schema: SchemaIndex) -> None:
    exact = tool_view(reader, schema, prefixes=MINI_PREFIXES, mode="exact")
    result = exact.lookup("res:alice")
    assert hidden_ids(result) == {"ex:price", "ex:email", "ex:livesIn", "ex:manages"}
    assert "rdfs:label" in kept_ids(result)  # unknown domain kept in every mode
    assert "4 properties hidden (exact check)" in result.text
    assert result.mode == "exact"


def test_kept_property_lines_show_range_and_labelled_values_once(kit: ToolView) -> None:
    text = kit.lookup("res:alice").text
    lines = text.splitlines()
    # The domain admits Alice's type, so the header says it once instead of every line.
    assert lines[2] == "Properties (9 shown of 9 kept; 1 hidden), whose domains admit the types above unless stated:"
    assert '- ex:hasManager: "The manager of an employee" — range: ex:Manager — value: "Bob Jones" (res:bob)' in lines
    # A range already shown is named by the property that showed it only when that is shorter (it is not here).
    memberships = next(line for line in lines if line.startswith("- ex:memberOf"))
    assert memberships.endswith('— range: ex:Department — value: "Research Department" (res:research)')
    # An induced range says where it came from; no domain known says so.
    assert '- ex:nickname — range: xsd:string (induced) — value: "Al"' in lines
    assert '- rdfs:label — domain, range: unknown — value: "Alice Smith"@en' in lines
    assert text.splitlines()[0] == 'Entity "Alice Smith" (res:alice): "A research engineer."'


def test_lookup_records_declared_types_in_the_theta_delta(kit: ToolView) -> None:
    result = kit.lookup("res:bob", step=3)
    [evidence] = result.type_delta.evidence(RES + "bob")
    assert (evidence.type_iri, evidence.provenance, evidence.step) == (EX + "Manager", "declared", 3)
    assert not hidden_ids(result)


def test_untyped_entity_sets_the_prune_fallback_and_filters_nothing(kit: ToolView) -> None:
    result = kit.lookup("res:ghost")
    assert result.needs_prune_fallback
    assert not result.types
    assert not result.hidden
    assert "ex:price" in kept_ids(result)  # would conflict with any person type, but no type is known
    assert "no type is known" in result.text
    assert len(result.type_delta) == 0


def test_theta_types_from_earlier_steps_type_an_untyped_entity(kit: ToolView) -> None:
    theta = extract_type_patterns(f"SELECT * WHERE {{ <{RES}ghost> a <{EX}Person> }}")
    result = kit.lookup("res:ghost", theta=theta)
    assert not result.needs_prune_fallback
    assert hidden_ids(result) == {"ex:price"}
    assert [t.id for t in result.checked_types] == ["ex:Person"]
    assert "Types known from earlier steps: ex:Person" in result.text
    assert len(result.type_delta) == 0  # pattern types are not re-declared


def test_answer_prior_orders_fitting_ranges_first_but_filters_nothing(kit: ToolView) -> None:
    plain = kit.lookup("res:alice")
    theta = merge_type_state(None, answer_type_prior(EX + "City", label="city"))
    biased = kit.lookup("res:alice", theta=theta)
    assert kept_ids(biased) == kept_ids(plain)
    assert biased.kept[0].info.property.id == "ex:livesIn"
    assert biased.kept[0].fits_answer_type
    assert "[range fits the expected answer type]" in biased.text
    assert not plain.kept[0].fits_answer_type


def test_unknown_entity_and_object_only_entity(kit: ToolView) -> None:
    missing = kit.lookup("res:nobody")
    assert not missing.found
    assert (
        missing.text == "No resource res:nobody in the graph: no triple mentions it. Use search to find the right id."
    )
    target = kit.lookup("res:orphanTarget")
    assert target.found
    assert [r.id for r in target.incoming] == ["ex:livesIn"]
    assert "it is the object of: ex:livesIn" in target.text


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("", "empty"),
        ('"Alice Smith"', "literal value"),
        ("42", "literal value"),
        ("Alice Smith", "looks like text"),
        ("_:b0", "blank node"),
        ("nope:alice", "unknown prefix 'nope'"),
        ("<http://example.org/a b>", "not a usable IRI"),
        ("<http://example.org/x>{ ?s ?p ?o }", "looks like text"),
    ],
)
def test_bad_arguments_raise_a_typed_error_before_any_query(
    kit: ToolView, reader: RecordingReader, argument: str, message: str
) -> None:
    with pytest.raises(ToolInputError, match=message):
        kit.lookup(argument)
    assert reader.queries == []


def test_a_knowledge_graph_is_the_toolkit_graph(store: EmbeddedStore, schema: SchemaIndex) -> None:
    kit = tool_view(KnowledgeGraph(store), schema, prefixes=MINI_PREFIXES)
    assert hidden_ids(kit.lookup("res:alice")) == {"ex:price"}


def test_every_lookup_query_is_a_bounded_template(kit: ToolView, reader: RecordingReader) -> None:
    kit.lookup("res:alice")
    assert reader.queries
    for query in reader.queries:
        assert query.origin == "template"
        assert query.form == "ASK" or query.limit is not None


def test_caps_limit_properties_shown_and_say_what_was_left_out(reader: RecordingReader, schema: SchemaIndex) -> None:
    from saga_kgqa.tools.context import ToolCaps

    small = tool_view(reader, schema, prefixes=MINI_PREFIXES, caps=ToolCaps(properties_shown=2))
    result = small.lookup("res:alice")
    assert result.shown == 2
    assert len(result.kept) > 2
    assert f"Properties (2 shown of {len(result.kept)} kept; 1 hidden), whose domains admit" in result.text
    assert f"({len(result.kept) - 2} more properties not shown:" in result.text
    assert "1 property hidden" in result.text
