"""The guard's grammars are safe under concurrent first use (issue 21, point 1).

pyparsing finds a parse action's arity on its first call by trial and error; two threads
doing that at once locked in a wrong count and every later parse in the process failed.
Each test starts a fresh interpreter, so the threads really are the first callers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.parse_actions import settle_grammar

_ROOT = Path(__file__).resolve().parents[3]


def _race(threads: int, *options: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.guard_threads", str(threads), *options],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize("grammar", ["shared", "fast"])
def test_sixteen_threads_parse_at_once_in_a_fresh_process(grammar: str) -> None:
    # shared: rdflib's grammar, settled by the process's first parse; fast: the private copy, built unparsed.
    result = _race(16, *(["--fast"] if grammar == "fast" else []))
    assert result["errors"] == []
    assert result["after"] == "ok"


def test_the_installed_pyparsing_is_settled_rather_than_serialised() -> None:
    # The lock is only a fallback; with the pinned pyparsing every action is settled.
    assert sparql_grammar.thread_safe()


def test_settling_keeps_what_each_action_is_given() -> None:
    import pyparsing as pp

    seen: list[object] = []
    word = pp.Word(pp.alphas)
    word.add_parse_action(lambda toks: seen.append(("toks", toks[0])))
    number = pp.Word(pp.nums)
    number.add_parse_action(lambda loc, toks: seen.append(("loc", loc, toks[0])))
    both = word + number
    both.add_parse_action(lambda s, loc, toks: seen.append(("all", s, loc)))
    assert settle_grammar(both)
    both.parse_string("abc 12")
    assert seen == [("toks", "abc"), ("loc", 4, "12"), ("all", "abc 12", 0)]


_ONE_CHECK = """
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.query_guard import QueryGuard
guard = QueryGuard(get_profile("embedded"))
guard.check("PREFIX ex: <http://example.org/> SELECT ?s WHERE { ?s ex:p ?o } LIMIT 4")
after_one = sparql_grammar.private_copies_built()
for n in range(sparql_grammar.FAST_AFTER + 5):
    guard.check(f"PREFIX ex: <http://example.org/> SELECT ?s WHERE {{ ?s ex:p {n} }}")
print(after_one, sparql_grammar.private_copies_built(), sparql_grammar.fast_grammar())
"""


def test_one_check_builds_no_second_grammar_and_many_build_exactly_one() -> None:
    # issue 39: `saga sparql` paid for a private copy of rdflib's grammar to parse one query.
    done = subprocess.run(
        [sys.executable, "-c", _ONE_CHECK], cwd=_ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["0", "1", "True"]


_PUBLIC = """
from saga_kgqa.kg.guard import sparql_grammar as g
texts = [
    "PREFIX ex: <http://example.org/> # a comment\\nSELECT ?s WHERE { ?s ex:p '#not a comment' } # end",
    "SELECT ?s WHERE { ?s <http://example.org/a#b> ?o . FILTER(?o > 3) }",
    "ASK { ?s ?p ?o }",
]
before = [repr(g.translate(g.parse_public_query(t), {}).algebra) for t in texts]
assert not g.fast_grammar()
g.build_fast_grammar()
g.rdflib_parser.parseQuery = None  # the fast path must not fall back on these
after = [repr(g.translate(g.parse_public_query(t), {}).algebra) for t in texts]
print(before == after, g.fast_grammar())
"""


def test_public_parses_give_the_same_trees_on_the_fast_grammar_comments_and_all() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PUBLIC], cwd=_ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["True", "True"]


_SERVER = """
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.guard import sparql_grammar
from saga_kgqa.kg.guard.query_guard import QueryGuard
sparql_grammar.expect_many_parses()
print(sparql_grammar.private_copies_built())
QueryGuard(get_profile("embedded")).check("PREFIX ex: <http://example.org/> SELECT ?s WHERE { ?s ex:p ?o } LIMIT 4")
print(sparql_grammar.private_copies_built(), sparql_grammar.fast_grammar())
"""


def test_a_server_builds_the_private_copy_at_its_first_parse() -> None:
    # issue 38: built at the 48th parse, mid-burst, the copy's long-lived objects pinned the burst's heap.
    done = subprocess.run(
        [sys.executable, "-c", _SERVER], cwd=_ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["0", "1", "True"]
