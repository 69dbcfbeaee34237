"""A run, opened by the composition root: a face says what it wants and streams the :class:`Run` it gets back.

``saga ask`` hands :func:`open_run` a :class:`RunRequest` (the question or the thread to resume,
the graph or catalog source, the dialect, the model settings and switches, the checkpoint
database) and gets a ready :class:`Run`: its compiled graph (SAGA or MARS) over the toolbox and
sources opened here, its context and config, and the checkpointer its steps are saved in. The
servers (the web page, MCP's ``kg_ask``, TEXT2SPARQL) keep one :class:`~saga_kgqa.app.served.ServedAgent`
for their life and ask it for a :class:`Run` per question. Either way the face only streams the
run (:meth:`Run.stream`, the one run loop of :mod:`saga_kgqa.runs.stream`) and shows what comes
back; what was opened is closed when the run's context ends.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command, Durability, StateSnapshot

from saga_kgqa.app.defaults import sources_from_catalog_file
from saga_kgqa.app.open import open_graph
from saga_kgqa.app.sources import opened_sources, source_toolbox
from saga_kgqa.app.toolboxes import toolbox_over
from saga_kgqa.config import settings
from saga_kgqa.config.context import Method, SagaContext
from saga_kgqa.config.model_settings import ModelSettings
from saga_kgqa.config.open_options import OpenOptions
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.graph.builder import SagaGraph, build_graph, question_run_config, recursion_limit
from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.graph.model_calls import ModelFactory
from saga_kgqa.kg.remote.wikidata_search import WIKIDATA_API
from saga_kgqa.models import ConfiguredModelFactory
from saga_kgqa.runs.answer_view import TermView, answer_views
from saga_kgqa.runs.clarification import pending_clarification
from saga_kgqa.runs.persistence import CheckpointStore, CheckpointTarget, RunIdentity, default_checkpoint_path
from saga_kgqa.runs.stream import RUN_DURABILITY, RunObserver, stream_run
from saga_kgqa.sources.session import SourceSet
from saga_kgqa.state.checkpointing import checkpoint_serde
from saga_kgqa.state.graph_state import InputState, require_question
from saga_kgqa.tools.toolbox import SagaToolbox

#: Told a line a person may want to see (a schema index built on the fly), or a warning (a forced resume).
Note = Callable[[str], None]


def _never() -> bool:
    return False


@dataclass(frozen=True)
class RunRequest:
    """What a face asks to run.

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
        switches: Context switches given explicitly (``None`` values fall back to the environment).
        checkpoint_db: Checkpoint database, a SQLite path or a ``postgresql://`` URL (the default when ``None``).
        method: ``saga`` (the controller) or ``mars`` (the pattern pipeline, :mod:`saga_kgqa.mars`).
        source: A catalog source to ask (instead of ``data``/``endpoint``); the run may ground over
            the catalog's sources (the ``source_tools`` switch).
        catalog: The catalog file of ``source`` (``$SAGA_CATALOG`` when ``None``).
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
    method: Method = "saga"
    source: str | None = None
    catalog: Path | None = None


@dataclass(frozen=True)
class Run:
    """A run ready to stream: the compiled graph, its context and config, and what it runs over.

    Attributes:
        graph: The compiled graph (SAGA's, or MARS's with the same schemas).
        context: The run's settings.
        config: The run's config (thread id, recursion limit, trace name and metadata).
        toolbox: The tools over the run's graph (the answer's labels are read through it too).
        sources: The catalog's named sources the run may ground over, or ``None`` (one graph).
        checkpointer: Where every step is saved, or ``None`` for a run that is not kept.
        thread_id: The checkpoint thread (``None`` for a run that is not kept).
        question: The question (a resumed thread's own).
        inputs: The new run's input, or ``None`` when the thread is resumed.
        identity: The graph and model the thread records.
    """

    graph: SagaGraph
    context: SagaContext
    config: RunnableConfig
    toolbox: SagaToolbox
    sources: SourceSet | None = None
    checkpointer: BaseCheckpointSaver[Any] | None = None
    thread_id: str | None = None
    question: str | None = None
    inputs: InputState | None = None
    identity: RunIdentity | None = None

    def state(self) -> StateSnapshot:
        """The thread's last checkpointed state."""
        return self.graph.get_state(self.config)

    def pending(self) -> Clarification | None:
        """The question the thread waits on (which entity a name means), if it waits on one."""
        return pending_clarification(self.state())

    def stream(
        self,
        inputs: InputState | Command[Any] | None,
        observers: Sequence[RunObserver],
        *,
        stop: Callable[[], bool] = _never,
        durability: Durability | None = RUN_DURABILITY,
    ) -> bool:
        """Run (``inputs``) or resume (``None``, or a ``Command``) the thread, handing each node's delta on.

        Every step is checkpointed before the next (``durability="sync"``) unless told otherwise.

        Returns:
            Whether ``stop`` ended the run before the graph did.
        """
        return stream_run(self.graph, inputs, self.config, self.context, observers, stop=stop, durability=durability)

    def answer_views(self, answer: Any) -> dict[str, TermView]:
        """Labels and short names of the answer's IRIs, read now through the run's tools (the graph is open)."""
        return answer_views(self.toolbox.view(self.context), answer, self.context.language)


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


@contextmanager
def open_run(request: RunRequest, *, note: Note | None = None, warn: Note | None = None) -> Iterator[Run]:
    """Open everything a run needs, start or resume its thread, and close it all when the context ends.

    The order is the one a person's mistakes are best reported in: the request and the model
    settings are checked before the checkpoint database is opened, and the thread is started
    (or its resume checked) before the graph is opened.

    Args:
        request: What to run.
        note: Told what a person may want to know (a schema index built on the fly; logged when ``None``).
        warn: Told of a resume on a model server that only moved (``None``: nobody is told).

    Raises:
        ConfigurationError: Bad options, no model configured, an unknown thread, or a
            resume against another graph or model without ``force``.
        BackendError: The graph failed while its schema index was built.
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
            question = store.check_resume(thread_id, identity, force=request.force, warn=warn).question
            inputs = None
        else:
            assert request.question is not None  # one of the two is set, checked above
            thread_id, question = request.thread or uuid.uuid4().hex[:12], request.question
            store.start_thread(thread_id, identity, question)
            inputs = {"question": question}
        with opened_tools(request, context, profile, note) as (toolbox, sources):
            yield Run(
                graph=compile_graph(request.method, factory, toolbox, store.saver, sources),
                context=context,
                config=question_run_config(
                    question,
                    thread_id=thread_id,
                    graph=identity.graph,
                    model=identity.model,
                    model_name=model_settings.model,
                    recursion_limit=recursion_limit(context.max_steps),
                ),
                toolbox=toolbox,
                sources=sources,
                checkpointer=store.saver,
                thread_id=thread_id,
                question=question,
                inputs=inputs,
                identity=identity,
            )


@contextmanager
def opened_tools(
    request: RunRequest, context: SagaContext, profile: str | None, note: Note | None = None
) -> Iterator[tuple[SagaToolbox, SourceSet | None]]:
    """The run's toolbox, and the catalog's sources when the request names a source (both closed on exit).

    Raises:
        ConfigurationError: The graph, schema, catalog or search settings are unusable.
        BackendError: The graph failed while its schema index was built.
    """
    if request.source is None:
        with open_graph(request.data, request.endpoint, profile) as knowledge_graph:
            options = OpenOptions(context.dialect, request.schema_file, request.data_dir, context.entity_search)
            yield (
                toolbox_over(
                    knowledge_graph,
                    options,
                    data=request.data,
                    entity_search_url=request.entity_search_url,
                    note=note,
                ),
                None,
            )
        return
    with opened_sources(request.catalog) as sources:
        yield source_toolbox(sources.get(request.source)), sources


def compile_graph(
    method: Method,
    model_factory: ModelFactory,
    toolbox: SagaToolbox,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    sources: SourceSet | Literal["environment"] | None = None,
) -> SagaGraph:
    """The compiled graph of ``method`` over one toolbox (and, for SAGA, the catalog's ``sources``).

    ``sources="environment"`` grounds SAGA's runs over the configured catalog file's sources, as
    the public :func:`~saga_kgqa.app.graphs.build_graph` does by default. MARS's graph has the same
    input, output and context schemas, so a face streams both alike.
    """
    if method == "mars":
        from saga_kgqa.mars.builder import build_mars_graph

        mars = build_mars_graph(
            model_factory=model_factory, toolbox_factory=lambda _: toolbox, checkpointer=checkpointer
        )
        return cast(SagaGraph, mars)
    return build_graph(
        model_factory=model_factory,
        toolbox_factory=lambda _: toolbox,
        # Named sources only when a source of a catalog is asked: a --data/--endpoint run stays one graph.
        sources_factory=sources_from_catalog_file if sources == "environment" else lambda _: sources,
        checkpointer=checkpointer,
    )
