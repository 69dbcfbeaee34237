"""The schema index and Θ extraction on the real graphs in the shared data directory."""

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib

from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.guard.sparql_algebra import iter_triple_patterns, parse_algebra
from saga_kgqa.kg.guard.sparql_terms import unescape_local_name
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.state import extract_type_patterns

pytestmark = pytest.mark.shared_data

PV = "http://ld.company.org/prod-vocab/"
ONTOP = "http://valuenet/ontop/"
SPIDER_PREFIXES = {"": ONTOP, "xsd": "http://www.w3.org/2001/XMLSchema#"}
# Seconds allowed for one index build; the measured builds take well under one second.
BUILD_BUDGET_S = 10.0


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[EmbeddedStore]:
    store = EmbeddedStore.from_files([data_dir / "text2sparql_ck25" / "prod-inst.ttl"])
    yield store
    store.close()


@pytest.fixture(scope="module")
def ck25_index(ck25: EmbeddedStore) -> SchemaIndex:
    started = time.perf_counter()
    index = build_schema_index(ck25, induce=True)
    assert time.perf_counter() - started < BUILD_BUDGET_S
    return index


def _types_of(store: EmbeddedStore, entity: str) -> set[str]:
    result = store.execute(from_template(f"SELECT ?t WHERE {{ <{entity}> a ?t }} LIMIT 50"))
    return {row["t"].value for row in result.rows}


def _first_instance(store: EmbeddedStore, cls: str) -> str:
    result = store.execute(from_template(f"SELECT ?x WHERE {{ ?x a <{cls}> }} ORDER BY ?x LIMIT 1"))
    return result.rows[0]["x"].value


def _owl_domains(path: Path, fmt: str) -> dict[str, set[str]]:
    """Oracle: rdfs:domain read with rdflib straight from the ontology file."""
    graph = rdflib.Graph().parse(path, format=fmt)
    domains: dict[str, set[str]] = {}
    for prop, cls in graph.subject_objects(rdflib.RDFS.domain):
        if isinstance(cls, rdflib.URIRef):
            domains.setdefault(str(prop), set()).add(str(cls))
    return domains


def test_ck25_formal_domains_match_the_vocabulary(ck25_index: SchemaIndex, data_dir: Path) -> None:
    expected = _owl_domains(data_dir / "text2sparql_ck25" / "prod-vocab.ttl", "turtle")
    assert len(expected) == 28
    for prop, domain in expected.items():
        entry = ck25_index.properties[prop]
        assert (entry.domain, entry.domain_source) == (domain, "formal"), prop
    manager = ck25_index.properties[PV + "hasManager"]
    assert manager.domain == {PV + "Employee"} and manager.range == {PV + "Manager"}
    assert manager.label == "has manager"


def test_ck25_manager_is_compatible_through_the_subclass_axiom(ck25_index: SchemaIndex, ck25: EmbeddedStore) -> None:
    manager = _first_instance(ck25, PV + "Manager")
    types = _types_of(ck25, manager)
    assert PV + "Employee" not in types  # the data types managers only as Manager
    assert ck25_index.compatibility(types, PV + "hasManager").decision == "keep"
    assert ck25_index.compatibility(types, PV + "hasManager", mode="exact").decision == "drop"
    hardware = _types_of(ck25, _first_instance(ck25, PV + "Hardware"))
    assert ck25_index.compatibility(hardware, PV + "hasManager").decision == "drop"
    assert ck25_index.compatibility(hardware, PV + "height_mm").decision == "keep"


def test_ck25_induced_domain_covers_every_class_that_uses_the_property(
    ck25_index: SchemaIndex, ck25: EmbeddedStore
) -> None:
    for prop in (PV + "name", PV + "id"):
        rows = ck25.execute(from_template(f"SELECT DISTINCT ?t WHERE {{ ?s <{prop}> ?o . ?s a ?t }} LIMIT 100")).rows
        used_by = {row["t"].value for row in rows}
        entry = ck25_index.properties[prop]
        assert entry.domain_source == "induced"
        assert entry.domain == used_by, prop
        for cls in used_by:
            instance_types = _types_of(ck25, _first_instance(ck25, cls))
            assert ck25_index.compatibility(instance_types, prop).decision == "keep"


def test_ck25_index_round_trips(ck25_index: SchemaIndex, tmp_path: Path) -> None:
    path = tmp_path / "ck25.schema.json"
    ck25_index.save(path)
    assert SchemaIndex.load(path) == ck25_index


@pytest.fixture(scope="module")
def world_files(data_dir: Path) -> tuple[Path, Path]:
    root = data_dir / "spider4sparql"
    return root / "kg" / "world_1_triples.ttl", root / "ontology" / "mpboot_spider_world_1.owl"


def test_world_1_formal_index_builds_in_seconds(world_files: tuple[Path, Path]) -> None:
    store = EmbeddedStore.from_files(list(world_files))
    try:
        started = time.perf_counter()
        index = build_schema_index(store, induce=True)
        elapsed = time.perf_counter() - started
    finally:
        store.close()
    assert elapsed < BUILD_BUDGET_S
    expected = _owl_domains(world_files[1], "xml")
    assert {p: e.domain for p, e in index.properties.items() if e.domain_source == "formal"} == expected


def test_world_1_induction_without_the_ontology_recovers_its_domains(world_files: tuple[Path, Path]) -> None:
    store = EmbeddedStore.from_files([world_files[0]])
    try:
        index = build_schema_index(store, induce=True)
    finally:
        store.close()
    graph = rdflib.Graph().parse(world_files[1], format="xml")
    for prop, domain in _owl_domains(world_files[1], "xml").items():
        entry = index.properties[prop]
        assert (entry.domain, entry.domain_source) == (domain, "induced"), prop
        declared_range = {str(r) for r in graph.objects(rdflib.URIRef(prop), rdflib.RDFS.range)}
        if (rdflib.URIRef(prop), rdflib.RDF.type, rdflib.OWL.ObjectProperty) in graph:
            assert entry.range == declared_range, prop


def _spider_sample(data_dir: Path, per_graph: int = 10) -> Iterator[tuple[Path, list[str]]]:
    """Up to ``per_graph`` dev queries for each Spider graph present (absent graphs are skipped)."""
    root = data_dir / "spider4sparql"
    graphs = {p.name.removesuffix(".ttl").removesuffix("_triples"): p for p in (root / "kg").glob("*.ttl")}
    queries: dict[str, list[str]] = {}
    for item in json.loads((root / "dev.json").read_text()):
        name = item["kg_name"].lower()
        if name in graphs and len(queries.setdefault(name, [])) < per_graph:
            queries[name].append(item["query"])
    for name, texts in sorted(queries.items()):
        yield graphs[name], texts


def test_spider_queries_give_classes_and_properties_that_exist(data_dir: Path) -> None:
    """Every class and property IRI read from real queries is one the graph or its ontology knows.

    The ontology is included because some data disagrees with its own queries (network_1's
    data says ``high_schooler`` where queries and ontology say ``highschooler``).
    """
    checked = typed = 0
    for graph_path, queries in _spider_sample(data_dir):
        db = graph_path.name.removesuffix(".ttl").removesuffix("_triples")
        ontology = data_dir / "spider4sparql" / "ontology" / f"mpboot_spider_{db}.owl"
        store = EmbeddedStore.from_files([graph_path, ontology])
        try:
            classes_query = "SELECT DISTINCT ?c { { ?s a ?c } UNION { ?c a <http://www.w3.org/2002/07/owl#Class> } }"
            classes = {r["c"].value for r in store.execute(from_template(classes_query)).rows}
            predicates = {r["p"].value for r in store.execute(from_template("SELECT DISTINCT ?p { ?s ?p ?o }")).rows}
            predicates |= {r["p"].value for r in store.execute(from_template("SELECT ?p { ?p a ?k }")).rows}
        finally:
            store.close()
        for query in queries:
            state = extract_type_patterns(query, prefixes=SPIDER_PREFIXES)
            typed += bool(state.tracked())  # not all: a subquery's table variables stay local to it
            for key in state.tracked():
                assert state.types_of(key) <= classes, query
            for _s, predicate, _o in iter_triple_patterns(parse_algebra(query, SPIDER_PREFIXES)):
                if isinstance(predicate, rdflib.URIRef):
                    iri = unescape_local_name(str(predicate))
                    assert "\\" not in iri
                    assert iri in predicates, (iri, query)
            checked += 1
    assert checked >= 100
    assert typed >= 0.9 * checked
