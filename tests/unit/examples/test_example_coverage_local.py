"""Property coverage by local name: what transfers between Spider4SPARQL's databases (issue 25)."""

from __future__ import annotations

from saga_kgqa.examples.coverage import covered, local_name, local_names, signature

P = "PREFIX : <http://valuenet/ontop/> "
#: As Spider4SPARQL writes them: the default prefix and an escaped '#' in the local part.
SINGER = P + r"SELECT ?n WHERE { ?t1 a :singer . ?t1 :singer\#name ?n . ?t1 :singer\#age ?a }"
PEOPLE = P + r"SELECT ?n WHERE { ?t1 a :people . ?t1 :people\#age ?a . ?t1 :people\#height ?n }"


def test_local_name_is_the_part_after_the_hash_else_after_the_last_slash() -> None:
    assert local_name("http://valuenet/ontop/singer#age") == "age"
    assert local_name("http://valuenet/ontop/singer#ref-country_id") == "ref-country_id"
    assert local_name("http://www.wikidata.org/prop/direct/P31") == "P31"
    assert local_name("http://dbpedia.org/ontology/birthPlace/") == "birthPlace"
    assert local_name("http://www.w3.org/1999/02/22-rdf-syntax-ns#type") == "type"
    assert local_name("urn:x") == "urn:x"


def test_another_databases_column_of_the_same_name_covers_by_local_name_but_not_by_iri() -> None:
    gold, shown = signature(SINGER), signature(PEOPLE)
    # The queries parse (rdflib keeps the backslash of the escaped '#': "…/singer\\#age"; the local name drops it).
    assert len(gold.properties) == 3 and len(shown.properties) == 3
    # By IRI only rdf:type is shared: 1 of the gold's 3 properties.
    assert covered(gold.properties, [shown.properties]) == 1 / 3
    # By local name "age" transfers too ("name" does not: the other query has "height").
    assert local_names(gold.properties) == {"type", "name", "age"}
    assert covered(local_names(gold.properties), [local_names(shown.properties)]) == 2 / 3


def test_a_query_written_for_wdqs_is_read_without_its_prefix_lines() -> None:
    # WDQS predeclares wd:, wdt:, p:, ps:, … and SPINACH's gold queries rely on it: read as written, every
    # such query failed to parse and showed no property, so a bench pair over them measured 0 for every ranking.
    from saga_kgqa.examples.coverage import signature

    shown = signature("SELECT ?item WHERE { ?item wdt:P19/wdt:P131* wd:Q408 . ?item wdt:P31 wd:Q5 }")
    wdt = "http://www.wikidata.org/prop/direct/"
    assert shown.properties == {wdt + "P19", wdt + "P131", wdt + "P31"}
    assert shown.classes == {"http://www.wikidata.org/entity/Q5"}
    # A query's own PREFIX lines still win over the predeclared ones.
    own = signature("PREFIX wdt: <http://example.org/p/> SELECT ?x WHERE { ?x wdt:P31 ?y }")
    assert own.properties == {"http://example.org/p/P31"}
