"""The name reader: a child process that streams a store's names to the host that indexes them.

Reading a name back from the store (the quad from the predicate's index, its subject's and object's
text from the string dictionary, the Python objects) cost about as much as indexing it, and both ran
one after the other on the host: at 10M triples 40% of ``saga load``'s name index was this read
(issue 39). Here it runs in its own process, on the other core, while the host indexes what came
before, so the two halves overlap.

Started by :class:`~saga_kgqa.tools.search.store_names.StoreNames` as a script, like the query
worker (``python -S -P names_main.py --pyoxigraph-dir DIR STORE PREDICATE SKIP MAX_CHARS IRI...``):
it imports only ``marshal``, ``os``, ``sys`` and pyoxigraph, never the ``saga_kgqa`` package.
It opens ``STORE`` read-only and, from the predicate at index ``PREDICATE`` (skipping its first
``SKIP`` triples) to the last, writes every name as frames of row batches to standard output: each
frame an 8-byte big-endian length and a :mod:`marshal` payload, a list of
``(IRI, text, language tag or "", predicate index, position)``. Names are string literals (plain
or tagged) of IRIs, at most ``MAX_CHARS`` characters (a longer text is a description, not a name);
numbers, dates and blank nodes are left out. Standard output closing (the host stopped reading or
died) ends it; an empty frame list is never sent, end of file marks the end.
"""

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

#: Rows per frame: large enough that framing costs nothing per name, small enough to overlap early.
BATCH = 4096
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
#: Characters an IRI in a SPARQL query cannot hold (nor escape in a way every reader agrees on).
_UNQUOTABLE = frozenset('<>"{}|^`\\ \t\n\r')


def write_frame(fd: int, value: "Any") -> None:
    """Write one frame (length header and marshal payload) to a file descriptor, all of it."""
    payload = marshal.dumps(value)
    view = memoryview(len(payload).to_bytes(8, "big") + payload)
    while view:
        view = view[os.write(fd, view) :]


def iter_names(
    store: "Any", ox: "Any", first_predicate: int, skip: int, max_chars: int, predicates: "list[str]"
) -> "Iterator[tuple[str, str, str, int, int]]":
    """Every name of ``predicates`` in ``store`` from ``(first_predicate, skip)`` on, as the frames' rows."""
    named, literal = ox.NamedNode, ox.Literal
    for index in range(first_predicate, len(predicates)):
        for position, (subject, obj) in enumerate(_pairs(store, ox, predicates[index])):
            if index == first_predicate and position < skip:
                continue
            if type(subject) is not named or type(obj) is not literal:
                continue
            language = obj.language
            if language is None and obj.datatype.value != _XSD_STRING:
                continue  # numbers and dates are values, not names
            text = obj.value
            if len(text) > max_chars:
                continue  # a description, not a name
            yield subject.value, text, language.lower() if language else "", index, position


def _pairs(store: "Any", ox: "Any", predicate: str) -> "Iterator[tuple[Any, Any]]":
    """The (subject, object) of every triple of ``predicate``, in every graph, in the store's index order.

    A one-pattern SELECT over the union of the graphs yields what ``quads_for_pattern(None, p, None, None)``
    does, in the same order (a resume point counts the same triples), for about a fifth less CPU: it decodes
    neither the predicate nor the graph and builds no quad (issue 39: 2.3 against 2.8 s for 300,000 labels
    at 3M triples). A predicate IRI the query syntax cannot hold (a lenient load keeps unchecked IRIs) is
    read with ``quads_for_pattern``.
    """
    if not _UNQUOTABLE.intersection(predicate):
        try:
            solutions = store.query(f"SELECT ?s ?o WHERE {{ ?s <{predicate}> ?o }}", use_default_graph_as_union=True)
        except SyntaxError:
            pass
        else:
            for solution in solutions:
                yield solution[0], solution[1]
            return
    for quad in store.quads_for_pattern(None, ox.NamedNode(predicate), None, None):
        yield quad.subject, quad.object


def stream(store_dir: str, first_predicate: int, skip: int, max_chars: int, predicates: "list[str]", fd: int) -> int:
    """Write the names of ``predicates`` from ``(first_predicate, skip)`` on to ``fd``; return how many."""
    import pyoxigraph as ox

    store = ox.Store.read_only(store_dir)
    sent = 0
    batch: list[tuple[str, str, str, int, int]] = []
    for row in iter_names(store, ox, first_predicate, skip, max_chars, predicates):
        batch.append(row)
        if len(batch) >= BATCH:
            write_frame(fd, batch)
            sent += len(batch)
            batch = []
    if batch:
        write_frame(fd, batch)
        sent += len(batch)
    return sent


def main(argv: "list[str]") -> None:
    """Parse the command line, stream, exit 0; a closed output exits quietly with 1."""
    if "--pyoxigraph-dir" in argv:
        at = argv.index("--pyoxigraph-dir")
        sys.path.append(argv[at + 1])
        del argv[at : at + 2]
    store_dir, first, skip, max_chars, *predicates = argv
    try:
        stream(store_dir, int(first), int(skip), int(max_chars), predicates, sys.stdout.fileno())
    except BrokenPipeError:
        os._exit(1)  # the host stopped reading: nothing left to tell it


if __name__ == "__main__":
    main(sys.argv[1:])
