"""The pre-execution type check never blocks a gold query of CK25 or Spider4SPARQL.

Every reference query is type-checked (guard, constants' types, type patterns, domains
and ranges from the OWL files loaded beside the data) without being run. With the
default settings nothing may be blocked. The schema-only check (``verify_blocks=False``,
the paper's behaviour) blocks a few gold queries; each of those is asserted to come from
an ontology that disagrees with its own data, and to be overruled by the graph check.

Measured (subclass mode): CK25 50/50 queries pass by default, 1 is blocked schema-only;
Spider4SPARQL dev 705 queries with a graph here (329 skipped: graph absent) pass by
default, 8 are blocked schema-only (three class names that differ between data and OWL).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex, build_schema_index
from saga_kgqa.tools.execute.tool import ExecuteSettings, Preflight, preflight
from saga_kgqa.tools.execute.type_check import BlockedPattern

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

PV = "http://ld.company.org/prod-vocab/"
ONTOP = "http://valuenet/ontop/"
SPIDER_PREFIX = f"PREFIX : <{ONTOP}>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
SCHEMA_ONLY = ExecuteSettings(verify_blocks=False)


def _check(graph: KnowledgeGraph, schema: SchemaIndex, query: str, **kwargs: object) -> Preflight:
    checks = preflight(query, graph=graph, schema=schema, **kwargs)  # type: ignore[arg-type]
    assert checks.checked is not None, (checks.stop.text if checks.stop else "", query)
    return checks


def _has_instances(graph: KnowledgeGraph, cls: str) -> bool:
    result = graph.run(from_template(f"ASK {{ ?x a <{cls}> }}", "ASK"))
    return bool(result.boolean)


@pytest.fixture(scope="module")
def ck25(data_dir: Path) -> Iterator[tuple[KnowledgeGraph, SchemaIndex, list[str]]]:
    root = data_dir / "text2sparql_ck25"
    questions = yaml.safe_load((root / "questions.yml").read_text(encoding="utf-8"))["questions"]
    store = EmbeddedStore.from_files([root / "prod-inst.ttl"])
    with KnowledgeGraph(store) as graph:
        yield graph, build_schema_index(store), [q["query"]["sparql"] for q in questions]


def test_ck25_reference_queries_are_never_blocked(ck25: tuple[KnowledgeGraph, SchemaIndex, list[str]]) -> None:
    graph, schema, queries = ck25
    assert len(queries) == 50
    checked = overruled = 0
    schema_only_blocks: list[BlockedPattern] = []
    for query in queries:
        for mode in ("subclass", "exact"):
            checks = _check(graph, schema, query, mode=mode)
            assert checks.stop is None, checks.stop.text if checks.stop else ""
            checked += checks.report.checked
            overruled += len(checks.report.overruled)
        schema_only = _check(graph, schema, query, settings=SCHEMA_ONLY)
        if schema_only.stop is not None:
            schema_only_blocks.extend(schema_only.report.blocked)
            default = _check(graph, schema, query)
            assert {b.pattern for b in schema_only.report.blocked} <= set(default.report.overruled)
    assert checked > 100  # the check had types and constraints to work with, it was not vacuous
    # The one schema-only block: suppliers carry pv:addressCountry (domain pv:Agent), but the
    # ontology never says pv:Supplier ⊑ pv:Agent. The gold query is right; the ontology is incomplete.
    assert {(b.property_iri, b.term_types) for b in schema_only_blocks} == {(PV + "addressCountry", (PV + "Supplier",))}
    assert PV + "Agent" not in schema.hierarchy.ancestors(PV + "Supplier")
    assert overruled >= 1


def _spider_queries(data_dir: Path) -> tuple[dict[str, list[str]], int, dict[str, Path]]:
    root = data_dir / "spider4sparql"
    graphs = {path.name.removesuffix(".ttl").removesuffix("_triples"): path for path in (root / "kg").glob("*.ttl")}
    by_graph: dict[str, list[str]] = {}
    skipped = 0
    for item in json.loads((root / "dev.json").read_text(encoding="utf-8")):
        name = item["kg_name"].lower()
        if name in graphs:
            by_graph.setdefault(name, []).append(SPIDER_PREFIX + item["query"])
        else:
            skipped += 1
    return by_graph, skipped, graphs


def test_spider_dev_queries_are_never_blocked(data_dir: Path) -> None:
    by_graph, skipped, graphs = _spider_queries(data_dir)
    total = sum(len(queries) for queries in by_graph.values())
    assert total + skipped == len(json.loads((data_dir / "spider4sparql" / "dev.json").read_text(encoding="utf-8")))
    assert total >= 700 and len(by_graph) == len(graphs)
    checked = 0
    mismatches: set[tuple[str, str, str]] = set()
    for name, queries in sorted(by_graph.items()):
        ontology = data_dir / "spider4sparql" / "ontology" / f"mpboot_spider_{name}.owl"
        store = EmbeddedStore.from_files([graphs[name], ontology])
        with KnowledgeGraph(store) as graph:
            schema = build_schema_index(store)
            for query in queries:
                # Confirming a conflict against the graph can only lift a block, never add one,
                # so the default check needs running only where the schema-only one blocks.
                schema_only = _check(graph, schema, query, settings=SCHEMA_ONLY)
                checked += schema_only.report.checked
                if schema_only.stop is None:
                    continue
                default = _check(graph, schema, query)
                assert default.stop is None, (default.stop.text if default.stop else "", query)
                for block in schema_only.report.blocked:
                    assert block.pattern in default.report.overruled, query
                    # The class the gold query (and the data) uses is not the one the ontology names.
                    (used,) = block.term_types
                    assert _has_instances(graph, used)
                    assert not any(_has_instances(graph, cls) for cls in block.constraint)
                    mismatches.add((name, used.removeprefix(ONTOP), block.constraint[0].removeprefix(ONTOP)))
    assert checked > 1000
    assert mismatches == {
        ("network_1", "high_schooler", "highschooler"),
        ("cre_doc_template_mgt", "reference_template_types", "ref_template_types"),
        ("real_estate_properties", "reference_feature_types", "ref_feature_types"),
    }
