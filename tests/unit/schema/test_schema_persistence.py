import itertools
import json
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema import (
    FORMAT_VERSION,
    ClassInfo,
    PropertySchema,
    SchemaIndex,
    SchemaIndexVersionError,
    SideEvidence,
    TypeCount,
)
from saga_kgqa.schema.model import ClassUsage

EX = "http://example.org/"


def _index(formal_domains: int = 0) -> SchemaIndex:
    properties = {
        EX + "worksFor": PropertySchema(
            iri=EX + "worksFor",
            label="works for",
            domain=frozenset({EX + "Person", EX + "Robot"}),
            domain_source="induced",
            domain_evidence=SideEvidence(
                sampled=44,
                untyped=2,
                counts=(TypeCount(type_iri=EX + "Person", count=40),),
                class_usage=(ClassUsage(type_iri=EX + "Robot", instances_sampled=2, instances_using=2),),
            ),
        )
    }
    for i in range(formal_domains):
        iri = f"{EX}p{i:03d}"
        properties[iri] = PropertySchema(
            iri=iri,
            domain=frozenset({EX + "A"}),
            domain_source="formal",
            range=frozenset({EX + "B"}),
            range_source="formal",
        )
    classes = {
        EX + "Person": ClassInfo(iri=EX + "Person", parents=frozenset({EX + "Agent", EX + "Animal"})),
        EX + "Agent": ClassInfo(iri=EX + "Agent"),
    }
    return SchemaIndex(endpoint_id="test", properties=properties, classes=classes, notes=("a note",))


def test_round_trip_is_lossless(tmp_path: Path) -> None:
    index = _index(formal_domains=3)
    path = tmp_path / "sub" / "schema.json"
    index.save(path)
    index.hierarchy  # noqa: B018 - fill the cache: equality must ignore it
    loaded = SchemaIndex.load(path)
    assert loaded == index
    assert loaded.hierarchy.ancestors(EX + "Person") == {EX + "Agent", EX + "Animal"}
    assert json.loads(path.read_text())["format_version"] == FORMAT_VERSION


def test_saved_file_is_deterministic_and_sets_are_sorted(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    _index(formal_domains=5).save(first)
    _index(formal_domains=5).save(second)
    assert first.read_bytes() == second.read_bytes()
    data = json.loads(first.read_text())
    assert data["classes"][EX + "Person"]["parents"] == [EX + "Agent", EX + "Animal"]
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind


@pytest.mark.parametrize("version", [FORMAT_VERSION + 1, 0, "1", None, True])
def test_other_format_version_is_a_typed_error(tmp_path: Path, version: object) -> None:
    path = tmp_path / "schema.json"
    data = json.loads(_index().model_dump_json())
    if version is None:
        del data["format_version"]
    else:
        data["format_version"] = version
    path.write_text(json.dumps(data))
    with pytest.raises(SchemaIndexVersionError) as caught:
        SchemaIndex.load(path)
    assert caught.value.expected == FORMAT_VERSION
    assert caught.value.found == version
    assert "rebuild" in caught.value.message


@pytest.mark.parametrize(
    "content",
    ["not json", "[1, 2]", json.dumps({"format_version": FORMAT_VERSION, "properties": {"x": {"label": 3}}})],
)
def test_garbage_is_a_configuration_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "schema.json"
    path.write_text(content)
    with pytest.raises(ConfigurationError):
        SchemaIndex.load(path)


def test_missing_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not found"):
        SchemaIndex.load(tmp_path / "absent.json")


def test_coverage_mask_is_deterministic_per_seed() -> None:
    index = _index(formal_domains=40)
    first = index.with_coverage(0.5, seed=7)
    again = index.with_coverage(0.5, seed=7)
    other = index.with_coverage(0.5, seed=8)

    def kept(masked: SchemaIndex) -> set[str]:
        return {iri for iri, p in masked.properties.items() if p.domain_source == "formal"}

    assert kept(first) == kept(again)
    assert len(kept(first)) == 20
    assert kept(first) != kept(other)
    assert first.coverage is not None and (first.coverage.kept, first.coverage.total) == (20, 40)


def test_coverage_masks_are_nested_for_one_seed() -> None:
    index = _index(formal_domains=40)
    sets = [
        {iri for iri, p in index.with_coverage(f, seed=3).properties.items() if p.domain_source == "formal"}
        for f in (0.0, 0.25, 0.5, 0.75, 1.0)
    ]
    assert [len(s) for s in sets] == [0, 10, 20, 30, 40]
    assert all(a <= b for a, b in itertools.pairwise(sets))


def test_coverage_only_touches_formal_domains() -> None:
    index = _index(formal_domains=10)
    masked = index.with_coverage(0.0, seed=1)
    assert masked.properties[EX + "worksFor"] == index.properties[EX + "worksFor"]  # induced: untouched
    for iri in (f"{EX}p{i:03d}" for i in range(10)):
        entry = masked.properties[iri]
        assert entry.domain == frozenset() and entry.domain_source == "none"
        assert entry.range == {EX + "B"} and entry.range_source == "formal"
        assert masked.compatibility([EX + "Z"], iri).decision == "unknown"
        assert index.compatibility([EX + "Z"], iri).decision == "drop"
    assert index.properties[f"{EX}p000"].domain_source == "formal"  # the original is unchanged


@pytest.mark.parametrize("fraction", [-0.1, 1.5])
def test_coverage_fraction_out_of_range(fraction: float) -> None:
    with pytest.raises(ConfigurationError):
        _index().with_coverage(fraction, seed=0)


def _curated_only(count: int) -> SchemaIndex:
    properties = {
        f"{EX}c{i:03d}": PropertySchema(iri=f"{EX}c{i:03d}", domain=frozenset({EX + "A"}), domain_source="curated")
        for i in range(count)
    }
    return SchemaIndex(properties=properties)


def test_coverage_masks_curated_domains_where_no_formal_ones_exist() -> None:
    # The offline Wikidata index has curated domains only: the stand-in for P2302 constraints.
    index = _curated_only(8)
    masked = index.with_coverage(0.25, seed=2)
    assert masked.coverage is not None
    assert (masked.coverage.kept, masked.coverage.total, masked.coverage.by_source) == (2, 8, {"curated": 8})
    assert sum(p.domain_source == "curated" for p in masked.properties.values()) == 2
    assert masked.coverage.describe() == "2 of 8 declared domains kept (curated 8)"


def test_coverage_refuses_an_index_with_nothing_to_mask() -> None:
    induced_only = _index(formal_domains=0)
    with pytest.raises(ConfigurationError, match=r"nothing to mask.*induced 1"):
        induced_only.with_coverage(0.5, seed=0)
    assert induced_only.with_coverage(1.0, seed=0).properties == induced_only.properties
