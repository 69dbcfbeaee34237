"""Property uses of gold queries: path unfolding, escaped local names, connected blocks."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from bench.grounding_eval.gold_patterns import PropertyUse, property_uses

from saga_kgqa.errors import QueryRejected

PV = "http://ld.company.org/prod-vocab/"
ONTOP = "http://valuenet/ontop/"


def _by_property(uses: list[PropertyUse]) -> dict[str, PropertyUse]:
    return {use.property_iri: use for use in uses}


def test_type_patterns_are_constraints_not_uses() -> None:
    uses = property_uses(f"PREFIX pv: <{PV}> SELECT ?n WHERE {{ ?e a pv:Employee ; pv:name ?n }}")
    assert [(u.subject, u.property_iri, u.object) for u in uses] == [("?e", PV + "name", "?n")]
    assert f"?e <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{PV}Employee>" in uses[0].block


def test_escaped_local_names_are_unescaped_with_the_assumed_default_prefix() -> None:
    uses = property_uses(r"SELECT ?n WHERE { ?s a :singer . ?s :singer\#name ?n }", prefixes={"": ONTOP})
    assert [u.property_iri for u in uses] == [ONTOP + "singer#name"]
    assert all("\\" not in line for line in uses[0].block)


def test_sequence_paths_unfold_into_a_chain_with_fresh_variables() -> None:
    uses = property_uses(f"PREFIX pv: <{PV}> SELECT ?m WHERE {{ ?e pv:hasManager/pv:name ?m }}")
    manager, name = uses
    assert (manager.subject, manager.property_iri) == ("?e", PV + "hasManager")
    assert name.property_iri == PV + "name"
    assert name.subject == manager.object and name.subject.startswith("?_")


def test_inverse_paths_swap_subject_and_object() -> None:
    uses = property_uses(f"PREFIX pv: <{PV}> SELECT ?e WHERE {{ ?d ^pv:memberOf ?e }}")
    assert [(u.subject, u.property_iri, u.object) for u in uses] == [("?e", PV + "memberOf", "?d")]


def test_closure_paths_are_kept_only_as_constraints() -> None:
    query = (
        f"PREFIX pv: <{PV}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
        "SELECT ?e WHERE { ?c rdfs:subClassOf* pv:Agent . ?e a ?c ; pv:name ?n }"
    )
    (use,) = property_uses(query)
    assert use.property_iri == PV + "name"
    assert any("subClassOf>)*" in line for line in use.block)


def test_constant_subjects_are_looked_up_directly() -> None:
    (use,) = property_uses(f"SELECT ?p WHERE {{ <{PV}e1> <{PV}phone> ?p }}")
    assert not use.subject_is_variable
    assert use.subject == PV + "e1"
    with pytest.raises(ValueError, match="constant"):
        use.binding_query(5)


def test_a_triple_written_twice_is_one_use() -> None:
    uses = property_uses(f"SELECT ?n WHERE {{ ?s <{PV}name> ?n . ?s <{PV}name> ?n }}")
    assert len(uses) == 1


def test_blocks_hold_only_the_connected_triples() -> None:
    query = f"SELECT * WHERE {{ ?a <{PV}p> ?b . ?b <{PV}q> ?c . ?x <{PV}r> ?y }}"
    uses = _by_property(property_uses(query))
    assert len(uses[PV + "p"].block) == 2
    assert uses[PV + "r"].block == (f"?x <{PV}r> ?y",)


def test_uses_inside_optional_and_subqueries_are_found() -> None:
    query = (
        f"SELECT ?a ?m WHERE {{ ?a <{PV}p> ?b OPTIONAL {{ ?a <{PV}q> ?c }} "
        f"{{ SELECT (MAX(?v) AS ?m) WHERE {{ ?z <{PV}r> ?v }} }} }}"
    )
    assert set(_by_property(property_uses(query))) == {PV + "p", PV + "q", PV + "r"}


def test_binding_queries_run_and_sample_the_subject_in_its_context() -> None:
    store = ox.Store()
    ex = "http://example.org/"
    for s, p, o in [("a1", "p", "b1"), ("b1", "q", "c1"), ("a2", "p", "b2")]:
        store.add(ox.Quad(ox.NamedNode(ex + s), ox.NamedNode(ex + p), ox.NamedNode(ex + o)))
    query = f"SELECT ?a WHERE {{ ?a <{ex}p> ?b . ?b <{ex}q> ?c }}"
    use = _by_property(property_uses(query))[ex + "p"]
    rows = list(store.query(use.binding_query(10)))
    assert [row["a"].value for row in rows] == [ex + "a1"]


def test_literal_objects_are_rendered_as_valid_sparql() -> None:
    (use,) = property_uses(f'SELECT ?s WHERE {{ ?s <{PV}name> "O\\"Brien"@en }}')
    ox.Store().query(use.binding_query(1))  # parses: the quote inside the literal stays escaped
    assert use.object.endswith("@en")


def test_text_that_is_not_sparql_is_rejected() -> None:
    with pytest.raises(QueryRejected):
        property_uses("SELECT WHERE {")
