"""SPINACH-style raw neighbourhood JSON: labels with ids, sorted by property id, singles collapsed."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
from bench.grounding_eval.lookup_tokens import wikidata_id
from bench.grounding_eval.spinach_format import Edge, outgoing_edges, spinach_entry

from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.embedded.store import EmbeddedStore

EX = "http://example.org/"


def _short(value: str) -> str:
    return value.replace(EX, "ex:")


def test_single_values_collapse_and_several_stay_a_list_sorted_by_property_id() -> None:
    edges = [
        Edge(EX + "zeta", Term("literal", "last"), "zeta label"),
        Edge(EX + "alpha", Term("uri", EX + "b"), "has", "Bee"),
        Edge(EX + "alpha", Term("uri", EX + "c"), "has", None),
        Edge(EX + "alpha", Term("uri", EX + "b"), "has", "Bee"),
    ]
    text = spinach_entry(edges, _short)
    assert json.loads(text) == {"has (ex:alpha)": ["Bee (ex:b)", "ex:c"], "zeta label (ex:zeta)": "last"}
    assert text.index("ex:alpha") < text.index("ex:zeta")
    assert text.startswith('{\n  "has (ex:alpha)": [\n    "Bee (ex:b)"')


def test_wikidata_properties_sort_by_the_number_of_their_id() -> None:
    wdt = "http://www.wikidata.org/prop/direct/"
    edges = [Edge(wdt + pid, Term("literal", pid)) for pid in ("P106", "P17", "P1412", "P31")]
    text = spinach_entry(edges, lambda iri: iri.replace(wdt, "wdt:"))
    # SPINACH puts small property ids first: P17 before P106, which a plain string sort would invert.
    assert list(json.loads(text)) == ["wdt:P17", "wdt:P31", "wdt:P106", "wdt:P1412"]


def test_non_ascii_text_is_kept_as_is() -> None:
    text = spinach_entry([Edge(EX + "name", Term("literal", "Friedrichstraße"))], _short)
    assert "Friedrichstraße" in text
    assert json.loads(text) == {"ex:name": "Friedrichstraße"}


def test_no_edges_is_an_empty_object() -> None:
    assert spinach_entry([]) == "{}"


class _Runner:
    def __init__(self, store: EmbeddedStore) -> None:
        self.run = store.execute


def test_outgoing_edges_carry_value_labels_and_property_labels(tmp_path: Path) -> None:
    store = ox.Store()
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    e, d = ox.NamedNode(EX + "e"), ox.NamedNode(EX + "d")
    store.add(ox.Quad(e, ox.NamedNode(EX + "memberOf"), d))
    store.add(ox.Quad(d, label, ox.Literal("Engineering")))
    store.add(ox.Quad(e, ox.NamedNode(EX + "phone"), ox.Literal("123")))
    store.add(ox.Quad(d, ox.NamedNode(EX + "phone"), ox.Literal("999")))  # not outgoing from e
    path = tmp_path / "g.nt"
    path.write_text("".join(f"{q.subject} {q.predicate} {q.object} .\n" for q in store))
    with EmbeddedStore.from_files([path]) as backend:
        edges = outgoing_edges(_Runner(backend), EX + "e", property_labels={EX + "memberOf": "member of"}.get)
    rendered = json.loads(spinach_entry(edges, _short))
    assert rendered == {"member of (ex:memberOf)": "Engineering (ex:d)", "ex:phone": "123"}


def test_wikidata_entries_use_bare_ids_and_the_label_service_names_an_unlabelled_item_by_its_id() -> None:
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    edges = [
        Edge(wdt + "P31", Term("uri", wd + "Q618779"), "instance of", "award"),
        Edge(wdt + "P2354", Term("uri", wd + "Q60798792"), "has list", None),
    ]
    text = spinach_entry(edges, wikidata_id, label_service=True)
    # The observation SPINACH recorded for Q51955205 (QALD-10 trace), character for character.
    assert text == '{\n  "instance of (P31)": "award (Q618779)",\n  "has list (P2354)": "Q60798792 (Q60798792)"\n}'
    assert json.loads(spinach_entry(edges[1:], wikidata_id)) == {"has list (P2354)": "Q60798792"}
    assert wikidata_id(EX + "x") == EX + "x"
