"""The --wikidata part of bench/grounding.py: CoDEx-M over the offline store, gold SPARQL of Wikidata and Freebase."""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from saga_kgqa.dialects import WIKIDATA_DIALECT
from saga_kgqa.dialects.wikidata_store import build_wikidata_store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.lookup_tokens import LARGE_NEIGHBOURHOOD, TokenComparison, measure_tokens
from bench.grounding_eval.measurement import TokenSample
from bench.grounding_eval.report import AGREEMENT_NOTE, token_table
from bench.grounding_eval.spinach_lookup_cost import (
    SPINACH_PRUNE_PROMPT_TOKENS,
    full_lookup_samples,
    recorded_pruned_tokens,
)
from bench.grounding_eval.spinach_lookup_cost import TRACE_FILE as SPINACH_TRACE_FILE
from bench.grounding_eval.spinach_lookup_cost import ratio as spinach_ratio
from bench.grounding_eval.wikidata import (
    FREEBASE_CHECK_SETTINGS,
    codex_test_sample,
    freebase_gold,
    measure_codex,
    measure_gold,
    measure_gold_retention,
    wikidata_gold,
)
from saga_kgqa.kg.cache.replay_cache import CacheMode
from saga_kgqa.kg.core.profiles import get_profile
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
from saga_kgqa.schema import SchemaIndex, build_dialect_index
from saga_kgqa.schema.wikidata_offline import build_wikidata_offline_index
from saga_kgqa.tools.context import ToolCaps
from saga_kgqa.tools.lookup.hiding import HideSettings
from smoke import cap, first, reuse, reuse_store
from tests.support.grounding import tool_view


def run_wikidata(args: argparse.Namespace) -> None:
    """Measure, print the explanations and the RESULT line."""
    # rdflib logs every gold literal it cannot convert ("2018-00-00" dates); the check does not need them.
    logging.getLogger("rdflib.term").setLevel(logging.CRITICAL)
    console = Console(width=160, markup=False, highlight=False)
    started = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="saga-wikidata-"))
    store = args.store
    if store is None:
        store = scratch / "store"
        report = reuse_store(
            f"wikidata store {args.data_dir}",
            store,
            lambda d: build_wikidata_store(args.data_dir, d, per_source=cap(2000)),
        )
        console.print(f"built the offline store: {report.triples} triples ({time.perf_counter() - started:.0f} s)")
    # The same measurements without KGTK's P279 hierarchy, in store and index: the rule must hold up there too.
    bare = scratch / "store-no-p279"
    report = reuse_store(
        f"wikidata store no-p279 {args.data_dir}",
        bare,
        lambda d: build_wikidata_store(args.data_dir, d, hierarchy=False, per_source=cap(2000)),
    )
    console.print(f"built the store without P279: {report.triples} triples ({time.perf_counter() - started:.0f} s)")
    sample = codex_test_sample(args.data_dir, size=args.codex_sample, seed=args.seed)
    # --support: lookup's threshold of an observed domain member (a sweep of it says what reconciliation keeps).
    caps = ToolCaps() if args.support is None else ToolCaps(hide=HideSettings(support=args.support))
    try:
        schema = reuse(
            f"wikidata index {args.data_dir}", lambda: build_dialect_index("wikidata", data_dir=args.data_dir)
        )
        with KnowledgeGraph(EmbeddedStore(store, profile=get_profile("wikidata"))) as graph:
            kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT, caps=caps)
            # The paper's entries (label, id, description, domain, range) with value counts and no samples.
            paper_caps = replace(caps, values_per_property=0)
            paper_kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT, caps=paper_caps)
            codex = measure_codex(kit, graph, schema, sample, args.seed, paper_kit=paper_kit)
            console.print(
                f"CoDEx-M test triples with a typed head: {codex.triples} ({time.perf_counter() - started:.0f} s)"
            )
            gold = measure_gold(graph, schema, first(wikidata_gold(args.data_dir), 5))
            gold_kept = measure_gold_retention(kit, graph, first(wikidata_gold(args.data_dir), 5))
        console.print(f"Wikidata gold queries: {gold.queries} ({time.perf_counter() - started:.0f} s)")
        bare_schema = reuse(
            f"wikidata index no-p279 {args.data_dir}",
            lambda: build_wikidata_offline_index(args.data_dir, hierarchy=False),
        )
        with KnowledgeGraph(EmbeddedStore(bare, profile=get_profile("wikidata"))) as graph:
            kit = tool_view(graph, bare_schema, dialect=WIKIDATA_DIALECT, caps=caps)
            bare_codex = measure_codex(kit, graph, bare_schema, sample, args.seed)
            bare_gold = measure_gold(graph, bare_schema, first(wikidata_gold(args.data_dir), 5))
            bare_kept = measure_gold_retention(kit, graph, first(wikidata_gold(args.data_dir), 5))
        console.print(f"without P279: measured ({time.perf_counter() - started:.0f} s)")
        freebase_schema = build_dialect_index("freebase", data_dir=args.data_dir)
        # No Freebase graph offline: an empty store, so only the types the queries declare are known.
        empty = Path(tempfile.mkdtemp(prefix="saga-freebase-"))
        load_files(empty, [])
        with KnowledgeGraph(EmbeddedStore(empty, profile=get_profile("embedded"), owns_dir=True)) as graph:
            freebase = measure_gold(
                graph,
                freebase_schema,
                first(freebase_gold(args.data_dir), 5),
                FREEBASE_CHECK_SETTINGS,
                run_blocked=False,
            )
        console.print(f"Freebase gold queries: {freebase.queries} ({time.perf_counter() - started:.0f} s)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    console.print("\n                   with P279 (kgtk-p279)    without P279")
    for name, with_p279, without in (
        ("codex retention", _share(codex.retained, codex.triples), _share(bare_codex.retained, bare_codex.triples)),
        (
            "codex reduction",
            _share(codex.properties_hidden, codex.properties_seen),
            _share(bare_codex.properties_hidden, bare_codex.properties_seen),
        ),
        ("codex detection", _share(codex.detected, codex.swaps), _share(bare_codex.detected, bare_codex.swaps)),
        ("gold retention", _share(gold_kept.kept, gold_kept.pairs), _share(bare_kept.kept, bare_kept.pairs)),
        (
            "gold false blocks",
            _share(len(gold.blocked), gold.queries),
            _share(len(bare_gold.blocked), bare_gold.queries),
        ),
    ):
        console.print(f"{name:<19}{with_p279:<25}{without}")
    retention = codex.retained / codex.triples if codex.triples else 0.0
    reduction = codex.properties_hidden / codex.properties_seen if codex.properties_seen else 0.0
    detection = codex.detected / codex.swaps if codex.swaps else 0.0
    token_ratio = codex.tokens.ratio()
    paper_ratio = codex.tokens.ratio(paper_form=True)
    console.print(
        f"retention {codex.retained}/{codex.triples}; hidden {codex.properties_hidden}/{codex.properties_seen}; "
        f"detected {codex.detected}/{codex.swaps}"
    )
    _print_tokens(console, "lookup as shipped (2 sample values per property)", codex.tokens.tokens)
    _print_tokens(console, "the paper's entries (value counts, no samples; --values 0)", codex.tokens.paper_tokens)
    pruned = recorded_pruned_tokens(args.data_dir / SPINACH_TRACE_FILE)
    full = full_lookup_samples(codex.tokens.tokens, pruned)
    console.print(
        f"\ntokens of lookup as shipped vs SPINACH's whole lookup: raw JSON + pruning prompt "
        f"({SPINACH_PRUNE_PROMPT_TOKENS}) + pruned output (recorded for {sum(1 for s in full if s.entity in pruned)} "
        f"of {len(full)} heads, else the median of {len(pruned)} recorded), by neighbourhood size (values):"
    )
    console.print(token_table(full, noun="heads", against="SPINACH lookup"))
    endpoint_figures = ""
    if args.token_endpoint:
        heads = list(dict.fromkeys(head for head, _p, _o in sample))[: args.token_heads]
        live = _endpoint_tokens(args, schema, heads)
        _print_tokens(console, f"lookup as shipped on {args.token_endpoint}", live.tokens)
        _print_tokens(console, f"the paper's entries on {args.token_endpoint}", live.paper_tokens)
        endpoint_figures = (
            f" token_ratio_endpoint={live.ratio():.3f}"
            f" token_ratio_endpoint_paper_form={live.ratio(paper_form=True):.3f}"
        )
    console.print(
        f"wikidata gold: {len(gold.blocked)} blocked, {gold.checkable} checkable, {gold.rejected} rejected, "
        f"of {gold.queries}; freebase gold: {len(freebase.blocked)} blocked, {freebase.checkable} checkable, "
        f"{freebase.rejected} rejected, of {freebase.queries}"
    )
    for label, lines in (
        ("lost", codex.lost),
        ("gold pair lost", gold_kept.lost),
        ("gold pair lost without P279", bare_kept.lost),
        ("missed swap", codex.missed),
        ("wikidata false block", gold.blocked),
        ("wikidata false block without P279", bare_gold.blocked),
        ("wikidata gold blocked, matching nothing in the store", gold.blocked_empty),
        ("the same without P279", bare_gold.blocked_empty),
        ("freebase false block", freebase.blocked),
    ):
        for line in lines[: args.details]:
            console.print(f"{label}: {line}")
    console.print(AGREEMENT_NOTE, markup=False, highlight=False)
    print(
        f"RESULT retention={retention:.3f} reduction={reduction:.3f} detection={detection:.3f} "
        f"token_ratio={token_ratio:.3f} token_ratio_paper_form={paper_ratio:.3f} "
        f"false_blocks_rate={gold.false_blocks_rate:.3f} "
        f"checkable_share={gold.checkable_share:.3f} freebase_false_blocks_rate={freebase.false_blocks_rate:.3f}"
        f" token_ratio_vs_spinach_lookup={spinach_ratio(full):.3f}"
        f" wikidata_gold_retention={gold_kept.retention:.3f}"
        f" wikidata_gold_pairs={gold_kept.pairs}"
        f" retention_no_p279={_ratio(bare_codex.retained, bare_codex.triples):.3f}"
        f" reduction_no_p279={_ratio(bare_codex.properties_hidden, bare_codex.properties_seen):.3f}"
        f" detection_no_p279={_ratio(bare_codex.detected, bare_codex.swaps):.3f}"
        f" wikidata_gold_retention_no_p279={bare_kept.retention:.3f}"
        f" false_blocks_rate_no_p279={bare_gold.false_blocks_rate:.3f}"
        f" blocked_empty_gold={len(gold.blocked_empty)} blocked_empty_gold_no_p279={len(bare_gold.blocked_empty)}"
        f"{endpoint_figures}"
    )


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def _share(part: int, whole: int) -> str:
    return f"{_ratio(part, whole):.3f} ({part}/{whole})"


def _endpoint_tokens(args: argparse.Namespace, schema: SchemaIndex, heads: list[str]) -> TokenComparison:
    """The same heads looked up on a Wikidata endpoint, with SPINACH's JSON read from it too."""
    backend = open_backend(
        endpoint=args.token_endpoint,
        profile=args.token_profile,
        cache_dir=args.token_cache_dir,
        cache_mode=CacheMode.REPLAY_OR_RECORD if args.token_cache_dir else CacheMode.OFF,
    )
    with KnowledgeGraph(backend) as graph:
        kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT)
        paper_kit = tool_view(graph, schema, dialect=WIKIDATA_DIALECT, caps=ToolCaps(values_per_property=0))
        return measure_tokens(kit, graph, schema, heads, paper_kit=paper_kit)


def _print_tokens(console: Console, title: str, samples: list[TokenSample]) -> None:
    large = sum(1 for s in samples if s.values >= LARGE_NEIGHBOURHOOD)
    console.print(
        f"\ntokens (cl100k_base) of {title} vs SPINACH raw JSON, by neighbourhood size (values); "
        f"token_ratio sums the {large} heads with >= {LARGE_NEIGHBOURHOOD} values:"
    )
    console.print(token_table(samples, noun="heads"))
