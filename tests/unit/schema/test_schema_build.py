"""Builders on small Turtle graphs written for these tests (tests/data/schema)."""

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import rdflib

from saga_kgqa.errors import QueryTimeout
from saga_kgqa.kg.core.backend import ExecutionLimits
from saga_kgqa.kg.core.profiles import EndpointProfile
from saga_kgqa.kg.core.query import CheckedQuery
from saga_kgqa.kg.core.result import QueryResult
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.schema import SchemaIndex, SchemaVocabulary, build_schema_index
from saga_kgqa.schema.induction import InductionSettings, supported_types
from saga_kgqa.schema.model import ClassUsage, SideEvidence, TypeCount
from saga_kgqa.schema.vocab import OWL_THING, RDF_TYPE, XSD

DATA = Path(__file__).resolve().parents[2] / "data" / "schema"
EX = "http://example.org/"
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


class RecordingBackend:
    """Delegates to a real store, records every query and can fail chosen ones."""

    def __init__(self, inner: EmbeddedStore, fail_when: str | None = None) -> None:
        self.inner = inner
        self.queries: list[CheckedQuery] = []
        self.fail_when = fail_when

    @property
    def endpoint_id(self) -> str:
        return self.inner.endpoint_id

    @property
    def profile(self) -> EndpointProfile:
        return self.inner.profile

    def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
        self.queries.append(query)
        if self.fail_when is not None and self.fail_when in query.text:
            raise QueryTimeout("injected timeout")
        return self.inner.execute(query, limits)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(scope="module")
def ontology_store() -> Iterator[EmbeddedStore]:
    store = EmbeddedStore.from_files([DATA / "ontology.ttl"])
    yield store
    store.close()


@pytest.fixture(scope="module")
def no_schema_store() -> Iterator[EmbeddedStore]:
    store = EmbeddedStore.from_files([DATA / "no_schema.ttl"])
    yield store
    store.close()


@pytest.fixture(scope="module")
def ontology_index(ontology_store: EmbeddedStore) -> SchemaIndex:
    return build_schema_index(ontology_store, induce=False)


def test_formal_domain_and_range(ontology_index: SchemaIndex) -> None:
    entry = ontology_index.properties[EX + "hasManager"]
    assert entry.domain == {EX + "Employee"} and entry.domain_source == "formal"
    assert entry.range == {EX + "Manager"} and entry.range_source == "formal"
    assert entry.label == "has manager"
    assert entry.description == "The manager of the employee."


def test_union_of_list_becomes_a_domain_set(ontology_index: SchemaIndex) -> None:
    entry = ontology_index.properties[EX + "locatedIn"]
    assert entry.domain == {EX + "Organization", EX + "Product"}
    assert ontology_index.compatibility([EX + "Company"], EX + "locatedIn").decision == "keep"


def test_several_domain_statements_are_a_union(ontology_index: SchemaIndex) -> None:
    assert ontology_index.properties[EX + "owner"].domain == {EX + "Product", EX + "Place"}


def test_intersection_domain_is_left_unknown_with_a_note(ontology_index: SchemaIndex) -> None:
    entry = ontology_index.properties[EX + "audited"]
    assert entry.domain == frozenset() and entry.domain_source == "none"
    assert any("domain declarations are not IRIs or unions" in note for note in ontology_index.notes)


def test_declared_property_without_constraints_stays_in_the_index(ontology_index: SchemaIndex) -> None:
    entry = ontology_index.properties[EX + "note"]
    assert (entry.domain_source, entry.range_source) == ("none", "none")
    assert ontology_index.compatibility([EX + "Product"], EX + "note").decision == "unknown"


def test_datatype_and_universal_domain(ontology_index: SchemaIndex) -> None:
    assert ontology_index.properties[EX + "age"].datatype == XSD + "integer"
    assert ontology_index.properties[EX + "anything"].domain == {OWL_THING}


def test_class_hierarchy_and_labels(ontology_index: SchemaIndex) -> None:
    assert ontology_index.hierarchy.ancestors(EX + "Manager") == {EX + "Employee", EX + "Person", EX + "Agent"}
    assert ontology_index.classes[EX + "Agent"].label == "Agent"  # English preferred over German
    assert ontology_index.classes[EX + "Manager"].label == "Manager"  # skos:prefLabel
    assert EX + "Vehicle" in ontology_index.hierarchy.ancestors(EX + "Vehicle")  # cycle survives
    assert ontology_index.compatibility([EX + "Manager"], EX + "hasManager").decision == "keep"


def test_every_builder_query_is_a_bounded_template(ontology_store: EmbeddedStore) -> None:
    backend = RecordingBackend(ontology_store)
    build_schema_index(backend, induce=True)
    assert backend.queries
    for query in backend.queries:
        assert query.origin == "template"
        assert query.limit is not None and query.text.rstrip().endswith(f"LIMIT {query.limit}")


def _worksfor_subject_types() -> tuple[Counter[str], int]:
    """Oracle: subject types of ex:worksFor, counted with rdflib from the file itself."""
    graph = rdflib.Graph().parse(DATA / "no_schema.ttl")
    subjects = set(graph.subjects(rdflib.URIRef(EX + "worksFor"), None))
    counts: Counter[str] = Counter()
    for subject in subjects:
        for cls in graph.objects(subject, rdflib.RDF.type):
            counts[str(cls)] += 1
    return counts, len(subjects)


def test_induction_recovers_the_frequent_domain_with_counts(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=True, stratify=False, sample_size=500)
    entry = index.properties[EX + "worksFor"]
    expected, subjects = _worksfor_subject_types()
    assert entry.domain_source == "induced"
    assert EX + "Person" in entry.domain
    evidence = entry.domain_evidence
    assert evidence is not None
    assert evidence.sampled == subjects
    assert evidence.untyped == 2
    assert {c.type_iri: c.count for c in evidence.counts} == dict(expected)
    assert entry.range == {EX + "Company"} and entry.range_source == "induced"
    assert index.compatibility([EX + "Person"], EX + "worksFor").decision == "keep"
    assert index.compatibility([EX + "Company"], EX + "worksFor").decision == "drop"


def test_support_threshold_excludes_rare_types_from_the_property_sample(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=True, stratify=False, sample_size=500, support=0.1)
    domain = index.properties[EX + "worksFor"].domain
    assert EX + "Person" in domain and EX + "Robot" not in domain  # 2 of 42 typed subjects < 10%


def test_stratified_sample_adds_rare_classes_that_use_the_property(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=True, stratify=True, sample_size=500, support=0.1)
    entry = index.properties[EX + "worksFor"]
    assert EX + "Robot" in entry.domain
    assert entry.domain_evidence is not None
    usage = {u.type_iri: u for u in entry.domain_evidence.class_usage}
    assert usage[EX + "Robot"] == ClassUsage(type_iri=EX + "Robot", instances_sampled=2, instances_using=2)
    assert usage[EX + "Person"].instances_using == 40
    assert EX + "Company" not in entry.domain


def test_live_survey_records_its_source(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=True, evidence_source="surveyed")
    entry = index.properties[EX + "worksFor"]
    assert (entry.domain_source, entry.range_source) == ("surveyed", "surveyed")
    assert index.compatibility([EX + "Company"], EX + "worksFor").source == "surveyed"


def test_literal_objects_give_a_datatype(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=True)
    entry = index.properties[EX + "name"]
    assert entry.datatype == XSD + "string"
    assert entry.range == {XSD + "string"}
    assert entry.domain == {EX + "Person", EX + "Company", EX + "Employee"}


def test_without_induction_a_schemaless_graph_is_all_unknown(no_schema_store: EmbeddedStore) -> None:
    index = build_schema_index(no_schema_store, induce=False)
    assert index.properties  # properties are indexed even without any schema
    assert all(p.domain_source == "none" and p.range_source == "none" for p in index.properties.values())
    assert RDF_TYPE in index.properties


def test_timed_out_property_is_left_unknown_with_a_note(no_schema_store: EmbeddedStore) -> None:
    backend = RecordingBackend(no_schema_store, fail_when=f"<{EX}worksFor>")
    index = build_schema_index(backend, induce=True, stratify=False)
    entry = index.properties[EX + "worksFor"]
    assert entry.domain_source == "none"
    assert any("worksFor" in note and "timed out" in note for note in index.notes)
    assert index.properties[EX + "name"].domain_source == "induced"


def test_wikidata_vocabulary_reads_p31_and_p279() -> None:
    store = EmbeddedStore.from_files([DATA / "wikidata_style.ttl"])
    try:
        index = build_schema_index(store, vocabulary=SchemaVocabulary.wikidata(), induce=True)
    finally:
        store.close()
    assert index.type_predicates == (WDT + "P31",)
    citizenship = index.properties[WDT + "P27"]
    assert citizenship.domain == {WD + "Q5"}
    assert citizenship.range == {WD + "Q3624078", WD + "Q6256"}
    assert index.hierarchy.ancestors(WD + "Q3624078") == {WD + "Q6256", WD + "Q7275"}
    assert WDT + "P31" in index.properties and index.properties[WDT + "P31"].domain_source == "none"


def test_supported_types_needs_min_sample() -> None:
    evidence = SideEvidence(sampled=2, counts=(TypeCount(type_iri=EX + "A", count=2),))
    assert supported_types(evidence, InductionSettings(min_sample=3)) == frozenset()
    assert supported_types(evidence, InductionSettings(min_sample=2)) == {EX + "A"}


def test_supported_types_share_is_over_typed_values() -> None:
    evidence = SideEvidence(
        sampled=100,
        untyped=80,
        counts=(TypeCount(type_iri=EX + "A", count=19), TypeCount(type_iri=EX + "B", count=1)),
    )
    assert supported_types(evidence, InductionSettings(support=0.1)) == {EX + "A"}
    assert supported_types(evidence, InductionSettings(support=0.05)) == {EX + "A", EX + "B"}


def test_whole_graph_queries_run_in_the_worker_and_anchored_ones_in_process(ontology_store: EmbeddedStore) -> None:
    # issue 39: the predicates in use and the classes in use scan the whole graph; on an embedded store they
    # ran in the host, unstoppable by the deadline. Unbounded templates go to the killable worker.
    backend = RecordingBackend(ontology_store)
    build_schema_index(backend)  # type: ignore[arg-type]
    unbounded = [q.text for q in backend.queries if not q.bounded]
    assert any("SELECT DISTINCT ?p WHERE { ?s ?p ?o }" in text for text in unbounded)
    classes = [text for text in unbounded if "GROUP BY ?t" in text]
    assert len(classes) == 1
    # Filtered once per class, not once per type triple (pyoxigraph decodes each term a FILTER(isIRI) reads).
    assert "HAVING(isIRI(?t))" in classes[0] and "FILTER(isIRI" not in classes[0]
    assert len(unbounded) == 2  # the sampled, LIMITed reads keep the in-process path


def test_blank_node_types_are_not_classes_in_use(tmp_path: Path) -> None:
    # The classes-in-use read keeps IRIs only, now filtered after grouping (HAVING) rather than per triple.
    data = tmp_path / "blank_types.ttl"
    data.write_text(
        f"<{EX}a> a <{EX}Kind> ; <{EX}p> <{EX}b> . <{EX}c> a <{EX}Kind> ; <{EX}p> <{EX}b> . <{EX}b> a _:anon .\n",
        encoding="utf-8",
    )
    backend = RecordingBackend(EmbeddedStore.from_files([data]))
    try:
        index = build_schema_index(backend)  # type: ignore[arg-type]
    finally:
        backend.close()
    stratified = [q.text for q in backend.queries if "LIMIT" in q.text and f"<{EX}Kind>" in q.text]
    assert stratified  # the IRI class was sampled
    assert not any("_:" in q.text for q in backend.queries)  # the blank node never became a class to sample
    assert EX + "p" in index.properties


def test_a_whole_graph_read_past_its_deadline_leaves_the_declared_properties(ontology_store: EmbeddedStore) -> None:
    # issue 39: in the worker the predicates-in-use scan is stopped at its deadline; at 10M triples under load it
    # was, and `saga load` failed with the timeout. The index keeps the declared properties and says why.
    backend = RecordingBackend(ontology_store, fail_when="SELECT DISTINCT ?p WHERE { ?s ?p ?o }")
    index = build_schema_index(backend)  # type: ignore[arg-type]
    assert index.properties  # the declared ones
    assert any("used properties: timed out" in note for note in index.notes)


def test_whole_graph_reads_get_ten_times_the_deadline(ontology_store: EmbeddedStore) -> None:
    seen: list[float] = []

    class Limits(RecordingBackend):
        def execute(self, query: CheckedQuery, limits: ExecutionLimits | None = None) -> QueryResult:
            if not query.bounded and limits is not None:
                seen.append(limits.deadline_s)
            return super().execute(query, limits)

    build_schema_index(Limits(ontology_store), deadline_s=7.0)  # type: ignore[arg-type]
    assert seen and all(deadline == 70.0 for deadline in seen)
