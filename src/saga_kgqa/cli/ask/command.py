"""``saga ask "question"``: answer a question with the SAGA agent, durably.

Every step is checkpointed to SQLite (``--checkpoint-db``), so a run stopped by an error,
a provider outage or Ctrl-C continues with ``saga ask --resume THREAD`` without repeating
completed model calls; resuming against another graph or model needs ``--force``.
Exit status, one per outcome of a finished run (docs/outcomes.md): 0 answered, 3 empty,
4 partial, 5 failed, 6 timed_out, 7 refused, 8 needs_clarification; and for a run that did not
finish: 2 bad configuration (no model configured, unknown thread, ...), 1 a model or graph
failure (the run is saved and resumable), 130 interrupted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from saga_kgqa.cli.option_groups import with_option_groups
from saga_kgqa.cli.options import (
    GraphOptions,
    MarsOptions,
    RunSchemaOption,
    SourceCatalogOption,
    dialect_name,
    dialect_option,
)
from saga_kgqa.cli.output import fail, print_json, stdout
from saga_kgqa.config.context import Clarify, EntitySearch, GroundingTools, Matching, Method, SourceTools, ToolCalling
from saga_kgqa.errors import SagaError
from saga_kgqa.state.outcome import RunStatus, outcome_of

#: Exit status of a finished run, one per outcome (0 only when the rows are the whole answer).
EXIT_STATUS: dict[RunStatus, int] = {
    "answered": 0,
    "empty": 3,
    "partial": 4,
    "failed": 5,
    "timed_out": 6,
    "refused": 7,
    "needs_clarification": 8,
}

_MODEL = "Model (explicit > SAGA_* > OPENAI_* environment)"
_SWITCHES = "Switches (explicit > SAGA_<NAME> environment > default)"
_RUN = "Run"


def _switch(help_text: str) -> Any:
    return typer.Option(help=help_text, rich_help_panel=_SWITCHES, show_default=False)


@with_option_groups
def ask(
    question: Annotated[str | None, typer.Argument(help="The question (omit it with --resume).")] = None,
    *,
    graph: GraphOptions,
    schema_file: RunSchemaOption = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Offline sources of the dialect's schema index, used without --schema "
            "(see `saga index build --dialect`); without either, the index is built from the graph.",
        ),
    ] = None,
    entity_search_url: Annotated[
        str | None,
        typer.Option(
            help="MediaWiki API of --entity-search wikidata-api (User-Agent contact: SAGA_CONTACT) "
            "[default: Wikidata's].",
            show_default=False,
        ),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Model name [SAGA_MODEL].", rich_help_panel=_MODEL)] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="OpenAI-compatible API root, e.g. http://localhost:8000/v1 [SAGA_BASE_URL].", rich_help_panel=_MODEL
        ),
    ] = None,
    api_key: Annotated[
        str | None, typer.Option(help="API key [SAGA_API_KEY, OPENAI_API_KEY].", rich_help_panel=_MODEL)
    ] = None,
    reasoning_effort: Annotated[
        str | None,
        typer.Option(help="low, medium or high, for reasoning models [SAGA_REASONING_EFFORT].", rich_help_panel=_MODEL),
    ] = None,
    type_filter: Annotated[bool | None, _switch("Hide properties whose domain conflicts (default on).")] = None,
    persistent_type_state: Annotated[bool | None, _switch("Keep Θ across steps (default on).")] = None,
    answer_type_prior: Annotated[bool | None, _switch("Predict the answer type first (default on).")] = None,
    prune_fallback: Annotated[bool | None, _switch("Prune untyped neighbourhoods (default on).")] = None,
    schema_coverage: Annotated[float | None, _switch("Fraction of domain constraints kept (default 1).")] = None,
    coverage_seed: Annotated[int | None, _switch("Seed of the coverage mask (default 0).")] = None,
    matching: Annotated[Matching | None, _switch("Type compatibility (default subclass).")] = None,
    max_steps: Annotated[int | None, _switch("Controller steps before finalizing (default 20).")] = None,
    dialect: Annotated[
        str | None,
        dialect_option(
            "It sets the tools, type vocabulary (Wikidata P31/P279, Freebase type.object.type), schema "
            "index and prompt wording (default: wikidata under a wikidata/qlever profile, else generic)."
        ),
    ] = None,
    entity_search: Annotated[
        EntitySearch | None,
        _switch("Name search: off (the graph's names) or wikidata-api (wbsearchentities) (default off)."),
    ] = None,
    tool_calling: Annotated[ToolCalling | None, _switch("native tool calls or text actions (default native).")] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Ask this catalog source (instead of --data/--endpoint); the agent may ground over every source "
            "of the catalog.",
        ),
    ] = None,
    catalog: SourceCatalogOption = None,
    source_tools: Annotated[
        SourceTools | None,
        _switch("Source tools and the A.3 policy: auto (several sources, or an undocumented one), on, off."),
    ] = None,
    single_shot: Annotated[
        bool | None, _switch("At most one call per source grounding tool per question (default off).")
    ] = None,
    answer_shape: Annotated[
        bool | None,
        _switch("Return the scored query: label columns that only show a returned entity dropped (default off)."),
    ] = None,
    method: Annotated[
        Method, typer.Option(help="saga (the controller) or mars (pattern retrieval pipeline).", rich_help_panel=_RUN)
    ] = "saga",
    grounding_tools: Annotated[
        GroundingTools | None, _switch("SAGA's grounding tools: lookup, patterns or both (default lookup).")
    ] = None,
    mars: MarsOptions,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON document.")] = False,
    trace: Annotated[
        Path | None, typer.Option(help="Append the full trajectory to this JSONL file.", rich_help_panel=_RUN)
    ] = None,
    resume: Annotated[
        str | None, typer.Option(help="Continue the saved run of this thread.", rich_help_panel=_RUN)
    ] = None,
    thread: Annotated[
        str | None, typer.Option(help="Thread id of a new run (default: a fresh one).", rich_help_panel=_RUN)
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Resume even against another graph or model.", rich_help_panel=_RUN)
    ] = False,
    checkpoint_db: Annotated[
        str | None,
        typer.Option(
            help="Checkpoint database: a SQLite file or a postgresql:// URL [SAGA_CHECKPOINT_DB].",
            rich_help_panel=_RUN,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No live view of the steps.")] = False,
    choice: Annotated[
        str | None,
        typer.Option(
            help="With --resume: answer the thread's question (which entity a name means): a candidate's id, "
            "IRI or number.",
            rich_help_panel=_RUN,
        ),
    ] = None,
    clarify: Annotated[
        Clarify | None, _switch("An ambiguous name: ask (at a terminal, else end needs_clarification) or never.")
    ] = None,
) -> None:
    """Answer a question with an executable SPARQL query, built step by step by the SAGA agent.

    Needs a chat model: set SAGA_BASE_URL and SAGA_MODEL (an OpenAI-compatible server such
    as vLLM, Ollama or llama.cpp), or OPENAI_API_KEY and SAGA_MODEL. Without --data or
    --endpoint it asks the example graph shipped with saga-kgqa.
    """
    # Imported here so that the other commands do not load LangGraph and the OpenAI client.
    from saga_kgqa.app.run import open_run
    from saga_kgqa.cli.ask.clarify import print_clarification, terminal_chooser
    from saga_kgqa.cli.ask.run import AskRequest, follow_run, note, warn
    from saga_kgqa.cli.ask.view import print_outcome
    from saga_kgqa.config.model_settings import ModelSettings
    from saga_kgqa.kg.remote.wikidata_search import WIKIDATA_API
    from saga_kgqa.runs.answer_view import views_json
    from saga_kgqa.runs.persistence import checkpoint_target
    from saga_kgqa.runs.trajectory import jsonable

    request = AskRequest(
        question=question,
        resume=resume,
        thread=thread,
        force=force,
        data=graph.data,
        endpoint=graph.endpoint,
        profile=graph.profile,
        schema_file=schema_file,
        data_dir=data_dir,
        entity_search_url=entity_search_url or WIKIDATA_API,
        model=ModelSettings(model=model, base_url=base_url, api_key=api_key, reasoning_effort=reasoning_effort),
        switches={
            "type_filter": type_filter,
            "persistent_type_state": persistent_type_state,
            "answer_type_prior": answer_type_prior,
            "prune_fallback": prune_fallback,
            "schema_coverage": schema_coverage,
            "coverage_seed": coverage_seed,
            "matching": matching,
            "max_steps": max_steps,
            "dialect": dialect_name(dialect),
            "entity_search": entity_search,
            "tool_calling": tool_calling,
            "grounding_tools": grounding_tools,
            **mars.switches(),
            "source_tools": source_tools,
            "single_shot": single_shot,
            "answer_shape": answer_shape,
            "clarify": clarify,
        },
        source=source,
        catalog=catalog,
        method=method,
        checkpoint_db=checkpoint_target(checkpoint_db) if checkpoint_db else None,
        trace=trace,
        live=not quiet,
        choice=choice,
        # A person at a terminal is asked; --json or no terminal ends needs_clarification with the candidates.
        chooser=terminal_chooser if not as_json and sys.stdin.isatty() else None,
    )
    try:
        # The composition root opens the run and closes it; this face follows it and shows the answer.
        with open_run(request, note=note, warn=warn) as run:
            result = follow_run(run, request)
    except SagaError as exc:
        fail(exc)
    values = result.values
    outcome = outcome_of(values)
    if as_json:
        fields = ("final_sparql", "answer", "summary", "attempts", "evidence")
        print_json(
            {
                "thread_id": result.thread_id,
                "question": result.question,
                "status": outcome.status,
                "outcome": outcome.model_dump(mode="json"),
                **jsonable({f: values.get(f) for f in fields}),
                # The answer keeps the exact IRIs; how each is shown rides beside it.
                "answer_views": views_json(result.views),
                # The question the run waits on (needs_clarification): answer with --resume THREAD --choice ID.
                "clarification": jsonable(values.get("clarification")),
            }
        )
    else:
        print_outcome(stdout, values, result.views)
        if values.get("clarification") is not None:
            print_clarification(stdout, values["clarification"], result.thread_id)
    if outcome.status != "answered":
        raise typer.Exit(EXIT_STATUS[outcome.status])


def register(app: typer.Typer) -> None:
    """Add ``saga ask`` to the ``saga`` application."""
    app.command("ask")(ask)
