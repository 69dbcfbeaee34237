"""Child process for the concurrent-first-use test: parse from many threads at once.

Run as ``python -m tests.support.guard_threads THREADS`` in a fresh interpreter, so every
pyparsing parse action of both SPARQL grammars (the guard's private copy and rdflib's
shared one) meets its first call while the threads race. Prints one JSON object:
``{"errors": [...], "after": "ok" | error}``.
"""

from __future__ import annotations

import json
import sys
import threading

# A tiny switch interval makes the threads interleave inside pyparsing's first calls,
# which is where an unsafe one-time initialisation shows.
sys.setswitchinterval(1e-6)

from saga_kgqa.kg.core.profiles import get_profile  # noqa: E402
from saga_kgqa.kg.guard.query_guard import QueryGuard  # noqa: E402
from saga_kgqa.kg.guard.sparql_algebra import parse_algebra  # noqa: E402
from saga_kgqa.kg.guard.sparql_grammar import build_fast_grammar  # noqa: E402

QUERIES = [
    "PREFIX ex: <http://example.org/> SELECT ?s WHERE { ?s ex:p ?o . FILTER(?o > 3) }",
    "PREFIX ex: <http://example.org/> SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ex:C } "
    "GROUP BY ?s HAVING (COUNT(?s) > 1)",
    "PREFIX ex: <http://example.org/> ASK { ex:a ex:p/ex:q* ?o }",
    "PREFIX ex: <http://example.org/> SELECT ?s ?l WHERE { ?s ex:name ?l OPTIONAL { ?s ex:x ?x } "
    'FILTER(langMatches(lang(?l), "en") && CONTAINS(LCASE(STR(?l)), "a")) } ORDER BY DESC(?l) LIMIT 5 OFFSET 2',
    "PREFIX ex: <http://example.org/> SELECT ?s WHERE { { ?s ex:p 1 } UNION { ?s ex:p 2.5e3 } MINUS { ?s ex:q true } }",
    'PREFIX ex: <http://example.org/> SELECT ?s (STRLEN(?v) AS ?len) WHERE { VALUES ?v { "a" "b"@de } '
    "BIND(IRI(CONCAT(str(ex:), ?v)) AS ?s) }",
    "PREFIX ex: <http://example.org/> SELECT * WHERE { ?s ^ex:p ?o . FILTER NOT EXISTS { ?o ex:r [] } }",
    "PREFIX ex: <http://example.org/> CONSTRUCT { ?s ex:p ?o } WHERE { ?s ex:p ?o } LIMIT 3",
    "PREFIX ex: <http://example.org/> SELECT ?s WHERE { { SELECT ?s (MAX(?d) AS ?m) WHERE { ?s ex:d ?d } GROUP BY ?s } "
    'FILTER(?m >= "2000-01-01"^^<http://www.w3.org/2001/XMLSchema#date> && IF(BOUND(?s), 1, 0) = 1) }',
    'PREFIX ex: <http://example.org/> SELECT (SAMPLE(?o) AS ?x) (GROUP_CONCAT(?o; separator=", ") AS ?all) '
    'WHERE { ?s ex:p ?o FILTER(REGEX(?o, "^a", "i") || ?o IN (1, 2)) } GROUP BY ?s',
]


def main() -> None:
    """Parse every query from N threads released together; print what failed."""
    threads = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 16
    guard = QueryGuard(get_profile("embedded"))
    if "--fast" in sys.argv:
        # The guard's private copy is built lazily after many parses; built now (unparsed, unsettled by any
        # first call), the racing threads make its first calls, as a long-running server's would.
        build_fast_grammar()
    barrier = threading.Barrier(threads)
    errors: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        barrier.wait()
        for text in QUERIES:
            for step in (guard.check, parse_algebra):
                try:
                    step(text)
                except Exception as exc:  # every failure is the finding
                    with lock:
                        errors.append(f"{type(exc).__name__}: {exc}"[:300])

    pool = [threading.Thread(target=work) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    try:
        for text in QUERIES:
            guard.check(text)
            parse_algebra(text)
        after = "ok"
    except Exception as exc:  # a race that locks in a wrong arity breaks every later call
        after = f"{type(exc).__name__}: {exc}"[:300]
    print(json.dumps({"errors": errors, "after": after}))


if __name__ == "__main__":
    main()
