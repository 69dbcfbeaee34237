"""The guard's tokenizer and token-level rewrites (LIMIT placement, path modifiers, named subqueries)."""

from __future__ import annotations

import pytest

from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.guard.limit_rewrite import first_keyword, join_path_modifiers, plan_limit
from saga_kgqa.kg.guard.named_subqueries import inline_named_subqueries
from saga_kgqa.kg.guard.sparql_lexer import (
    blank_comments,
    declared_prefixes,
    expand_iri,
    line_and_column,
    tokenize,
)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(token.kind, token.text) for token in tokenize(text)]


@pytest.mark.parametrize(
    "literal",
    [
        '"a # b } LIMIT 5"',
        "'a # b } LIMIT 5'",
        '"""a # b\n} "quoted" ""LIMIT 5"""',
        "'''a # b\n} 'quoted' ''LIMIT 5'''",
        r'"escaped \" # still inside"',
    ],
)
def test_all_four_string_forms_are_single_tokens(literal: str) -> None:
    tokens = kinds(f"?s ?p {literal} .")
    assert tokens == [("var", "?s"), ("var", "?p"), ("string", literal), ("punct", ".")]


def test_iris_escaped_local_names_and_comments() -> None:
    assert kinds("<http://x/y#z> :singer\\#name ex:a.b. # rest { LIMIT\n?o") == [
        ("iri", "<http://x/y#z>"),
        ("pname", ":singer\\#name"),
        ("pname", "ex:a.b"),
        ("punct", "."),
        ("comment", "# rest { LIMIT"),
        ("var", "?o"),
    ]


def test_keyword_lookalikes_are_not_words() -> None:
    assert kinds('?insert ex:drop "x"@add _:load $clear') == [
        ("var", "?insert"),
        ("pname", "ex:drop"),
        ("string", '"x"'),
        ("langtag", "@add"),
        ("bnode", "_:load"),
        ("var", "$clear"),
    ]


def test_less_than_operator_is_not_an_iri() -> None:
    assert [t for _, t in kinds("FILTER(?a < ?b && ?c <= 3)")] == [
        "FILTER",
        "(",
        "?a",
        "<",
        "?b",
        "&&",
        "?c",
        "<=",
        "3",
        ")",
    ]


def test_numbers_follow_the_grammar() -> None:
    assert kinds("1. 2.5 .5 1e3 4.E2") == [
        ("number", "1"),
        ("punct", "."),
        ("number", "2.5"),
        ("number", ".5"),
        ("number", "1e3"),
        ("number", "4.E2"),
    ]


def test_depths_mark_subqueries_and_parentheses() -> None:
    tokens = tokenize("SELECT (COUNT(?x) AS ?n) { { SELECT ?x { ?x ?p ?o } LIMIT 3 } } LIMIT 9")
    limits = [(t.brace_depth, t.paren_depth) for t in tokens if t.is_word("LIMIT")]
    assert limits == [(2, 0), (0, 0)]
    count = next(t for t in tokens if t.is_word("COUNT"))
    assert count.paren_depth == 1
    braces = [t.brace_depth for t in tokens if t.text in "{}"]
    assert braces == [0, 1, 2, 2, 1, 0]


def test_unterminated_strings_and_unbalanced_braces_do_not_break_tokenizing() -> None:
    assert kinds('"open\n}')[-1] == ("punct", "}")
    assert tokenize("}}}")[-1].brace_depth == 0
    assert kinds("'''never closed # }") == [("string", "'''never closed # }")]


def test_blank_comments_keeps_every_offset() -> None:
    text = 'SELECT ?s # c1\nWHERE { ?s <a:b#c> "#" } # c2'
    blanked = blank_comments(text, tokenize(text))
    assert len(blanked) == len(text)
    assert "c1" not in blanked and "c2" not in blanked
    assert '<a:b#c> "#"' in blanked
    assert blank_comments("ASK {}", tokenize("ASK {}")) == "ASK {}"


def test_line_and_column() -> None:
    assert line_and_column("ab\ncd\nef", 0) == (1, 1)
    assert line_and_column("ab\ncd\nef", 4) == (2, 2)


def test_first_keyword_skips_the_prologue() -> None:
    text = "BASE <http://a/> PREFIX select: <http://b/> PREFIX : <http://c/> ask { }"
    keyword = first_keyword(tokenize(text))
    assert keyword is not None and keyword.text == "ask"


@pytest.mark.parametrize(
    ("text", "expected", "limit", "original"),
    [
        ("SELECT * { ?s ?p ?o }", "SELECT * { ?s ?p ?o }\nLIMIT 10", 10, None),
        ("SELECT * { ?s ?p ?o } LIMIT 500", "SELECT * { ?s ?p ?o } LIMIT 100", 100, 500),
        ("SELECT * { ?s ?p ?o } LIMIT 50", "SELECT * { ?s ?p ?o } LIMIT 50", 50, 50),
        ("SELECT * { ?s ?p ?o } VALUES ?s { 1 }", "SELECT * { ?s ?p ?o } LIMIT 10\nVALUES ?s { 1 }", 10, None),
        ("SELECT * { ?s ?p ?o }  \n", "SELECT * { ?s ?p ?o }\nLIMIT 10  \n", 10, None),
    ],
)
def test_plan_limit(text: str, expected: str, limit: int, original: int | None) -> None:
    plan = plan_limit(text, tokenize(text), default_limit=10, max_limit=100)
    assert (plan.text, plan.limit, plan.original) == (expected, limit, original)


def test_join_path_modifiers_leaves_other_stars_alone() -> None:
    text = "SELECT * { ?x ex:p * ?y . ?x <http://a/b> + ?z . BIND(?a * 2 AS ?b) ?x ex:q ?w }"
    assert join_path_modifiers(text, tokenize(text)) == (
        "SELECT * { ?x ex:p* ?y . ?x <http://a/b>+ ?z . BIND(?a * 2 AS ?b) ?x ex:q ?w }"
    )


def test_named_subqueries_are_inlined_in_order_and_may_include_each_other() -> None:
    text = (
        "SELECT ?a WITH { SELECT ?a { ?a ?p ?o } } AS %one "
        "WITH { SELECT ?a { INCLUDE %one } } AS %two WHERE { INCLUDE %two }"
    )
    inlined = inline_named_subqueries(text, tokenize(text), max_chars=10_000)
    assert inlined == "SELECT ?a   WHERE { { SELECT ?a { { SELECT ?a { ?a ?p ?o } } } } }"


def test_named_subquery_inlining_is_bounded() -> None:
    text = "SELECT ?a WITH { SELECT ?a { ?a ?p ?o } } AS %x WHERE { " + "INCLUDE %x " * 50 + "}"
    with pytest.raises(QueryRejected) as info:
        inline_named_subqueries(text, tokenize(text), max_chars=500)
    assert info.value.reason == "too_large"
    cyclic = "SELECT ?a WITH { SELECT ?a { INCLUDE %x } } AS %x WHERE { INCLUDE %x }"
    with pytest.raises(QueryRejected) as info:
        inline_named_subqueries(cyclic, tokenize(cyclic), max_chars=100_000)
    assert info.value.reason == "unsupported"


def test_declared_prefixes_and_expanded_iris() -> None:
    tokens = tokenize(
        "PREFIX wd: <http://www.wikidata.org/entity/>\nprefix : <http://e/> SELECT * { ?x a wd:Q5 ; :p <http://o> }"
    )
    prefixes = declared_prefixes(tokens)
    assert prefixes == {"wd": "http://www.wikidata.org/entity/", "": "http://e/"}
    expanded = [expand_iri(t, prefixes) for t in tokens if t.kind != "punct" and t.text not in ("PREFIX", "prefix")]
    assert "http://www.w3.org/1999/02/22-rdf-syntax-ns#type" in expanded
    assert "http://www.wikidata.org/entity/Q5" in expanded and "http://e/p" in expanded and "http://o" in expanded
    assert expand_iri(tokenize("unknown:thing")[0], prefixes) is None
    assert expand_iri(tokenize("?x")[0], prefixes) is None
