"""``saga eval ablate``: one run per ablation variant (SAGA's Table 5 or MARS's), side by side."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from saga_kgqa.cli.eval.options import BenchmarkArgument, QuestionOptions
from saga_kgqa.cli.eval.preflight import check_model_reachable, check_scoring_runtime
from saga_kgqa.cli.eval.run import (
    AgentOptions,
    agent_answerer_for,
    agent_tools,
    cache_settings,
    chat_model_factory,
    open_toolbox,
    run_context,
)
from saga_kgqa.cli.option_groups import with_option_groups
from saga_kgqa.cli.options import AnswerShapeOption, GraphOptions, MarsOptions
from saga_kgqa.cli.output import fail, stdout
from saga_kgqa.errors import SagaError


@with_option_groups
def ablate_command(
    benchmark: BenchmarkArgument,
    gold: Annotated[Path, typer.Option(help="Gold store written by `saga eval gold`.")],
    out_dir: Annotated[Path, typer.Option(help="Directory of the per-variant predictions files.")],
    components: Annotated[
        bool, typer.Option(help="Run the component switches (SAGA's Table 5, or MARS's ablations with --method mars).")
    ] = True,
    coverage: Annotated[bool, typer.Option(help="Run the paper's Table 6 schema-coverage levels.")] = False,
    seed: Annotated[int, typer.Option(help="Seed of the schema-coverage masks.")] = 0,
    *,
    chosen: QuestionOptions,
    graph: GraphOptions,
    agent: AgentOptions,
    mars: MarsOptions,
    answer_shape: AnswerShapeOption = None,
) -> None:
    """Run the agent once per ablation variant and print the variants side by side (markdown).

    ``--method saga`` runs the paper's Table 5 components; ``--method mars`` runs MARS's ablations
    (top-N, hop limit, examples, typology, verification) instead. ``--coverage`` adds Table 6 to either.
    """
    from saga_kgqa.eval.qa.ablation import ablation_table, ablation_variants, run_ablation
    from saga_kgqa.eval.qa.gold import GoldStore

    try:
        cache = cache_settings(graph.endpoint, agent.cache_dir, agent.cache_mode, out_dir / "cache")
        questions = chosen.questions(benchmark)[: agent.limit]
        tools = agent_tools(benchmark, chosen, graph, agent)
        switches = {**mars.switches(), "answer_shape": answer_shape}
        base = run_context(graph, agent, tools, switches)
        base = dataclasses.replace(base, coverage_seed=seed)
        check_scoring_runtime()  # inputs before work: the gold, the graph, then one request to the model
        gold_store = GoldStore.load(gold)
        toolbox = open_toolbox(graph.data, graph.endpoint, graph.profile, *cache, tools)
        factory = chat_model_factory(base, model_concurrency=agent.model_concurrency)
        check_model_reachable(factory(base, "controller"))
        summaries = run_ablation(
            questions,
            gold_store,
            base,
            agent_answerer_for(factory, toolbox, agent),
            out_dir,
            ablation_variants(components=components, coverage=coverage, method=agent.method),
            config={
                "benchmark": benchmark,
                "language": chosen.language,
                "graph": chosen.graph_name,
                "limit": agent.limit,
                "max_seconds": agent.max_seconds,
                "max_tokens": agent.max_tokens,
                "method": agent.method,
                "answer_shape": answer_shape,
            },
            retry_failed=agent.retry_failed,
            concurrency=agent.concurrency,
            schema=toolbox.schema,
        )
    except SagaError as exc:
        fail(exc)
    stdout.print(ablation_table(summaries), markup=False, highlight=False)
