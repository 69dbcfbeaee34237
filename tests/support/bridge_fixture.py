"""A two-source fixture for bridging, cut from one graph along a class.

The *right* source holds every triple about the instances of one class (CK25's
``pv:Supplier``), their IRIs moved to another namespace; the *left* source holds the rest
of the graph, where those instances keep their original IRIs, their type and their
identifier literal (``pv:id``) but nothing else. The two sources then share no IRI of
that class, only the identifier values: the true join is ``left C idprop = right C
idprop``, and a question that crossed the class in the single graph needs two queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from saga_kgqa.kg.embedded.store import sniff_rdf_format
from saga_kgqa.schema.vocab import RDF_TYPE


@dataclass(frozen=True, slots=True)
class BridgeFixture:
    """The two files and what joins them.

    Attributes:
        left: N-Triples of the left source.
        right: N-Triples of the right source.
        split_class: The class whose instances moved to the right.
        id_property: The identifier property kept on both sides.
        namespace: The right side's namespace for the moved instances.
        moved: How many instances moved.
    """

    left: Path
    right: Path
    split_class: str
    id_property: str
    namespace: str
    moved: int

    def moved_iri(self, original: str) -> str:
        """The right-side IRI of an instance that moved."""
        return self.namespace + original.rsplit("/", 1)[-1]


def split_graph(
    source: Path, out_dir: Path, *, split_class: str, id_property: str, namespace: str = "http://bridge.example.org/"
) -> BridgeFixture:
    """Write the left and right files of the fixture into ``out_dir``."""
    store = ox.Store()
    store.bulk_load(path=str(source), format=sniff_rdf_format(source))
    rdf_type, cls = ox.NamedNode(RDF_TYPE), ox.NamedNode(split_class)
    moved = {quad.subject for quad in store.quads_for_pattern(None, rdf_type, cls)}
    prop = ox.NamedNode(id_property)

    def renamed(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> ox.NamedNode | ox.BlankNode | ox.Literal:
        if isinstance(term, ox.NamedNode) and term in moved:
            return ox.NamedNode(namespace + term.value.rsplit("/", 1)[-1])
        return term  # type: ignore[return-value]

    out_dir.mkdir(parents=True, exist_ok=True)
    left, right = out_dir / "left.nt", out_dir / "right.nt"
    left_triples, right_triples = [], []
    for quad in store.quads_for_pattern(None, None, None):
        subject, predicate, obj = quad.subject, quad.predicate, quad.object
        if subject in moved:
            right_triples.append(ox.Triple(renamed(subject), predicate, renamed(obj)))  # type: ignore[arg-type]
            if predicate in (rdf_type, prop):
                left_triples.append(ox.Triple(subject, predicate, obj))
        else:
            left_triples.append(ox.Triple(subject, predicate, obj))
    ox.serialize(left_triples, str(left), ox.RdfFormat.N_TRIPLES)
    ox.serialize(right_triples, str(right), ox.RdfFormat.N_TRIPLES)
    return BridgeFixture(left, right, split_class, id_property, namespace, len(moved))
