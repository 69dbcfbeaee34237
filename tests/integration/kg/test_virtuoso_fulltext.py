"""Entity resolution on a real Virtuoso uses its own full-text index (``bif:contains``), else the tantivy index.

A Virtuoso of this module's own holds the lab graph in ``LAB_GRAPH`` under a free-text rule
(``DB.DBA.RDF_OBJ_FT_RULE_ADD``, then ``VT_INC_INDEX_DB_DBA_RDF_OBJ``); the session's Virtuoso
(tests/conftest.py ``virtuoso``), which has no rule, holds the shipped example graph in
``PLAIN_GRAPH``, so its names are in no text index and resolution must fall back.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from saga_kgqa.app.sources import open_source_toolbox
from saga_kgqa.config.catalog import Catalog
from saga_kgqa.config.settings import example_graph_path
from saga_kgqa.kg.remote.endpoint_gate import forget_gate
from saga_kgqa.sources.grounding import execute_on_source, resolve_entity
from saga_kgqa.sources.session import SourceSet
from tests.conftest import TEST_DATA
from tests.support.virtuoso_server import VIRTUOSO_TEST_MAX_EXEC_S, VirtuosoServer, virtuoso_server

LAB = TEST_DATA / "autoschema" / "lab.trig"
L = "http://example.org/lab/"
LAB_GRAPH = "http://saga.test/lab-text"
PLAIN_GRAPH = "http://saga.test/space-plain"


@pytest.fixture(scope="module")
def indexed(virtuoso: VirtuosoServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso of its own with a text index over the lab graph (a free-text rule is server-wide state)."""
    store = ox.Store()
    store.bulk_load(path=str(LAB), format=ox.RdfFormat.TRIG)
    workdir = tmp_path_factory.mktemp("virtuoso-text")
    flat = workdir / "lab.nt"
    ox.serialize([ox.Triple(q.subject, q.predicate, q.object) for q in store], str(flat), ox.RdfFormat.N_TRIPLES)
    with virtuoso_server(workdir, max_exec_s=VIRTUOSO_TEST_MAX_EXEC_S) as server:
        server.isql(f"DB.DBA.RDF_OBJ_FT_RULE_ADD ('{LAB_GRAPH}', null, 'saga_lab_text')")
        server.load(flat, LAB_GRAPH)
        server.isql("DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ ()")
        yield server


@pytest.fixture(scope="module")
def plain(virtuoso: VirtuosoServer) -> VirtuosoServer:
    """The session's Virtuoso, which has no free-text rule: its literals are in no text index."""
    virtuoso.load(example_graph_path(), PLAIN_GRAPH)
    return virtuoso


@pytest.fixture()
def sources(indexed: VirtuosoServer, plain: VirtuosoServer, tmp_path: Path) -> Iterator[SourceSet]:
    forget_gate(indexed.url)
    forget_gate(plain.url)
    catalog = Catalog.from_mapping(
        {
            "sources": {
                "lab": {"endpoint": indexed.url, "profile": "virtuoso", "default_graphs": [LAB_GRAPH]},
                "space": {"endpoint": plain.url, "profile": "virtuoso", "default_graphs": [PLAIN_GRAPH]},
            }
        },
        base=tmp_path,
    )
    with SourceSet(catalog, survey_dir=tmp_path / "cache", toolboxes=open_source_toolbox) as opened:
        yield opened
    forget_gate(indexed.url)
    forget_gate(plain.url)


def test_resolution_on_an_indexed_virtuoso_uses_bif_contains_and_builds_no_name_index(sources: SourceSet) -> None:
    found = resolve_entity(sources, "lab", "Gene Centre")
    assert found.engine == "virtuoso", found.notes
    assert found.candidates[0].iri == L + "inst2" and found.candidates[0].matched_by == "exact"
    assert found.candidates[0].classes == ("<http://example.org/lab/Institute>",)
    accession = resolve_entity(sources, "lab", "UniProt:P12345")
    assert accession.engine == "virtuoso" and accession.candidates[0].iri == L + "p1"
    prefix = resolve_entity(sources, "lab", "Kinas")  # the engine's wildcard: a name being typed
    assert {c.iri for c in prefix.candidates} == {L + "p1", L + "p2"}
    assert all(c.matched_by == "prefix" for c in prefix.candidates)
    assert resolve_entity(sources, "lab", "Zebrafish").candidates == ()
    # Operators in the caller's text are words, never the engine's expression syntax.
    hostile = resolve_entity(sources, "lab", 'Gene" OR "a*')
    assert {c.iri for c in hostile.candidates} <= {L + "inst2"}
    lab = sources.get("lab")
    assert lab.native_text is True and lab.names is None and not lab.fulltext_path().exists()
    # The survey's class ranking (grouped first, filtered after, scoped inside the grouping) runs on Virtuoso.
    survey = lab.survey()
    assert L + "Institute" in {c.iri for c in survey.classes} and survey.class_count == 4, survey.failures
    assert not [f for f in survey.failures if "class" in f.what], survey.failures


def test_a_virtuoso_without_a_text_index_falls_back_to_the_tantivy_index(sources: SourceSet) -> None:
    found = resolve_entity(sources, "space", "Jim Lovell")
    assert found.engine == "tantivy" and found.index_size > 0
    assert any("no full-text index" in note for note in found.notes), found.notes
    assert found.candidates[0].iri == "http://example.org/space/JimLovell"
    assert sources.get("space").native_text is False


def test_the_guard_still_rejects_bif_in_a_written_query(sources: SourceSet) -> None:
    written = f"SELECT ?s WHERE {{ ?s <{L}name> ?o . ?o bif:contains '\"gene\"' }}"
    outcome = execute_on_source(sources, "lab", written)
    assert outcome.status == "rejected", outcome.text
