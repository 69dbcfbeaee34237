"""A store's names are read in a child process, descriptions and long texts left out (issue 39)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from saga_kgqa.kg.embedded.loading import build_store
from saga_kgqa.tools.search import store_names
from saga_kgqa.tools.search.store_names import MAX_NAME_CHARS, StoreNames
from saga_kgqa.tools.search.streamed_build import writer_threads

EX = "http://example.org/r/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
COMMENT = "http://www.w3.org/2000/01/rdf-schema#comment"
NAME = EX + "name"
ENTITIES = 9000  # more than two of the child's frames


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("names")
    lines = []
    for n in range(ENTITIES):
        s = f"<{EX}e{n}>"
        lines.append(f'{s} <{LABEL}> "entity {n}"@EN .')
        lines.append(f'{s} <{COMMENT}> "entity number {n} of some class"@en .')
        lines.append(f'{s} <{NAME}> "{n}"^^<http://www.w3.org/2001/XMLSchema#integer> .')
    lines.append(f'<{EX}long> <{NAME}> "{"word " * (MAX_NAME_CHARS // 4)}" .')
    lines.append(f'<{EX}short> <{NAME}> "Short Name" .')
    lines.append(f'_:b <{LABEL}> "blank" .')
    (root / "g.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build_store(root / "store", [root / "g.nt"])
    return root / "store"


def test_the_child_streams_what_an_in_process_read_gives(store: Path) -> None:
    predicates = [LABEL, COMMENT, NAME]
    child = list(StoreNames(store, predicates).rows())
    here = list(StoreNames(store, predicates, in_process=True).rows())
    assert child == here
    assert len(child) == ENTITIES + 1  # the labels and the one short name
    assert child[0][2] == "en"  # tags folded to lower case
    # Resuming from a position skips exactly the names before it.
    assert list(StoreNames(store, predicates).rows(start=(0, 100))) == list(
        StoreNames(store, predicates, in_process=True).rows(start=(0, 100))
    )


def test_descriptions_and_long_texts_are_not_names(store: Path) -> None:
    names = StoreNames(store, [LABEL, COMMENT, NAME])
    assert names.sources == (LABEL, NAME)  # rdfs:comment describes
    texts = {text for _, text, *_ in names.rows()}
    assert "Short Name" in texts
    assert not any(len(text) > MAX_NAME_CHARS for text in texts)
    assert not any("number" in text for text in texts)


def test_a_read_stopped_early_ends_its_child(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    real = store_names._ChildReader.__init__

    def record(self: store_names._ChildReader, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        started.append(self._proc.pid)

    monkeypatch.setattr(store_names._ChildReader, "__init__", record)
    rows = StoreNames(store, [LABEL]).rows()
    next(rows)
    rows.close()
    assert len(started) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0], os.WNOHANG)  # reaped: nothing left running or unreaped


def test_a_failing_child_is_a_typed_error(store: Path, tmp_path: Path) -> None:
    names = StoreNames(store, [LABEL])
    names._dir = tmp_path / "gone"  # the store vanished after the check
    with pytest.raises(store_names.BackendError, match="reading the store's names failed"):
        list(names.rows())


def test_the_writer_indexes_on_two_threads_within_its_budget() -> None:
    assert writer_threads(256 * 1024 * 1024) == 2
    assert writer_threads(20 * 1024 * 1024) == 1  # tantivy needs 15 MiB per thread


def test_the_query_read_yields_what_the_quad_index_yields_in_its_order(tmp_path: Path) -> None:
    # The reader asks a one-pattern SELECT over the union of the graphs (cheaper than quads_for_pattern);
    # a resume point counts triples, so it must give the same triples, duplicates across graphs included,
    # in the same order.
    lines = []
    for n in range(3000):
        graph = ("", f" <{EX}g1>", f" <{EX}g2>")[n % 3]
        lines.append(f'<{EX}e{n}> <{LABEL}> "entity {n}"{graph} .')
        lines.append(f'<{EX}e{n % 50}> <{LABEL}> "shared {n % 50}" <{EX}g{n // 50 % 2}> .')
    (tmp_path / "g.nq").write_text("\n".join(lines) + "\n", encoding="utf-8")
    build_store(tmp_path / "store", [tmp_path / "g.nq"])
    import pyoxigraph as ox

    from saga_kgqa.kg.embedded import names_main

    store = ox.Store.read_only(str(tmp_path / "store"))
    expected = [
        (q.subject.value, q.object.value, position)
        for position, q in enumerate(store.quads_for_pattern(None, ox.NamedNode(LABEL), None, None))
    ]
    read = [(iri, text, position) for iri, text, _, _, position in names_main.iter_names(store, ox, 0, 0, 400, [LABEL])]
    assert read == expected
    assert len(read) == 3100  # each shared name is in two graphs: a row in each
    skipped = [row[4] for row in names_main.iter_names(store, ox, 0, 1234, 400, [LABEL])]
    assert skipped[0] == 1234
