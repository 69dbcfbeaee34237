"""Loading RDF files into the embedded store, and what happens with bad files or directories."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError, EndpointUnavailable
from saga_kgqa.kg.core.query import CheckedQuery, from_template
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from tests.support.required import missing

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"


# --- serialisations ------------------------------------------------------------------------------------

TURTLE = f"""@prefix ex: <{EX}> .
ex:a ex:name "Ada"@en ; ex:age 36 .
ex:b ex:knows ex:a .
"""
TURTLE_STARTING_WITH_IRI = f"""<{EX}a> <{EX}name> "Ada"@en .
<{EX}a> <{EX}age> 36 .
<{EX}b> <{EX}knows> <{EX}a> .
"""
TURTLE_STARTING_WITH_URN = f"""<urn:x> <{EX}note> "first" .
{TURTLE_STARTING_WITH_IRI}"""
NTRIPLES = f"""<{EX}a> <{EX}name> "Ada"@en .
<{EX}a> <{EX}age> "36"^^<{XSD}integer> .
<{EX}b> <{EX}knows> <{EX}a> .
"""
RDF_XML = f"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="{EX}">
  <rdf:Description rdf:about="{EX}a">
    <ex:name xml:lang="en">Ada</ex:name>
    <ex:age rdf:datatype="{XSD}integer">36</ex:age>
  </rdf:Description>
  <rdf:Description rdf:about="{EX}b"><ex:knows rdf:resource="{EX}a"/></rdf:Description>
</rdf:RDF>
"""
RDF_XML_NO_DECLARATION = RDF_XML.split("\n", 1)[1]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("g.ttl", TURTLE),
        ("g.nt", NTRIPLES),
        ("g.rdf", RDF_XML),
        ("g.owl", RDF_XML),
        ("g.owl", RDF_XML_NO_DECLARATION),
        ("g.owl", TURTLE),
        ("g.owl", TURTLE_STARTING_WITH_IRI),
        ("g.owl", TURTLE_STARTING_WITH_URN),
    ],
    ids=[
        "turtle",
        "ntriples",
        "rdfxml",
        "owl-rdfxml",
        "owl-rdfxml-no-decl",
        "owl-turtle",
        "owl-turtle-iri-first",
        "owl-turtle-urn-first",
    ],
)
def test_loads_each_rdf_serialisation(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with EmbeddedStore.from_files([path]) as loaded:
        assert len(loaded) == 3 + content.count("urn:x")
        result = loaded.execute(
            from_template(f"SELECT ?name ?age WHERE {{ <{EX}a> <{EX}name> ?name ; <{EX}age> ?age }}")
        )
    assert result.rows == [
        {"name": Term("literal", "Ada", lang="en"), "age": Term("literal", "36", datatype=f"{XSD}integer")}
    ]


def test_several_files_load_into_one_persisted_store_dir(tmp_path: Path) -> None:
    (tmp_path / "a.ttl").write_text(TURTLE, encoding="utf-8")
    (tmp_path / "b.nt").write_text(f"<{EX}c> <{EX}knows> <{EX}b> .\n", encoding="utf-8")
    count = load_files(tmp_path / "store", [tmp_path / "a.ttl", tmp_path / "b.nt"])
    assert count == 4
    with EmbeddedStore(tmp_path / "store") as reopened:
        assert len(reopened) == 4
        assert reopened.endpoint_id == f"embedded:{(tmp_path / 'store').resolve()}"
    assert (tmp_path / "store").is_dir(), "closing a store the caller owns must not delete it"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.ttl", f"<{EX}a> <{EX}b> .", "cannot load"),
        ("broken.owl", "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><oops", "cannot load"),
        ("data.csv", "a,b,c\n", "unknown RDF file type"),
    ],
)
def test_bad_file_is_a_configuration_error_and_leaves_no_temp_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str, message: str
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=message):
        EmbeddedStore.from_files([path])
    assert list(scratch.iterdir()) == []


def test_missing_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        EmbeddedStore.from_files([tmp_path / "absent.ttl"])


def test_missing_store_dir_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="store directory not found"):
        EmbeddedStore(tmp_path / "no-such-store")


def test_directory_that_is_not_a_store_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot open store"):
        EmbeddedStore(tmp_path)


def test_worker_that_cannot_open_the_store_is_endpoint_unavailable(tmp_path: Path) -> None:
    (tmp_path / "g.ttl").write_text(TURTLE, encoding="utf-8")
    load_files(tmp_path / "store", [tmp_path / "g.ttl"])
    with EmbeddedStore(tmp_path / "store") as opened:
        (tmp_path / "store").rename(tmp_path / "moved")  # the open in-process handle survives this
        assert len(opened.execute(from_template("SELECT * WHERE { ?s ?p ?o }"))) == 3
        with pytest.raises(EndpointUnavailable, match="could not start"):
            opened.execute(CheckedQuery(text="SELECT * WHERE { ?s ?p ?o }", form="SELECT", origin="guard"))
        assert opened.worker_pid is None


def test_store_built_from_the_same_content_has_the_same_identity(tmp_path: Path) -> None:
    first = tmp_path / "one.ttl"
    second = tmp_path / "two.ttl"
    first.write_text(TURTLE, encoding="utf-8")
    second.write_text(TURTLE, encoding="utf-8")
    with EmbeddedStore.from_files([first]) as a, EmbeddedStore.from_files([second]) as b:
        assert a.endpoint_id == b.endpoint_id
        assert a.store_dir != b.store_dir
    second.write_text(TURTLE + f"<{EX}z> <{EX}knows> <{EX}a> .\n", encoding="utf-8")
    with EmbeddedStore.from_files([second]) as c:
        assert c.endpoint_id != a.endpoint_id


@pytest.mark.shared_data
def test_loads_a_real_owl_ontology(data_dir: Path) -> None:
    owl = data_dir / "spider4sparql" / "ontology" / "mpboot_spider_pets_1.owl"
    if not owl.is_file():
        missing(f"{owl} is absent")
    with EmbeddedStore.from_files([owl]) as loaded:
        result = loaded.execute(
            from_template("SELECT (COUNT(?c) AS ?n) WHERE { ?c a <http://www.w3.org/2002/07/owl#Class> }")
        )
    assert int(result.column("n")[0].value) > 0


def test_queries_read_the_union_of_named_graphs_only_when_there_are_some(tmp_path: Path) -> None:
    import pyoxigraph as ox

    from saga_kgqa.kg.embedded.oxigraph_terms import has_named_graphs
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

    quads = tmp_path / "graphs.nq"
    quads.write_text(
        "<http://x/a> <http://x/p> <http://x/b> <http://x/g1> .\n<http://x/b> <http://x/p> <http://x/c> .\n",
        encoding="utf-8",
    )
    plain = tmp_path / "plain.nt"
    plain.write_text("<http://x/a> <http://x/p> <http://x/b> .\n", encoding="utf-8")
    query = "SELECT ?s WHERE { ?s <http://x/p> ?o } ORDER BY ?s"
    for path, expected in ((quads, ["http://x/a", "http://x/b"]), (plain, ["http://x/a"])):
        store = EmbeddedStore.from_files([path])
        assert has_named_graphs(ox.Store.read_only(str(store.store_dir))) is (path == quads)
        with KnowledgeGraph(store) as graph:
            assert [row["s"].value for row in graph.query(query).rows] == expected  # worker path
            assert [row["s"].value for row in graph.run(from_template(query)).rows] == expected  # in-process
