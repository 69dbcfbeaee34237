import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import COMMON_PREFIXES, WIKIDATA_PREFIXES
from saga_kgqa.schema.vocab import RDF_TYPE, WIKIDATA_INSTANCE_OF, WIKIDATA_SUBCLASS_OF
from saga_kgqa.state import TypeState, extract_type_patterns

EX = "http://example.org/"
WD = "http://www.wikidata.org/entity/"
EX_PREFIXES = {**COMMON_PREFIXES, "ex": EX, "": EX}


def _wikidata(sparql: str) -> TypeState:
    return extract_type_patterns(
        sparql,
        type_predicates=[WIKIDATA_INSTANCE_OF],
        subclass_predicates=[WIKIDATA_SUBCLASS_OF],
        prefixes=WIKIDATA_PREFIXES,
    )


def _rdf(sparql: str) -> TypeState:
    return extract_type_patterns(sparql, prefixes=EX_PREFIXES)


@pytest.mark.parametrize(
    "pattern",
    [
        "?x rdf:type ex:Person",
        "?x a ex:Person",
        "?x <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person>",
        "?x a/rdfs:subClassOf* ex:Person",
        "ex:Person ^rdf:type ?x",
        "?x (rdf:type|rdf:type) ex:Person",
    ],
)
def test_rdf_type_pattern_forms(pattern: str) -> None:
    state = _rdf(f"SELECT ?x WHERE {{ {pattern} . ?x ex:name ?n }}")
    assert state.types_of("?x") == {EX + "Person"}
    assert {e.provenance for e in state.evidence("?x")} == {"pattern"}
    assert state.tracked() == ("?x",)


@pytest.mark.parametrize(
    "pattern",
    ["?x wdt:P31 wd:Q5", "?x wdt:P31/wdt:P279* wd:Q5", "?x wdt:P31/wdt:P279+ wd:Q5", "?x wdt:P31/wdt:P279 wd:Q5"],
)
def test_wikidata_pattern_forms(pattern: str) -> None:
    state = _wikidata(f"SELECT ?x WHERE {{ {pattern} ; wdt:P27 ?c }}")  # no PREFIX lines: the profile's
    assert state.types_of("?x") == {WD + "Q5"}


def test_predicates_are_parameters() -> None:
    assert _wikidata("SELECT ?x WHERE { ?x a wd:Q5 }") == TypeState()
    assert _rdf("SELECT ?x WHERE { ?x <http://www.wikidata.org/prop/direct/P31> ex:C }") == TypeState()


def test_paths_that_do_not_imply_an_instance_are_ignored() -> None:
    state = _wikidata(
        "SELECT * WHERE { ?a wdt:P279* wd:Q5 . ?b wdt:P279/wdt:P31 wd:Q5 . ?c (wdt:P31|wdt:P279) wd:Q5 . "
        "?d wdt:P31? wd:Q5 }"
    )
    assert state == TypeState()


def test_constant_subject_types_the_entity() -> None:
    state = _wikidata("ASK { wd:Q42 wdt:P31 wd:Q5 }")
    assert state.types_of(WD + "Q42") == {WD + "Q5"}


def test_several_variables_and_detail() -> None:
    state = _wikidata("SELECT ?p WHERE { ?p wdt:P31 wd:Q5 ; wdt:P27 ?c . ?c wdt:P31 wd:Q6256 }")
    assert state.types_of("?p") == {WD + "Q5"}
    assert state.types_of("?c") == {WD + "Q6256"}
    (item,) = state.evidence("?c")
    assert "P31" in item.detail and "Q6256" in item.detail


def test_optional_patterns_do_not_count() -> None:
    state = _rdf("SELECT * WHERE { ?x ex:name ?n OPTIONAL { ?x a ex:Person . ?y a ex:Pet } }")
    assert state == TypeState()


def test_union_counts_only_variables_typed_in_every_branch() -> None:
    state = _rdf("SELECT * WHERE { { ?x a ex:Person . ?z a ex:Z } UNION { ?x a ex:Robot } UNION { ?x a ex:Pet } }")
    assert state.types_of("?x") == {EX + "Person", EX + "Robot", EX + "Pet"}
    assert "?z" not in state


def test_negated_patterns_do_not_count() -> None:
    state = _rdf(
        "SELECT * WHERE { ?x ex:name ?n MINUS { ?x a ex:Robot } FILTER NOT EXISTS { ?x a ex:Pet } "
        "FILTER(?n != 'a' || EXISTS { ?x a ex:Cat }) }"
    )
    assert state == TypeState()


def test_filter_exists_counts_alone_or_in_a_conjunction() -> None:
    state = _rdf("SELECT * WHERE { ?x ex:name ?n FILTER(EXISTS { ?x a ex:Person } && ?n != 'a') }")
    assert state.types_of("?x") == {EX + "Person"}


def test_subquery_types_only_its_projected_variables() -> None:
    state = _rdf("SELECT ?x WHERE { { SELECT ?x WHERE { ?x a ex:Person . ?hidden a ex:Secret } } ?x ex:name ?n }")
    assert state.types_of("?x") == {EX + "Person"}
    assert "?hidden" not in state


def test_graph_and_aggregates_pass_through() -> None:
    state = _rdf("SELECT ?g (COUNT(?x) AS ?n) WHERE { GRAPH ?g { ?x a ex:Person } } GROUP BY ?g HAVING(COUNT(?x) > 1)")
    assert state.types_of("?x") == {EX + "Person"}


def test_service_patterns_do_not_count() -> None:
    assert _rdf("SELECT * WHERE { SERVICE <http://remote.example/sparql> { ?x a ex:Person } }") == TypeState()


def test_values_bound_classes_are_alternatives() -> None:
    state = _wikidata("SELECT ?x WHERE { VALUES ?cls { wd:Q5 wd:Q95074 } ?x wdt:P31 ?cls }")
    assert state.types_of("?x") == {WD + "Q5", WD + "Q95074"}
    assert _wikidata("SELECT ?x WHERE { ?x wdt:P31 ?cls }") == TypeState()
    mixed = _wikidata("SELECT ?x WHERE { VALUES ?cls { wd:Q5 'text' } ?x wdt:P31 ?cls }")
    assert mixed == TypeState()


def test_escaped_local_names_are_unescaped() -> None:
    state = extract_type_patterns(
        r"SELECT ?t WHERE { ?t a :docs\#type\.v2 . ?t :docs\#name ?n }", prefixes={"": "http://valuenet/ontop/"}
    )
    assert state.types_of("?t") == {"http://valuenet/ontop/docs#type.v2"}


def test_step_is_recorded() -> None:
    state = extract_type_patterns("SELECT ?x WHERE { ?x a <http://e/C> }", step=7)
    assert {e.step for e in state.evidence("?x")} == {7}


def test_syntax_error_is_rejected_with_position() -> None:
    with pytest.raises(QueryRejected) as caught:
        _rdf("SELECT ?x WHERE { ?x a ex:Person ")
    assert caught.value.reason == "syntax"
    assert caught.value.line == 1


def test_unknown_prefix_is_rejected() -> None:
    with pytest.raises(QueryRejected) as caught:
        extract_type_patterns("SELECT ?x WHERE { ?x a nope:Person }")
    assert caught.value.reason == "syntax"


def test_update_is_rejected() -> None:
    with pytest.raises(QueryRejected):
        _rdf("INSERT DATA { ex:a a ex:Person }")


def test_deep_nesting_and_wide_groups_do_not_crash() -> None:
    deep = "SELECT * WHERE { " + "{ " * 40 + "?x a <http://e/C>" + " }" * 40 + " }"
    try:
        assert _rdf(deep).types_of("?x") == {"http://e/C"}
    except QueryRejected as exc:
        assert exc.reason == "too_complex"

    def wide(n: int) -> str:
        return "SELECT * WHERE { " + " . ".join(f"?x{i} a <http://e/C{i}>" for i in range(n)) + " }"

    assert len(_rdf(wide(40))) == 40
    # rdflib's parser recurses per pattern; past its depth the query is rejected, never a crash.
    with pytest.raises(QueryRejected) as caught:
        _rdf(wide(150))
    assert caught.value.reason == "too_complex"


def test_rdf_type_is_the_default() -> None:
    state = extract_type_patterns(f"SELECT ?x WHERE {{ ?x <{RDF_TYPE}> <http://e/C> }}")
    assert state.types_of("?x") == {"http://e/C"}


@pytest.mark.parametrize(
    "text",
    ["", "   ", "SELECT * WHERE { ?x a <http://e/C> }\x00", "SELECT * WHERE { ?x a <http://e/\x00C> }", "\udcff"],
)
def test_bad_input_is_rejected_as_syntax(text: str) -> None:
    with pytest.raises(QueryRejected) as caught:
        extract_type_patterns(text)
    assert caught.value.reason == "syntax"


def test_construct_template_does_not_count() -> None:
    state = _rdf("CONSTRUCT { ?x a ex:Made } WHERE { ?x a ex:Person }")
    assert state.types_of("?x") == {EX + "Person"}
