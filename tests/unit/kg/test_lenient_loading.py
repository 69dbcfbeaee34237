"""A syntax error names file, line and column; ``saga load --lenient`` loads the rest (issue 42, point 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.lenient import MAX_SKIPPED, repair
from saga_kgqa.kg.embedded.loading import build_store

BOM = b"\xef\xbb\xbf"
# An ontology as published: a byte-order mark and one stray ">" between two classes (line 9).
PUBLISHED = BOM + (
    b'<?xml version="1.0"?>\n'
    b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
    b'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#" xmlns:owl="http://www.w3.org/2002/07/owl#">\n'
    b'  <owl:Class rdf:about="http://example.org/A">\n'
    b"    <rdfs:label>A &gt; B</rdfs:label>\n"
    b"  </owl:Class>\n"
    b'  <owl:Class rdf:about="http://example.org/B">\n'
    b"    <rdfs:label>B</rdfs:label>\n"
    b"  </owl:Class>\n"
    b"  >\n"
    b'  <owl:Class rdf:about="http://example.org/C">\n'
    b'    <rdfs:subClassOf rdf:resource="http://example.org/B"/>\n'
    b"    <rdfs:label>C</rdfs:label>\n"
    b"  </owl:Class>\n"
    b"</rdf:RDF>\n"
)


def _count(store: Path) -> int:
    opened = ox.Store.read_only(str(store))
    try:
        return len(opened)
    finally:
        del opened


def test_a_syntax_error_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "published.owl"
    path.write_bytes(PUBLISHED)
    with pytest.raises(ConfigurationError) as raised:
        build_store(tmp_path / "store", [path])
    # Before issue 42: "cannot load …: Unexpected text event" and no place.
    assert f"{path}, line 9, column 3" in raised.value.message
    assert not (tmp_path / "store").exists()


def test_a_turtle_error_names_its_place_too(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    path.write_text("@prefix ex: <http://e/> .\nex:a ex:b ex:c .\nex:a ex:b > .\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as raised:
        build_store(tmp_path / "store", [path])
    assert f"{path}, line 3, column 11" in raised.value.message


def test_saga_load_lenient_loads_the_rest_and_names_the_skipped_line(tmp_path: Path) -> None:
    path = tmp_path / "published.owl"
    path.write_bytes(PUBLISHED)
    store = tmp_path / "store"
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("saga")),
            "load",
            str(path),
            "--store",
            str(store),
            "--index",
            "off",
            "--lenient",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"{path}, line 9, column 3: skipped '>'" in done.stderr
    assert "1 unparsable part(s) skipped" in done.stdout
    assert _count(store) == 7  # three classes typed and labelled, C's superclass


def test_lenient_turtle_skips_the_bad_line_only(tmp_path: Path) -> None:
    path = tmp_path / "g.ttl"
    path.write_text('@prefix ex: <http://e/> .\nex:a ex:b ex:c .\nex:a ex:b > .\nex:d ex:e "f" .\n', encoding="utf-8")
    parts: list[str] = []
    count = build_store(tmp_path / "store", [path], lenient=True, skipped=lambda part: parts.append(part.describe()))
    assert count == 2
    reason = "Parser error at line 3 column 11: > is not a valid RDF object"
    assert parts == [f"{path}, line 3, column 11: skipped 'ex:a ex:b > .' ({reason})"]


def test_a_file_lenient_cannot_mend_is_refused_whole(tmp_path: Path) -> None:
    broken = tmp_path / "broken.rdf"
    broken.write_bytes(
        b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<rdf:Description>\n</rdf:RDF>'
    )
    with pytest.raises(ConfigurationError) as raised:
        build_store(tmp_path / "store", [broken], lenient=True)
    assert "line 3" in raised.value.message
    assert not (tmp_path / "store").exists()


def test_repairs_are_bounded() -> None:
    lines = "".join(f"<http://e/s{i}> <http://e/p> > .\n" for i in range(MAX_SKIPPED + 1))
    with pytest.raises(SyntaxError, match="more than"):
        repair(Path("many.nt"), lines.encode(), ox.RdfFormat.N_TRIPLES)
