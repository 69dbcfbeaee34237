"""The read-only query guard: docs/faults.md section 8, rows A1-A10.

Every rejection is checked for its reason code and for a message the model can act on,
and (through :class:`KnowledgeGraph` with a counting backend) for the absence of any call
to a store.
"""

from __future__ import annotations

import pytest
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parser import parseUpdate

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import WIKIBASE_LABEL_SERVICE, EndpointProfile, get_profile
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.query_guard import GuardPolicy, QueryGuard
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

EMBEDDED = QueryGuard(get_profile("embedded"))
WIKIDATA = QueryGuard(get_profile("wikidata"))
EX = "http://example.org/"
SELECT_ALL = "SELECT ?s WHERE { ?s ?p ?o }"


class CountingBackend:
    """A KGBackend that records what reaches it and answers an empty result."""

    def __init__(self, profile: EndpointProfile) -> None:
        self._profile = profile
        self.executed: list[CheckedQuery] = []
        self.closed = False

    @property
    def endpoint_id(self) -> str:
        return "counting"

    @property
    def profile(self) -> EndpointProfile:
        return self._profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.executed.append(query)
        return QueryResult(form=query.form, variables=[], rows=[])

    def close(self) -> None:
        self.closed = True


def rejected(guard: QueryGuard, text: str | bytes) -> QueryRejected:
    with pytest.raises(QueryRejected) as info:
        guard.check(text)
    return info.value


def slice_length(text: str, prefixes: dict[str, str] | None = None) -> int | None:
    """The top-level LIMIT as rdflib's reference parser sees it (independent of the guard)."""
    algebra = prepareQuery(text, initNs=prefixes or {}).algebra
    node = algebra.p
    return node.length if node.name == "Slice" else None


# --- A1: updates --------------------------------------------------------------------------

UPDATES = [
    f"INSERT DATA {{ <{EX}a> <{EX}b> <{EX}c> }}",
    "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://127.0.0.1:9/data.ttl>",
    "LOAD SILENT <http://127.0.0.1:9/data.ttl> INTO GRAPH <http://example.org/g>",
    "CLEAR ALL",
    "CLEAR GRAPH <http://example.org/g>",
    "DROP GRAPH <http://example.org/g>",
    "DROP ALL",
    "CREATE GRAPH <http://example.org/g>",
    "ADD <http://example.org/a> TO <http://example.org/b>",
    "MOVE DEFAULT TO <http://example.org/g>",
    "COPY <http://example.org/a> TO DEFAULT",
    f'DELETE {{ ?s ?p ?o }} INSERT {{ ?s ?p "x" }} WHERE {{ ?s <{EX}b> ?o }}',
    "WITH <http://example.org/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
]


def update_variants() -> list[str]:
    variants: list[str] = []
    for update in UPDATES:
        variants += [
            update,
            update.lower(),
            "".join(c.upper() if i % 2 else c.lower() for i, c in enumerate(update)),
            f"# a harmless read\n{update}",
            f"#SELECT * WHERE {{ ?s ?p ?o }}\n{update}",
            f"PREFIX ex: <{EX}>\n{update}",
            f"  \n\t{update}",
        ]
    return variants


@pytest.mark.parametrize("update", UPDATES)
def test_a1_fixtures_are_real_updates(update: str) -> None:
    parseUpdate(update)  # control: each injected text is an update rdflib's update grammar accepts


@pytest.mark.parametrize("update", update_variants())
def test_a1_updates_are_rejected_as_read_only(update: str) -> None:
    error = rejected(EMBEDDED, update)
    assert error.reason == "update"
    assert error.message.startswith("read-only: updates are not allowed")
    assert error.retryable is False
    assert error.query_at_fault is True


def test_a1_update_message_says_where() -> None:
    error = rejected(EMBEDDED, "# comment\n\n   insert data { <a:b> <a:c> <a:d> }")
    assert (error.line, error.column) == (3, 4)
    assert "INSERT at line 3, column 4" in error.message


@pytest.mark.parametrize(
    "text",
    [
        f'SELECT * WHERE {{ ?s <{EX}says> "INSERT DATA {{ <a:b> <a:c> <a:d> }}" }}',
        f"SELECT * WHERE {{ ?s <{EX}drop> ?delete }}",
        f"PREFIX load: <{EX}> SELECT * WHERE {{ ?s load:clear ?o }}",
        'SELECT * WHERE { ?s ?p "x"@add }',
        f"SELECT * WHERE {{ ?s <{EX}p> ?o }} # then DROP ALL",
    ],
)
def test_a1_update_words_inside_strings_iris_names_and_comments_are_fine(text: str) -> None:
    assert EMBEDDED.check(text).form == "SELECT"


# --- A2: several operations ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"SELECT * WHERE {{ ?s ?p ?o }} ; INSERT DATA {{ <{EX}a> <{EX}b> <{EX}c> }}",
        "ASK { ?s ?p ?o } ;\nCLEAR ALL",
        "SELECT * WHERE { ?s ?p ?o }; # and then\n drop all",
    ],
)
def test_a2_query_followed_by_update_is_rejected(text: str) -> None:
    error = rejected(EMBEDDED, text)
    assert error.reason == "update"
    assert error.message.startswith("read-only: updates are not allowed")


def test_a2_two_queries_are_rejected_as_multiple_operations() -> None:
    error = rejected(EMBEDDED, "SELECT * WHERE { ?s ?p ?o } ;\nSELECT * WHERE { ?s ?p ?o }")
    assert error.reason == "multiple_operations"
    assert (error.line, error.column) == (1, 29)


def test_a2_semicolons_inside_patterns_and_aggregates_are_fine() -> None:
    text = f'SELECT (GROUP_CONCAT(?o ; separator=",") AS ?all) WHERE {{ ?s <{EX}p> ?o ; <{EX}q> ?r }} GROUP BY ?s'
    assert EMBEDDED.check(text).form == "SELECT"


# --- A3: SERVICE (no network here; tests/integration/kg/test_guard_embedded.py has the listener) ---

LOOPBACK = "http://127.0.0.1:9/sparql"
METADATA = "http://169.254.169.254/latest"
SERVICE_VARIANTS = {
    "plain": f"SELECT * WHERE {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "silent": f"SELECT * WHERE {{ SERVICE SILENT <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "lower_case": f"select * where {{ service silent <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "optional": f"SELECT * WHERE {{ ?s ?p ?o OPTIONAL {{ SERVICE <{LOOPBACK}> {{ ?s ?q ?r }} }} }}",
    "union": f"SELECT * WHERE {{ {{ ?s ?p ?o }} UNION {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} }}",
    "minus": f"SELECT * WHERE {{ ?s ?p ?o MINUS {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} }}",
    "graph": f"SELECT * WHERE {{ GRAPH ?g {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} }}",
    "filter_exists": f"SELECT * WHERE {{ ?s ?p ?o FILTER EXISTS {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} }}",
    "filter_not_exists": f"SELECT * WHERE {{ ?s ?p ?o FILTER NOT EXISTS {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} }}",
    "bind_exists": f"SELECT * WHERE {{ ?s ?p ?o BIND(EXISTS {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} AS ?b) }}",
    "select_expression": f"SELECT (EXISTS {{ SERVICE <{LOOPBACK}> {{ ?a ?b ?c }} }} AS ?e) WHERE {{ ?s ?p ?o }}",
    "subquery": f"SELECT * WHERE {{ {{ SELECT ?s WHERE {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }} LIMIT 1 }} }}",
    "nested_service": f"SELECT * WHERE {{ SERVICE <{LOOPBACK}> {{ SERVICE <{METADATA}> {{ ?s ?p ?o }} }} }}",
    "ask": f"ASK {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "construct": f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "base_relative": "BASE <http://127.0.0.1:9/> SELECT * WHERE { SERVICE <sparql> { ?s ?p ?o } }",
    "prefix_metadata": "PREFIX e: <http://169.254.169.254/> SELECT * WHERE { SERVICE e:latest { ?s ?p ?o } }",
    "empty_prefix": "PREFIX : <http://127.0.0.1:9/> SELECT * WHERE { SERVICE :sparql { ?s ?p ?o } }",
    "comment_between": f"SELECT * WHERE {{ SERVICE # hidden?\n <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "unicode_escape": "SELECT * WHERE { SERVICE <http://127.0.0.1:9/\\u0073parql> { ?s ?p ?o } }",
    "escaped_keyword": f"SELECT * WHERE {{ \\u0053ERVICE <{LOOPBACK}> {{ ?s ?p ?o }} }}",
    "variable": "SELECT * WHERE { SERVICE ?s { ?s ?p ?o } }",
    "variable_silent": "SELECT * WHERE { VALUES ?x { <http://127.0.0.1:9/> } SERVICE SILENT ?x { ?s ?p ?o } }",
}
VARIABLE_SERVICES = {"variable", "variable_silent"}
EXPECTED_TARGET = {
    "base_relative": LOOPBACK,
    "prefix_metadata": METADATA,
    "unicode_escape": LOOPBACK,
    "nested_service": LOOPBACK,
}


@pytest.mark.parametrize("name", sorted(SERVICE_VARIANTS))
def test_a3_service_variants_are_rejected(name: str) -> None:
    error = rejected(EMBEDDED, SERVICE_VARIANTS[name])
    assert error.reason == "service"
    assert "SERVICE" in error.message
    if name in VARIABLE_SERVICES:
        assert "fixed, allowed IRI" in error.message
    else:
        assert f"<{EXPECTED_TARGET.get(name, LOOPBACK)}>" in error.message


@pytest.mark.parametrize("name", sorted(SERVICE_VARIANTS))
def test_a3_algebra_walk_alone_rejects_every_variant(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Most SERVICE clauses are already refused from the tokens, before parsing. Switching
    # that precheck off shows the second, independent layer (the walk over rdflib's
    # algebra, after BASE and prefix resolution) catches every variant too.
    guard = QueryGuard(get_profile("embedded"))
    monkeypatch.setattr(guard, "_precheck_services", lambda tokens: None)
    error = rejected(guard, SERVICE_VARIANTS[name])
    if name == "nested_service":
        # rdflib recurses without end on nested SERVICE (RDFLib/rdflib#2136); still refused.
        assert error.reason == "too_complex"
        return
    assert error.reason == "service"
    if name not in VARIABLE_SERVICES:
        assert f"<{EXPECTED_TARGET.get(name, LOOPBACK)}>" in error.message


# --- A4: the Wikidata label service ------------------------------------------------------

LABEL_QUERY = """SELECT ?item ?itemLabel WHERE {
  ?item wdt:P31 wd:Q146 .
  SERVICE wikibase:label { bd:serviceParam wikibase:language "[AUTO_LANGUAGE],en". }
}"""


def test_a4_label_service_is_allowed_under_wikidata() -> None:
    checked = WIKIDATA.check(LABEL_QUERY)
    assert checked.form == "SELECT"
    assert "SERVICE wikibase:label" in checked.text
    assert WIKIBASE_LABEL_SERVICE in get_profile("wikidata").service_allowlist


def test_a4_label_service_with_full_iri_is_allowed_under_wikidata() -> None:
    text = LABEL_QUERY.replace("SERVICE wikibase:label", f"SERVICE <{WIKIBASE_LABEL_SERVICE}>")
    assert WIKIDATA.check(text).form == "SELECT"


def test_a4_label_service_is_rejected_under_embedded() -> None:
    prefixes = "PREFIX wdt: <http://www.wikidata.org/prop/direct/> PREFIX wd: <http://www.wikidata.org/entity/>\n"
    prefixes += "PREFIX wikibase: <http://wikiba.se/ontology#> PREFIX bd: <http://www.bigdata.com/rdf#>\n"
    error = rejected(EMBEDDED, prefixes + LABEL_QUERY)
    assert error.reason == "service"
    assert "allows no SERVICE" in error.message


def test_a4_redefined_wikibase_prefix_cannot_smuggle_a_service() -> None:
    text = "PREFIX wikibase: <http://127.0.0.1:9/> " + LABEL_QUERY
    error = rejected(WIKIDATA, text)
    assert error.reason == "service"
    assert "<http://127.0.0.1:9/label>" in error.message


def test_a4_other_wdqs_services_are_rejected_under_wikidata() -> None:
    text = "SELECT ?place WHERE { SERVICE wikibase:around { ?place wdt:P625 ?loc } }"
    error = rejected(WIKIDATA, text)
    assert error.reason == "service"
    assert f"allowed: <{WIKIBASE_LABEL_SERVICE}>" in error.message


# --- A5: predeclared prefixes ------------------------------------------------------------


def test_a5_wdqs_query_without_prefix_lines_is_accepted_under_wikidata() -> None:
    checked = WIKIDATA.check("SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; p:P39 ?st . ?st pq:P580 ?start }")
    assert checked.form == "SELECT"
    # The prefixes the guard resolved are declared in the text sent, so the same query
    # also works on endpoints that predeclare nothing (Fuseki, QLever, a Wikidata mirror).
    header, body = checked.text.split("SELECT", 1)
    assert header.splitlines() == [
        "PREFIX p: <http://www.wikidata.org/prop/>",
        "PREFIX pq: <http://www.wikidata.org/prop/qualifier/>",
        "PREFIX wd: <http://www.wikidata.org/entity/>",
        "PREFIX wdt: <http://www.wikidata.org/prop/direct/>",
    ]
    assert body.startswith(" ?x WHERE")


def test_a5_prefixes_the_query_declares_itself_are_not_repeated() -> None:
    text = "PREFIX wd: <http://example.org/other/>\nSELECT ?x WHERE { ?x wdt:P31 wd:Q5 }"
    checked = WIKIDATA.check(text)
    assert checked.text.count("PREFIX wd:") == 1
    assert "PREFIX wd: <http://example.org/other/>" in checked.text
    assert checked.text.startswith("PREFIX wdt: <http://www.wikidata.org/prop/direct/>\n")


def test_a5_same_query_under_embedded_names_the_missing_prefix() -> None:
    error = rejected(EMBEDDED, "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 }")
    assert error.reason == "unknown_prefix"
    assert "PREFIX wdt:" in error.message


@pytest.mark.parametrize("prefix", ["foaf", "dcterms", "schema", "skos"])
def test_a5_prefixes_rdflib_knows_but_stores_do_not_are_rejected(prefix: str) -> None:
    # rdflib alone would resolve these (it binds ~30 well-known prefixes); the store would not.
    error = rejected(EMBEDDED, f"SELECT ?n WHERE {{\n  ?s {prefix}:name ?n }}")
    assert error.reason == "unknown_prefix"
    assert (error.line, error.column) == (2, 6)
    assert f"PREFIX {prefix}:" in error.message


def test_a5_query_prefix_overrides_profile_prefix() -> None:
    assert WIKIDATA.check(f"PREFIX wd: <{EX}> SELECT ?x WHERE {{ ?x wdt:P31 wd:Q5 }}").form == "SELECT"


# --- A6: syntax errors are caught locally with line and column ----------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "hint"),
    [
        ("SELECT ?s WHERE {\n  ?s ?p ?o .\n  OPTIONAL { ?s ?q ?r \n}", 4, 2, "1 '{' never closed"),
        ("SELECT ?s WHERE {\n  ?s ?p ?o .\n  FILTER(?o > ) \n}", 3, 3, "near 'FILTER(?o > )'"),
        ("SELECT ?s WHERE { ?s ?p ?o }}", 1, 29, "1 '}' too many"),
        ("SELEC ?s WHERE { ?s ?p ?o }", 1, 1, "near 'SELEC"),
        ("SELECT ?s WHERE { ?s ?p ?o } LIMIT ?x", 1, 30, "near 'LIMIT ?x'"),
    ],
)
def test_a6_syntax_error_has_line_and_column(text: str, line: int, column: int, hint: str) -> None:
    error = rejected(EMBEDDED, text)
    assert error.reason == "syntax"
    assert (error.line, error.column) == (line, column)
    assert f"line {line}, column {column}" in error.message
    assert hint in error.message


def test_a6_syntax_error_location_ignores_the_injected_limit() -> None:
    # The LIMIT is planned before parsing; an error after the injection point must still be
    # reported at its place in the text as written.
    text = "SELECT ?s WHERE { ?s ?p ?o }\nVALUES ?s { <a:b> "
    error = rejected(EMBEDDED, text)
    assert error.reason == "syntax"
    assert error.line == 2


# --- A7: too complex for the parser ------------------------------------------------------


def nested(depth: int) -> str:
    return "SELECT * WHERE " + "{ " * depth + "?s ?p ?o " + "} " * depth


def flat(patterns: int) -> str:
    return "SELECT * WHERE { " + " ".join(f"?s{i} <{EX}p> ?o{i} ." for i in range(patterns)) + " }"


@pytest.mark.parametrize("text", [nested(40), nested(500), flat(100), flat(400)], ids=["n40", "n500", "f100", "f400"])
def test_a7_deep_or_long_queries_are_rejected_as_too_complex(text: str) -> None:
    error = rejected(EMBEDDED, text)
    assert error.reason == "too_complex"
    assert "too complex" in error.message


@pytest.mark.parametrize("text", [nested(30), flat(80)], ids=["n30", "f80"])
def test_a7_realistic_sizes_still_pass(text: str) -> None:
    assert EMBEDDED.check(text).form == "SELECT"


def test_a7_guard_still_works_after_a_recursion_error() -> None:
    rejected(EMBEDDED, nested(200))
    assert EMBEDDED.check(SELECT_ALL).limit == 1000


# --- A8: unusable text -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("   \n\t  ", "empty"),
        (b"", "empty"),
        ("SELECT ?s WHERE { ?s ?p ?o }\x00", "control_char"),
        ("SELECT ?s WHERE { ?s ?p '\x1b[31m' }", "control_char"),
        ("SELECT ?s WHERE { ?s ?p ?o }\x7f", "control_char"),
        ("SELECT ?s WHERE { ?s ?p '\\u0000' }", "control_char"),
        (b"SELECT ?s WHERE { ?s ?p '\xff\xfe' }", "encoding"),
        (b"SELECT ?s WHERE { ?s ?p '\xc3' }", "encoding"),
        ("SELECT ?s WHERE { ?s ?p ?o } #" + "x" * 1_000_000, "too_large"),
        (b"SELECT ?s WHERE { ?s ?p ?o } #" + b"x" * 1_000_000, "too_large"),
        ("SELECT ?s WHERE { ?s ?p '\\u005Cu0041' }", "escape"),
        ("SELECT ?s WHERE { ?s ?p '\\U0011FFFF' }", "syntax"),
    ],
    ids=[
        "empty",
        "whitespace",
        "empty_bytes",
        "nul",
        "escape_char",
        "del",
        "nul_via_escape",
        "bad_utf8",
        "truncated_utf8",
        "one_mb",
        "one_mb_bytes",
        "escape_to_escape",
        "escape_out_of_range",
    ],
)
def test_a8_unusable_text_is_rejected_with_a_clear_reason(text: str | bytes, reason: str) -> None:
    error = rejected(EMBEDDED, text)
    assert error.reason == reason
    assert len(error.message) < 200


def test_a8_control_character_position_is_reported() -> None:
    error = rejected(EMBEDDED, "SELECT ?s\nWHERE { ?s ?p\x00 ?o }")
    assert (error.line, error.column) == (2, 14)
    assert "U+0000" in error.message


def test_a8_utf8_bytes_and_escapes_are_accepted_and_sent_expanded() -> None:
    checked = EMBEDDED.check("SELECT ?s WHERE { ?s ?p 'Zürich' }".encode())
    assert "'Zürich'" in checked.text
    escaped = EMBEDDED.check("SELECT ?s WHERE { ?s ?p 'caf\\u00e9' }")
    assert "'café'" in escaped.text
    assert escaped.source_text == "SELECT ?s WHERE { ?s ?p 'caf\\u00e9' }"


def test_a8_max_chars_is_configurable() -> None:
    guard = QueryGuard(get_profile("embedded"), GuardPolicy(max_chars=30))
    assert rejected(guard, SELECT_ALL + "       ").reason == "too_large"
    assert guard.check(SELECT_ALL).form == "SELECT"


# --- A9: LIMIT injection and clamping -----------------------------------------------------


def test_a9_missing_limit_is_injected() -> None:
    checked = EMBEDDED.check(SELECT_ALL)
    assert checked.limit == 1000
    assert slice_length(checked.text) == 1000
    assert checked.source_text == SELECT_ALL


def test_a9_huge_limit_is_clamped_to_the_profile_maximum() -> None:
    checked = EMBEDDED.check(SELECT_ALL + " LIMIT 100000000")
    assert checked.limit == get_profile("embedded").max_limit
    assert slice_length(checked.text) == 10000
    assert "100000000" not in checked.text


def test_a9_small_limit_and_offset_are_kept() -> None:
    text = SELECT_ALL + " ORDER BY ?s limit 5 OFFSET 20"
    checked = EMBEDDED.check(text)
    assert checked.text == text
    assert checked.limit == 5
    assert prepareQuery(checked.text).algebra.p.start == 20


def test_a9_offset_before_limit_and_offset_alone_are_handled() -> None:
    assert slice_length(EMBEDDED.check(SELECT_ALL + " OFFSET 3 LIMIT 99999").text) == 10000
    alone = EMBEDDED.check(SELECT_ALL + " OFFSET 3").text
    assert slice_length(alone) == 1000
    assert prepareQuery(alone).algebra.p.start == 3


def test_a9_subquery_limit_is_untouched_and_top_level_limit_injected() -> None:
    text = "SELECT ?s WHERE { { SELECT ?s WHERE { ?s ?p ?o } LIMIT 5000000 } }"
    checked = EMBEDDED.check(text)
    assert "LIMIT 5000000" in checked.text
    assert checked.limit == 1000
    assert slice_length(checked.text) == 1000


def test_a9_trailing_values_stays_last() -> None:
    text = f"SELECT ?s WHERE {{ ?s ?p ?o }} ORDER BY ?s VALUES ?s {{ <{EX}a> <{EX}b> }}"
    checked = EMBEDDED.check(text)
    assert checked.text.rstrip().endswith(f"VALUES ?s {{ <{EX}a> <{EX}b> }}")
    assert checked.text.index("LIMIT 1000") < checked.text.index("VALUES")
    assert slice_length(checked.text) == 1000


def test_a9_inline_values_inside_the_pattern_is_not_moved() -> None:
    text = f"SELECT ?s WHERE {{ VALUES ?s {{ <{EX}a> }} ?s ?p ?o }}"
    checked = EMBEDDED.check(text)
    assert checked.text.startswith(text)
    assert checked.text.rstrip().endswith("LIMIT 1000")


def test_a9_limit_words_in_strings_iris_comments_and_names_are_ignored() -> None:
    text = (
        f"PREFIX limit: <{EX}>\n"
        f'SELECT ?s WHERE {{ ?s limit:p "LIMIT 5" ; <{EX}LIMIT> ?limit . # LIMIT 7\n'
        f"  FILTER(?s != <{EX}x>) }}\n# LIMIT 3"
    )
    checked = EMBEDDED.check(text)
    assert checked.limit == 1000
    assert slice_length(checked.text) == 1000


def test_a9_ask_gets_no_limit() -> None:
    checked = EMBEDDED.check("ASK { ?s ?p ?o }")
    assert checked.form == "ASK"
    assert checked.limit is None
    assert "LIMIT" not in checked.text


def test_a9_policy_overrides_profile_limits() -> None:
    guard = QueryGuard(get_profile("embedded"), GuardPolicy(default_limit=7, max_limit=50))
    assert guard.check(SELECT_ALL).limit == 7
    assert guard.check(SELECT_ALL + " LIMIT 51").limit == 50
    assert QueryGuard(get_profile("embedded"), GuardPolicy(max_limit=20)).check(SELECT_ALL).limit == 20


def test_a9_rewritten_text_parses_with_rdflib_for_aggregates_and_order() -> None:
    text = f"SELECT ?s (COUNT(?o) AS ?n) WHERE {{ ?s <{EX}p> ?o }} GROUP BY ?s HAVING (COUNT(?o) > 1) ORDER BY DESC(?n)"
    assert slice_length(EMBEDDED.check(text).text) == 1000


def test_a9_checked_query_runs_through_the_facade_with_its_limit() -> None:
    backend = CountingBackend(get_profile("embedded"))
    with KnowledgeGraph(backend) as graph:
        graph.query(SELECT_ALL + " LIMIT 123456")
    assert backend.closed
    assert [q.limit for q in backend.executed] == [10000]
    assert backend.executed[0].origin == "guard"


# --- A10: DESCRIBE and CONSTRUCT ------------------------------------------------------------


def test_a10_describe_is_rejected() -> None:
    error = rejected(EMBEDDED, "DESCRIBE ?x WHERE { ?x ?p ?o }")
    assert error.reason == "form"
    assert "DESCRIBE queries are not allowed" in error.message
    assert "SELECT" in error.message


def test_a10_construct_is_allowed_and_limited() -> None:
    checked = EMBEDDED.check("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    assert checked.form == "CONSTRUCT"
    assert checked.limit == 1000
    assert slice_length(checked.text) == 1000


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        (f"CONSTRUCT {{ ?s <{EX}a> ?o . ?o <{EX}b> ?s . ?s <{EX}c> 1 . ?o <{EX}d> 2 }} WHERE {{ ?s ?p ?o }}", 25),
        (f"CONSTRUCT {{ ?s <{EX}a> ?o , ?p , ?q }} WHERE {{ ?s ?p ?o }} LIMIT 99", 33),
        (f"CONSTRUCT {{ ?s <{EX}a> ?o }} WHERE {{ ?s ?p ?o }} LIMIT 40", 40),
        ("CONSTRUCT WHERE { ?s ?p ?o . ?o ?q ?r }", 50),
    ],
    ids=["four_triples", "three_by_commas", "small_limit_kept", "short_form"],
)
def test_a10_construct_triple_cap_clamps_the_limit(text: str, limit: int) -> None:
    guard = QueryGuard(get_profile("embedded"), GuardPolicy(max_construct_triples=100))
    checked = guard.check(text)
    assert checked.limit == limit
    assert slice_length(checked.text) == limit


def test_a10_policy_can_forbid_construct_and_allow_describe() -> None:
    guard = QueryGuard(get_profile("embedded"), GuardPolicy(allowed_forms=frozenset({"SELECT", "DESCRIBE"})))
    assert rejected(guard, "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }").reason == "form"
    assert rejected(guard, "ASK { ?s ?p ?o }").reason == "form"
    describe = guard.check("DESCRIBE ?x WHERE { ?x ?p ?o }")
    assert describe.form == "DESCRIBE"
    assert describe.limit == 1000


def test_a10_policy_validates_its_fields() -> None:
    with pytest.raises(ValueError, match="allowed_forms"):
        GuardPolicy(allowed_forms=frozenset())
    with pytest.raises(ValueError, match="max_limit"):
        GuardPolicy(max_limit=0)


# --- The facade never calls the backend for a rejected query ------------------------------

REJECTED_TEXTS = [
    UPDATES[0],
    f"SELECT * WHERE {{ ?s ?p ?o }} ; INSERT DATA {{ <{EX}a> <{EX}b> <{EX}c> }}",
    SERVICE_VARIANTS["silent"],
    SERVICE_VARIANTS["variable"],
    "SELECT ?s WHERE { ?s ?p ?o ",
    nested(60),
    "",
    "DESCRIBE ?x WHERE { ?x ?p ?o }",
]


@pytest.mark.parametrize("text", REJECTED_TEXTS)
def test_rejected_queries_never_reach_the_backend(text: str) -> None:
    backend = CountingBackend(get_profile("embedded"))
    graph = KnowledgeGraph(backend)
    with pytest.raises(QueryRejected):
        graph.query(text)
    assert backend.executed == []


def test_facade_runs_templates_without_the_guard_and_exposes_the_profile() -> None:
    backend = CountingBackend(get_profile("wikidata"))
    graph = KnowledgeGraph(backend, limits=ExecutionLimits(max_rows=5))
    template = from_template("SELECT ?s WHERE { ?s ?p ?o } LIMIT 3", limit=3)
    graph.run(template)
    assert backend.executed == [template]
    assert graph.profile.name == "wikidata"
    assert graph.guard.profile.name == "wikidata"
    assert graph.check("ASK { ?s wdt:P31 wd:Q5 }").form == "ASK"
    assert backend.executed == [template]  # check() alone never calls the backend


# --- Real-world shapes ------------------------------------------------------------------


def test_escaped_local_names_and_hash_inside_iris_are_not_comments() -> None:
    text = 'PREFIX : <http://valuenet/ontop/>\nselect ?n where { ?t1 :singer\\#name ?n ; <http://x/y#z> "a#b" }'
    checked = EMBEDDED.check(text)
    assert ":singer\\#name" in checked.text
    assert checked.text.index("LIMIT") > checked.text.index('"a#b" }')


def test_comments_are_blanked_in_the_sent_text_keeping_positions() -> None:
    text = "SELECT ?s # the subject\nWHERE { ?s ?p ?o } # done"
    checked = EMBEDDED.check(text)
    assert "#" not in checked.text
    assert checked.text.startswith("SELECT ?s " + " " * len("# the subject") + "\nWHERE")


def test_path_modifier_separated_by_space_is_accepted_and_joined() -> None:
    checked = WIKIDATA.check("SELECT ?x WHERE { ?x wdt:P31/wdt:P279 * wd:Q5 . ?x (wdt:P1|wdt:P2) + ?y }")
    assert "wdt:P279* wd:Q5" in checked.text
    assert "(wdt:P1|wdt:P2)+ ?y" in checked.text


def test_blazegraph_named_subquery_is_inlined() -> None:
    text = """SELECT ?item ?n
WITH { SELECT ?item WHERE { ?item wdt:P31 wd:Q5 } LIMIT 10 } AS %people
WHERE { INCLUDE %people . ?item wdt:P106 ?n }"""
    checked = WIKIDATA.check(text)
    assert "WITH" not in checked.text and "INCLUDE" not in checked.text
    assert "{ SELECT ?item WHERE { ?item wdt:P31 wd:Q5 } LIMIT 10 }" in checked.text
    assert checked.limit == 1000


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SELECT ?x WITH { SELECT ?x WHERE { ?x ?p ?o } } AS %yes WHERE { INCLUDE %nope }", "INCLUDE %nope"),
        ("SELECT ?x WITH { SELECT ?x WHERE { ?x ?p ?o } } WHERE { ?x ?p ?o }", "malformed named subquery"),
    ],
)
def test_blazegraph_named_subquery_errors_are_explained(text: str, message: str) -> None:
    error = rejected(WIKIDATA, text)
    assert error.reason == "unsupported"
    assert message in error.message


def test_the_fast_grammar_is_in_use_once_built_and_rejects_unblanked_comments() -> None:
    assert sparql_grammar.build_fast_grammar()
    assert sparql_grammar.fast_grammar()
    with pytest.raises(Exception, match="Expected"):
        sparql_grammar.parse_query("SELECT * WHERE { ?s ?p ?o } # not blanked")
