"""Grounding on real Wikidata and Freebase data offline (issue 5, part 5), without an LLM.

* CoDEx-M held-out test triples with a typed head, over the offline Wikidata store
  (:mod:`saga_kgqa.dialects.wikidata_store`): retention (the lookup filter of the head
  keeps the triple's property), reduction (share of each looked-up head's properties
  hidden), detection (the triple's property swapped, seeded, for one whose domain excludes
  the head's types; blocked by the pre-execution check) and tokens of the compact lookup
  against SPINACH's raw JSON (:mod:`bench.grounding_eval.lookup_tokens`) for every head, summed over
  heads with at least 20 values for the headline ratio; optionally also of the paper's
  property-only entries (a toolkit reading no sample values).
* Gold SPARQL (Wikidata and Freebase): the share wrongly blocked by the pre-execution
  check, and the share with at least one checkable pattern.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.grounding_eval.gold_patterns import property_uses
from bench.grounding_eval.lookup_tokens import TokenComparison, compare
from bench.grounding_eval.probe import matches_nothing
from saga_kgqa.dialects.model import (
    WIKIDATA_CLAIM,
    WIKIDATA_DIRECT,
    WIKIDATA_ENTITY,
    WIKIDATA_QUALIFIER,
    WIKIDATA_STATEMENT,
)
from saga_kgqa.errors import QueryRejected
from saga_kgqa.kg.core.profiles import WIKIDATA_PREFIXES
from saga_kgqa.kg.guard.sparql_terms import iri
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.schema.wikidata_sources import read_entity_types, read_triples
from saga_kgqa.tools.execute.models import ExecuteSettings
from saga_kgqa.tools.execute.preflight import preflight
from saga_kgqa.tools.render import compact_iri
from saga_kgqa.tools.toolbox import ToolView

#: Offline Wikidata: the check trusts formal, induced (CoDEx) and surveyed domains, as by default; curated
#: ones (YAGO 4.5, text2kgbench) name a few top classes and, with no P279 offline, cannot admit their
#: subclasses ("U.S. state" under "administrative territorial entity"), so they filter lookups but do not
#: block. A type the index cannot place in its hierarchy never blocks. The offline store holds a sample of
#: Wikidata, so a pattern it cannot match proves nothing about the real graph: the vacuous-pattern block,
#: which needs the whole graph, is off.
CHECK_SETTINGS = ExecuteSettings(unplaced_types_block=False, check_vacuous=False)
#: Freebase: fb_roles domains are formal; the Virtuoso Freebase behind CWQ matches numbers written as plain
#: strings ("33" for presidency_number), so plain literals carry no datatype in range checks. There is no
#: Freebase graph offline (an empty store), so no vacuous-pattern block either.
FREEBASE_CHECK_SETTINGS = ExecuteSettings(plain_literals_typed=False, check_vacuous=False)


@dataclass(slots=True)
class CodexMeasurement:
    """Tallies over CoDEx-M test triples."""

    triples: int = 0
    retained: int = 0
    lost: list[str] = field(default_factory=list)
    properties_seen: int = 0
    properties_hidden: int = 0
    swaps: int = 0
    detected: int = 0
    missed: list[str] = field(default_factory=list)
    tokens: TokenComparison = field(default_factory=TokenComparison)


@dataclass(slots=True)
class GoldMeasurement:
    """Tallies over gold queries of one or more benchmarks."""

    queries: int = 0
    checkable: int = 0
    blocked: list[str] = field(default_factory=list)
    blocked_empty: list[str] = field(default_factory=list)
    rejected: int = 0

    @property
    def false_blocks_rate(self) -> float:
        """Share of gold queries the check blocked (save those that match nothing in the store)."""
        return len(self.blocked) / self.queries if self.queries else 0.0

    @property
    def checkable_share(self) -> float:
        """Share of gold queries with at least one pattern checked against a known type."""
        return self.checkable / self.queries if self.queries else 0.0


def codex_test_sample(data_dir: Path, *, size: int, seed: int) -> list[tuple[str, str, str]]:
    """A seeded sample of CoDEx-M test triples whose head has P31 types (IRIs)."""
    typed = read_entity_types(data_dir / "codex" / "entity2types.json.gz")
    triples = [
        (WIKIDATA_ENTITY + s, WIKIDATA_DIRECT + p, WIKIDATA_ENTITY + o)
        for s, p, o in read_triples([data_dir / "codex" / "triples" / "codex-m" / "test.txt.gz"])
        if typed.get(s)
    ]
    rng = random.Random(seed)
    return sorted(rng.sample(triples, min(size, len(triples))))


def measure_codex(
    kit: ToolView,
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    triples: Iterable[tuple[str, str, str]],
    seed: int,
    settings: ExecuteSettings = CHECK_SETTINGS,
    paper_kit: ToolView | None = None,
) -> CodexMeasurement:
    """Retention, reduction, detection and tokens over CoDEx-M test triples (see the module docstring).

    A swap replaces the property with one whose domain, from a source the check trusts
    to block (``settings.block_sources``), excludes the head's types. ``paper_kit``, when
    given, renders the same lookups without sample values for a second token count.
    """
    rng = random.Random(seed)
    tally = CodexMeasurement()
    looked: dict[str, frozenset[str]] = {}
    prefixes = kit.prefixes
    for head, prop, _tail in triples:
        if head not in looked:
            result = compare(tally.tokens, kit, graph, schema, head, paper_kit=paper_kit)
            looked[head] = frozenset(t.iri for t in result.checked_types)
            tally.properties_seen += len(result.kept) + len(result.hidden)
            tally.properties_hidden += len(result.hidden)
        types = looked[head]
        tally.triples += 1
        # The rule lookup applies (tools.hiding): the held-out triple is not in the store, so it is decided here.
        reads = kit.context.reads()
        decision = kit.context.hiding.decide(reads, types, [prop], mode=kit.context.mode, entity=head)[prop]
        hiding = kit.context.hiding
        ancestors = hiding.ancestors(reads, types)
        if not decision.hidden:
            tally.retained += 1
        else:
            tally.lost.append(f"{compact_iri(head, prefixes)} {compact_iri(prop, prefixes)} types {sorted(types)[:4]}")
        candidates = sorted(
            p
            for p, entry in schema.properties.items()
            if p != prop
            and entry.domain
            and entry.domain_source in settings.block_sources
            and hiding.verdict(types, ancestors, p).decision == "drop"
        )
        if not candidates:
            continue
        swapped = rng.choice(candidates)
        tally.swaps += 1
        query = f"SELECT ?o WHERE {{ <{head}> <{swapped}> ?o }}"
        if preflight(query, graph=graph, schema=schema, settings=settings).report.blocked:
            tally.detected += 1
        else:
            tally.missed.append(f"{compact_iri(head, prefixes)} {compact_iri(prop, prefixes)} -> {swapped}")
    return tally


@dataclass(slots=True)
class GoldRetention:
    """Gold (constant entity, property) pairs whose triple the store holds, and whether lookup kept them."""

    pairs: int = 0
    kept: int = 0
    lost: list[str] = field(default_factory=list)
    unparsed: int = 0

    @property
    def retention(self) -> float:
        """Share of the pairs whose property the entity's lookup kept."""
        return self.kept / self.pairs if self.pairs else 0.0


def measure_gold_retention(kit: ToolView, graph: KnowledgeGraph, queries: Iterable[tuple[str, str]]) -> GoldRetention:
    """Whether lookup keeps the gold properties of the constant entities of gold queries.

    A pair is a constant entity of a gold query and a property the query reads from it
    (``wdt:P``, or the ``p:P`` of a statement, as ``wdt:P``) whose triple the store holds.
    Isfahan (``wd:Q42053``) with population (``wdt:P1082``, QALD-10) is one such pair.
    """
    tally = GoldRetention()
    pairs: set[tuple[str, str]] = set()
    for _qid, sparql in queries:
        try:
            uses = property_uses(
                sparql, type_predicates=kit.context.vocabulary.type_predicates, prefixes=WIKIDATA_PREFIXES
            )
        except QueryRejected:
            tally.unparsed += 1
            continue
        for use in uses:
            if use.subject_is_variable or not use.subject.startswith(WIKIDATA_ENTITY):
                continue
            prop = use.property_iri
            if prop.startswith(WIKIDATA_CLAIM) and not prop.startswith(
                (WIKIDATA_DIRECT, WIKIDATA_STATEMENT, WIKIDATA_QUALIFIER)
            ):
                prop = WIKIDATA_DIRECT + prop.removeprefix(WIKIDATA_CLAIM)
            # Types and superclasses are shown as such, never as properties: no pair to keep.
            if prop.startswith(WIKIDATA_DIRECT) and prop not in kit.context.vocabulary.meta_predicates():
                pairs.add((use.subject, prop))
    reads = kit.context.reads()
    kept_by_entity: dict[str, frozenset[str]] = {}
    for entity, prop in sorted(pairs):
        if not reads.ask(f"{iri(entity)} {iri(prop)} ?o"):
            continue
        tally.pairs += 1
        if entity not in kept_by_entity:
            result = kit.lookup(f"<{entity}>")
            kept_by_entity[entity] = frozenset(k.info.property.iri for k in result.kept) | frozenset(
                ref.iri for ref in result.identifiers
            )
        if prop in kept_by_entity[entity]:
            tally.kept += 1
        else:
            tally.lost.append(f"{compact_iri(entity, kit.prefixes)} {compact_iri(prop, kit.prefixes)}")
    return tally


def measure_gold(
    graph: KnowledgeGraph,
    schema: SchemaIndex,
    queries: Iterable[tuple[str, str]],
    settings: ExecuteSettings = CHECK_SETTINGS,
    *,
    run_blocked: bool = True,
) -> GoldMeasurement:
    """Run the pre-execution check over gold queries; ``queries`` are ``(id, sparql)``.

    With ``run_blocked``, a blocked gold query is run on the store (bounded): one that
    matches nothing there (the store without P279 cannot follow a query's own
    ``wdt:P31/wdt:P279*``) is blocked rightly for that store and counted in
    ``blocked_empty``, not as a false block. Off where the store holds nothing to
    answer with (Freebase: an empty store).
    """
    tally = GoldMeasurement()
    for qid, sparql in queries:
        tally.queries += 1
        found = preflight(sparql, graph=graph, schema=schema, settings=settings)
        if found.checked is None:
            tally.rejected += 1
            continue
        if found.report.checked:
            tally.checkable += 1
        # Every block a user would see counts: the type check's and the vacuous patterns'.
        reasons = [b.pattern + ": " + b.reason for b in found.report.blocked]
        reasons += [v.pattern + ": " + v.reason for v in found.vacuous]
        if reasons:
            empty = run_blocked and matches_nothing(graph, found.checked.text)
            (tally.blocked_empty if empty else tally.blocked).append(f"{qid}: {'; '.join(reasons)}")
    return tally


# Upper-case only, in FILTER lines only: SPARQL keywords there are functions, never bare OR/AND.
_VIRTUOSO_OR = re.compile(r"\s+OR\s+")
_VIRTUOSO_AND = re.compile(r"\s+AND\s+")


def standard_filters(sparql: str) -> str:
    """Rewrite Virtuoso's ``OR``/``AND`` between FILTER conditions (CWQ's gold) as SPARQL's ``||``/``&&``."""
    lines = []
    for line in sparql.splitlines():
        if line.lstrip().upper().startswith("FILTER"):
            line = _VIRTUOSO_AND.sub(" && ", _VIRTUOSO_OR.sub(" || ", line))
        lines.append(line)
    return "\n".join(lines)


def wikidata_gold(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Gold queries of QALD-10 test, QALD-7 test, WikiWebQuestions dev and SPINACH dev."""
    qald10 = json.loads((data_dir / "qald10" / "qald_10.json").read_text(encoding="utf-8"))
    for q in qald10["questions"]:
        yield f"qald10:{q['id']}", q["query"]["sparql"]
    qald7 = json.loads((data_dir / "qald7_wikidata" / "qald-7-test-en-wikidata.json").read_text(encoding="utf-8"))
    for q in qald7["questions"]:
        yield f"qald7:{q['id']}", q["query"]["sparql"]
    for q in json.loads((data_dir / "wikiwebquestions" / "dev.json").read_text(encoding="utf-8")):
        yield f"wwq:{q['id']}", q["sparql"]
    for q in json.loads((data_dir / "spinach" / "dev.json").read_text(encoding="utf-8")):
        yield f"spinach:{q['id']}", q["sparql"]


def freebase_gold(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Gold queries of the CWQ test and ToG's GrailQA sample (CWQ's Virtuoso ``OR``/``AND`` made standard)."""
    with gzip.open(data_dir / "tog_freebase" / "cwq_test.json.gz", "rt", encoding="utf-8") as handle:
        for number, q in enumerate(json.load(handle)):
            yield f"cwq:{q.get('ID', number)}", standard_filters(q["sparql"])
    with gzip.open(data_dir / "tog_freebase" / "grailqa_sample1000.json.gz", "rt", encoding="utf-8") as handle:
        for number, q in enumerate(json.load(handle)):
            yield f"grailqa:{q.get('qid', number)}", q["sparql_query"]
