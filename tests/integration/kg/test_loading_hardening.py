"""Issue 10, holes 5 and 12 (loading): entity bombs, atomic ``saga load``, BOMs and huge literals.

The billion-laughs document runs in a driver child under ``RLIMIT_AS`` (``tests/support/capped``):
a regression that expands the entities again fails the test at the cap instead of taking the
machine down (the issue saw 769 bytes exhaust 24 GB).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.kg.embedded.store import EmbeddedStore
from tests.support.capped import run_capped

RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def laughs(levels: int = 10, fan_out: int = 10) -> str:
    """The classic billion-laughs document as RDF/XML: ``fan_out ** levels`` copies of "lol"."""
    entities = ['<!ENTITY lol0 "lol">']
    for level in range(1, levels):
        entities.append(f'<!ENTITY lol{level} "' + f"&lol{level - 1};" * fan_out + '">')
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n' + "\n".join(entities) + "\n]>\n"
        f'<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:ex="http://example.org/">\n'
        f'<rdf:Description rdf:about="http://example.org/s"><ex:p>&lol{levels - 1};</ex:p></rdf:Description>\n'
        "</rdf:RDF>\n"
    )


DRIVER = """
import json
from pathlib import Path
from saga_kgqa.errors import SagaError
from saga_kgqa.kg.embedded.store import EmbeddedStore
try:
    with EmbeddedStore.from_files([Path({path!r})]) as store:
        print(json.dumps({{"status": "loaded", "triples": len(store)}}))
except SagaError as exc:
    print(json.dumps({{"status": "error", "type": type(exc).__name__, "message": exc.message}}))
"""


def test_billion_laughs_rdf_xml_is_refused_without_expanding_it(tmp_path: Path) -> None:
    bomb = tmp_path / "laughs.rdf"
    bomb.write_text(laughs(), encoding="utf-8")
    assert bomb.stat().st_size < 2048
    run = run_capped(DRIVER.format(path=str(bomb)), address_space_mb=2048, timeout_s=120)
    assert run.outcome is not None, f"the loader died at the cap (status {run.returncode}): {run.stderr}"
    assert run.outcome["status"] == "error", run.outcome
    assert run.outcome["type"] == "ConfigurationError"
    assert "entit" in str(run.outcome["message"]), run.outcome


def test_many_references_to_one_long_entity_are_refused(tmp_path: Path) -> None:
    # No nesting, but linear amplification: 200 000 four-byte references to a 64 KiB entity.
    bomb = tmp_path / "wide.rdf"
    body = "&a;" * 200_000
    bomb.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [ <!ENTITY a "{"x" * 65536}"> ]>\n'
        f'<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:ex="http://example.org/">'
        f'<rdf:Description rdf:about="http://example.org/s"><ex:p>{body}</ex:p></rdf:Description></rdf:RDF>\n',
        encoding="utf-8",
    )
    run = run_capped(DRIVER.format(path=str(bomb)), address_space_mb=2048, timeout_s=120)
    assert run.outcome is not None, f"the loader died at the cap (status {run.returncode}): {run.stderr}"
    assert run.outcome["status"] == "error" and "entit" in str(run.outcome["message"]), run.outcome


@pytest.mark.parametrize(
    "declaration",
    [
        '<!ENTITY ext SYSTEM "file:///etc/hostname">',
        '<!ENTITY % param "x">',
    ],
)
def test_external_and_parameter_entities_are_refused(tmp_path: Path, declaration: str) -> None:
    path = tmp_path / "ext.rdf"
    path.write_text(
        f'<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [ {declaration} ]>\n'
        f'<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:ex="http://example.org/">'
        '<rdf:Description rdf:about="http://example.org/s"><ex:p>v</ex:p></rdf:Description></rdf:RDF>\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigurationError, match="entit"):
        EmbeddedStore.from_files([path])


def test_namespace_entities_of_ordinary_owl_files_still_load(tmp_path: Path) -> None:
    path = tmp_path / "onto.owl"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n <!ENTITY ex "http://example.org/">\n'
        ' <!ENTITY owl "http://www.w3.org/2002/07/owl#">\n]>\n'
        f'<rdf:RDF xmlns:rdf="{RDF_NS}" xmlns:ex="http://example.org/">'
        '<rdf:Description rdf:about="&ex;Thing"><rdf:type rdf:resource="&owl;Class"/></rdf:Description>'
        "</rdf:RDF>\n",
        encoding="utf-8",
    )
    with EmbeddedStore.from_files([path]) as store:
        assert len(store) == 1


def saga_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).with_name("saga")), *args], capture_output=True, text=True, timeout=120, check=False
    )


def count_triples(store: Path) -> int:
    done = saga_cli("sparql", "--data", str(store), "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", "--json")
    assert done.returncode == 0, done.stderr
    found = re.search(r'"value": "(\d+)"', done.stdout)
    assert found is not None, done.stdout
    return int(found.group(1))


GOOD = '<http://example.org/s> <http://example.org/p> "good" .\n'
OLD = '<http://example.org/old> <http://example.org/p> "old" .\n<http://example.org/old> <http://example.org/q> "x" .\n'


def test_failed_load_into_a_new_store_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "good.ttl").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.ttl").write_text("<http://example.org/s> <http://example.org/p> .\n", encoding="utf-8")
    store = tmp_path / "S"
    done = saga_cli("load", str(tmp_path / "good.ttl"), str(tmp_path / "bad.ttl"), "--store", str(store))
    assert done.returncode == 2, done.stderr
    assert "bad.ttl" in done.stderr
    assert not store.exists(), "a half-built store was left where later runs would use it"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("S")] == []


def test_failed_load_into_an_existing_store_leaves_it_untouched(tmp_path: Path) -> None:
    (tmp_path / "old.ttl").write_text(OLD, encoding="utf-8")
    (tmp_path / "good.ttl").write_text(GOOD, encoding="utf-8")
    (tmp_path / "bad.ttl").write_text("<http://example.org/s> <http://example.org/p> .\n", encoding="utf-8")
    store = tmp_path / "S"
    assert saga_cli("load", str(tmp_path / "old.ttl"), "--store", str(store)).returncode == 0
    before = count_triples(store)
    assert before == 2
    done = saga_cli("load", str(tmp_path / "good.ttl"), str(tmp_path / "bad.ttl"), "--store", str(store))
    assert done.returncode == 2, done.stderr
    assert count_triples(store) == before, "the failed load changed the store"
    assert saga_cli("load", str(tmp_path / "good.ttl"), "--store", str(store)).returncode == 0
    assert count_triples(store) == 3  # extending still works


def test_turtle_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    path = tmp_path / "bom.ttl"
    path.write_bytes(b"\xef\xbb\xbf@prefix ex: <http://example.org/> .\nex:s ex:p 'o' .\n")
    with EmbeddedStore.from_files([path]) as store:
        assert len(store) == 1
    done = saga_cli("load", str(path), "--store", str(tmp_path / "S"))
    assert done.returncode == 0, done.stderr


def test_literal_over_the_parser_buffer_is_a_typed_error_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "big.ttl"
    path.write_bytes(b'<http://example.org/s> <http://example.org/p> "' + b"x" * (17 * 1024 * 1024) + b'" .\n')
    with pytest.raises(ConfigurationError, match="16 MiB"):
        EmbeddedStore.from_files([path])
    done = saga_cli("load", str(path), "--store", str(tmp_path / "S"))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    assert "big.ttl" in done.stderr
