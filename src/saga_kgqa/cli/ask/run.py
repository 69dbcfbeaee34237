"""The body of ``saga ask``: open the graph, run or resume a checkpointed thread, stream the steps.

Kept apart from the option parsing in :mod:`saga_kgqa.cli.ask.command` so that other
``saga`` commands do not pay for importing LangGraph and the OpenAI client.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import openai
import typer
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from saga_kgqa.app.graphs import build_graph
from saga_kgqa.app.open import OpenOptions, open_graph
from saga_kgqa.app.sources import opened_sources, source_toolbox
from saga_kgqa.app.toolboxes import toolbox_over
from saga_kgqa.cli.ask.view import StepView
from saga_kgqa.cli.output import EXIT_BACKEND, stderr
from saga_kgqa.config import settings
from saga_kgqa.config.context import Method, SagaContext
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.graph.builder import SagaGraph, recursion_limit
from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.graph.tracing import question_run_config
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.remote.wikidata_search import WIKIDATA_API
from saga_kgqa.models import ConfiguredModelFactory, ModelSettings
from saga_kgqa.runs.answer_view import TermView, answer_views
from saga_kgqa.runs.clarification import clarification_values, pending_clarification, resume_with
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget, RunIdentity, default_checkpoint_path
from saga_kgqa.runs.stream import RunObserver, stream_run
from saga_kgqa.runs.trajectory import TrajectoryWriter
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.state.graph_state import InputState, require_question
from saga_kgqa.tools.toolbox import SagaToolbox

#: Exit status after Ctrl-C (the run is saved).
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class AskRequest:
    """Everything ``saga ask`` was told.

    Attributes:
        question: The question of a new run (``None`` when resuming).
        resume: The thread to resume (``None`` for a new run).
        thread: Thread id for a new run (a fresh one when ``None``).
        force: Resume even against another graph or model.
        data: RDF files or one store directory (the example graph when neither this nor ``endpoint``).
        endpoint: Remote SPARQL endpoint URL.
        profile: Endpoint profile name.
        schema_file: A saved schema index (built on the fly when ``None``).
        data_dir: Offline sources of the dialect's schema index (used when ``schema_file`` is ``None``).
        entity_search_url: The MediaWiki API that ``entity_search=wikidata-api`` asks.
        model: Explicit model settings (``None`` fields fall back to the environment).
        switches: Context switches given on the command line (``None`` values fall back to the environment).
        checkpoint_db: Checkpoint database, a SQLite path or a ``postgresql://`` URL (the default when ``None``).
        trace: JSONL file the trajectory is appended to.
        live: Show the live view of the steps.
        method: ``saga`` (the controller) or ``mars`` (the pattern pipeline, :mod:`saga_kgqa.mars`).
        source: A catalog source to ask (instead of ``data``/``endpoint``); the run may ground over
            the catalog's sources (the ``source_tools`` switch).
        catalog: The catalog file of ``source`` (``$SAGA_CATALOG`` when ``None``).
        choice: With ``resume``: the answer to the question the thread waits on (a candidate's id, IRI
            or 1-based number).
        chooser: Asks a person which candidate is meant (``None``: nobody to ask; the run then ends
            ``needs_clarification`` with the candidates); returns ``None`` to stop asking.
    """

    question: str | None
    resume: str | None
    thread: str | None = None
    force: bool = False
    data: list[Path] | None = None
    endpoint: str | None = None
    profile: str | None = None
    schema_file: Path | None = None
    data_dir: Path | None = None
    entity_search_url: str = WIKIDATA_API
    model: ModelSettings = field(default_factory=ModelSettings)
    switches: dict[str, Any] = field(default_factory=dict)
    checkpoint_db: CheckpointTarget | None = None
    trace: Path | None = None
    live: bool = True
    method: Method = "saga"
    source: str | None = None
    catalog: Path | None = None
    choice: str | None = None
    chooser: Callable[[Clarification], str | None] | None = None


@dataclass(frozen=True)
class AskResult:
    """A finished (or already finished) thread: its id, question and final state values."""

    thread_id: str
    question: str
    values: dict[str, Any]
    views: dict[str, TermView] = field(default_factory=dict)


def graph_identity(
    data: list[Path] | None,
    endpoint: str | None,
    profile: str | None = None,
    dialect: str = "generic",
    method: str = "saga",
) -> str:
    """How a thread records its graph: the endpoint URL or the absolute data paths, the profile and dialect.

    The dialect is part of it because Θ, the knowledge log and the ids in the history
    (``wd:Q5`` or ``ns:m.0abc``) mean something only under the dialect that wrote them.
    """
    source = endpoint or ",".join(str(path.resolve()) for path in (data or [settings.example_graph_path()]))
    qualifiers = [f"profile {profile}"] if profile else []
    if dialect != "generic":
        qualifiers.append(f"dialect {dialect}")
    if method != "saga":
        qualifiers.append(f"method {method}")  # a MARS thread's state means nothing to SAGA's graph
    return f"{source} ({', '.join(qualifiers)})" if qualifiers else source


def run_ask(request: AskRequest) -> AskResult:
    """Run or resume one thread and return its final state.

    Raises:
        ConfigurationError: Bad options, no model configured, an unknown thread, or a
            resume against another graph or model without ``force``.
        SagaError: The graph failed (the run is saved and resumable).
        typer.Exit: A model call failed after its retries, or the user pressed Ctrl-C.
    """
    if (request.question is None) == (request.resume is None):
        raise ConfigurationError("give a question, or --resume THREAD (not both)")
    if request.question is not None:
        require_question(request.question)
    explicit = {k: v for k, v in request.switches.items() if v is not None}
    if request.profile is not None:
        explicit["profile"] = request.profile  # a Wikidata profile implies the wikidata dialect
    context = SagaContext.from_env(**explicit)
    # The Wikidata dialect shows wd:/wdt: ids; the wikidata profile's prefixes make them parse in queries.
    profile = request.profile or ("wikidata" if context.dialect == "wikidata" else None)
    factory = ConfiguredModelFactory(request.model)
    model_settings = factory.settings_for(context)
    model_settings.require_complete()
    if request.source is not None and (request.data or request.endpoint or request.schema_file):
        raise ConfigurationError("--source names the graph and its schema; give no --data, --endpoint or --schema")
    graph_name = (
        f"source {request.source}"
        if request.source is not None
        else graph_identity(request.data, request.endpoint, request.profile, context.dialect, request.method)
    )
    identity = RunIdentity(graph=graph_name, model=model_settings.describe())
    with CheckpointStore(request.checkpoint_db or default_checkpoint_path(), serde=checkpoint_serde()) as store:
        inputs: InputState | None
        if request.resume is not None:
            thread_id = request.resume
            question = store.check_resume(thread_id, identity, force=request.force, warn=_warn).question
            inputs = None
        else:
            assert request.question is not None  # one of the two is set, checked above
            thread_id, question = request.thread or uuid.uuid4().hex[:12], request.question
            store.start_thread(thread_id, identity, question)
            inputs = {"question": question}
        with _opened(request, context, profile) as (toolbox, sources):
            app, limit = _app(request.method, factory, toolbox, store.saver, context, sources)
            config = question_run_config(
                question,
                thread_id=thread_id,
                graph=identity.graph,
                model=identity.model,
                model_name=model_settings.model,
                recursion_limit=limit,
            )
            waiting = pending_clarification(app.get_state(config))
            if inputs is None and not app.get_state(config).next:
                stderr.print(f"thread {thread_id} has already finished; showing its result", style="dim")
            else:
                resume = resume_with(waiting, request.choice) if waiting is not None and request.choice else None
                _stream(app, resume or inputs, config, context, request, thread_id, identity)
            # Asking back: a person at a terminal chooses now; otherwise the run ends needs_clarification.
            asked = pending_clarification(app.get_state(config))
            while asked is not None and request.chooser is not None:
                choice = request.chooser(asked)
                if choice is None:
                    break
                _stream(app, resume_with(asked, choice), config, context, request, thread_id, identity)
                asked = pending_clarification(app.get_state(config))
            values = dict(app.get_state(config).values)
            if asked is not None:
                values = clarification_values(values, asked)
            # Labels and short names of the answer's IRIs, read while the graph is still open.
            views = answer_views(toolbox.view(context), values.get("answer"), context.language)
    return AskResult(thread_id=thread_id, question=question, values=values, views=views)


@contextmanager
def _opened(
    request: AskRequest, context: SagaContext, profile: str | None
) -> Iterator[tuple[SagaToolbox, SourceSet | None]]:
    """The run's toolbox, and the catalog's sources when ``--source`` names one (both closed on exit)."""
    if request.source is None:
        with open_graph(request.data, request.endpoint, profile) as knowledge_graph:
            yield _toolbox(knowledge_graph, context, request), None
        return
    with opened_sources(request.catalog) as sources:
        yield source_toolbox(sources.get(request.source)), sources


def _app(
    method: Method,
    factory: ConfiguredModelFactory,
    toolbox: SagaToolbox,
    saver: BaseCheckpointSaver[Any],
    context: SagaContext,
    sources: SourceSet | None = None,
) -> tuple[SagaGraph, int]:
    """The compiled graph of the method, and its recursion limit."""
    if method == "mars":
        from saga_kgqa.mars.builder import build_mars_graph

        mars = build_mars_graph(model_factory=factory, toolbox_factory=lambda _: toolbox, checkpointer=saver)
        # Same input, output and context schemas: the CLI streams both graphs alike.
        return cast(SagaGraph, mars), recursion_limit(context.max_steps)
    app = build_graph(
        model_factory=factory,
        toolbox_factory=lambda _: toolbox,
        # Named sources only when --source asks for a catalog: a --data/--endpoint run stays one graph.
        sources_factory=lambda _: sources,
        checkpointer=saver,
    )
    return app, recursion_limit(context.max_steps)


def _toolbox(knowledge_graph: KnowledgeGraph, context: SagaContext, request: AskRequest) -> SagaToolbox:
    """The tools in the context's dialect, over the given schema index or one built now."""
    options = OpenOptions(context.dialect, request.schema_file, request.data_dir, context.entity_search)
    return toolbox_over(
        knowledge_graph, options, data=request.data, entity_search_url=request.entity_search_url, note=_note
    )


def _note(text: str) -> None:
    stderr.print(text, style="dim")


def _stream(
    app: SagaGraph,
    inputs: InputState | Command[Any] | None,
    config: RunnableConfig,
    context: SagaContext,
    request: AskRequest,
    thread_id: str,
    identity: RunIdentity,
) -> None:
    """Stream node updates (checkpointed after every step) into the live view and the trace."""
    tracing = TrajectoryWriter(request.trace) if request.trace is not None else nullcontext()
    resumed = not isinstance(inputs, dict)  # None, or a Command answering the question the thread waits on
    steps_before = int(app.get_state(config).values.get("steps", 0)) if resumed else 0
    with tracing as writer, StepView(stderr, enabled=request.live, steps_before=steps_before) as view:
        view.note(f"thread {thread_id}{' (resumed)' if resumed else ''}; resume with --resume {thread_id}")
        if writer is not None:
            writer.start(
                question=config.get("metadata", {}).get("question"),
                thread_id=thread_id,
                resumed=resumed,
                knowledge_graph=identity.graph,
                model=identity.model,
                context=vars(context),
            )
        try:
            observers: list[RunObserver] = [view] if writer is None else [writer, view]
            stream_run(app, inputs, config, context, observers, durability="sync")
        except KeyboardInterrupt:
            _end(writer, error="interrupted")
            stderr.print(f"interrupted; the run is saved: saga ask --resume {thread_id}", style="yellow")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except openai.APIError as exc:
            _end(writer, error=f"{type(exc).__name__}: {exc}")
            stderr.print(
                f"error: the model call failed ({type(exc).__name__}: {exc}); "
                f"the run is saved: saga ask --resume {thread_id}",
                markup=False,
                highlight=False,
            )
            raise typer.Exit(EXIT_BACKEND) from None
        except SagaError as exc:
            _end(writer, error=f"{type(exc).__name__}: {exc.message}")
            stderr.print(f"the run is saved: saga ask --resume {thread_id}", style="dim")
            raise
        state = app.get_state(config).values
        _end(writer, status=state.get("status"), final_sparql=state.get("final_sparql"))


def _warn(message: str) -> None:
    stderr.print(f"warning: {message}", markup=False, highlight=False, style="yellow")


def _end(writer: TrajectoryWriter | None, **details: Any) -> None:
    if writer is not None:
        writer.end(**details)
