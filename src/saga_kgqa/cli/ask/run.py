"""The display of ``saga ask``: follow the run :mod:`saga_kgqa.app` opened, its steps in the view and the trace.

Kept apart from the option parsing in :mod:`saga_kgqa.cli.ask.command` so that other
``saga`` commands do not pay for importing LangGraph and the OpenAI client. Everything the
run is made of (settings, checkpoints, toolbox, sources, the compiled graph) is opened by
:func:`saga_kgqa.app.run.open_run`, which the command calls; this module holds the request,
streams the run to the live view and the trace file, asks a person back, and says what a
person needs to know when a run stops.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import typer
from langgraph.types import Command

from saga_kgqa.app.run import Run, RunRequest
from saga_kgqa.cli.ask.view import StepView
from saga_kgqa.cli.output import EXIT_BACKEND, stderr
from saga_kgqa.errors import SagaError
from saga_kgqa.graph.clarify import Clarification
from saga_kgqa.runs.answer_view import TermView
from saga_kgqa.runs.clarification import clarification_values, resume_with
from saga_kgqa.runs.final_state import run_finished
from saga_kgqa.runs.stream import RunObserver
from saga_kgqa.runs.trajectory import TrajectoryWriter
from saga_kgqa.state.graph_state import InputState

#: Exit status after Ctrl-C (the run is saved).
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class AskRequest(RunRequest):
    """Everything ``saga ask`` was told: the run (:class:`~saga_kgqa.app.run.RunRequest`) and how to show it.

    Attributes:
        trace: JSONL file the trajectory is appended to.
        live: Show the live view of the steps.
        choice: With ``resume``: the answer to the question the thread waits on (a candidate's id,
            IRI or 1-based number).
        chooser: Asks a person which candidate is meant (``None``: nobody to ask; the run then ends
            ``needs_clarification`` with the candidates); returns ``None`` to stop asking.
    """

    trace: Path | None = None
    live: bool = True
    choice: str | None = None
    chooser: Callable[[Clarification], str | None] | None = None


@dataclass(frozen=True)
class AskResult:
    """A finished (or already finished) thread: its id, question and final state values."""

    thread_id: str
    question: str
    values: dict[str, Any]
    views: dict[str, TermView] = field(default_factory=dict)


def follow_run(run: Run, request: AskRequest) -> AskResult:
    """Stream the run opened for ``request`` (or show the finished thread), ask back if it asks, return its state.

    Raises:
        SagaError: The graph failed (the run is saved and resumable).
        typer.Exit: A model call failed after its retries, or the user pressed Ctrl-C.
    """
    thread_id, question = str(run.thread_id), str(run.question)
    waiting = run.pending()
    if run.inputs is None and run_finished(run.state()):
        stderr.print(f"thread {thread_id} has already finished; showing its result", style="dim")
    else:
        resume = resume_with(waiting, request.choice) if waiting is not None and request.choice else None
        _stream(run, resume or run.inputs, request)
    # Asking back: a person at a terminal chooses now; otherwise the run ends needs_clarification.
    asked = run.pending()
    while asked is not None and request.chooser is not None:
        choice = request.chooser(asked)
        if choice is None:
            break
        _stream(run, resume_with(asked, choice), request)
        asked = run.pending()
    values = dict(run.state().values)
    if asked is not None:
        values = clarification_values(values, asked)
    # Labels and short names of the answer's IRIs, read while the graph is still open.
    return AskResult(
        thread_id=thread_id, question=question, values=values, views=run.answer_views(values.get("answer"))
    )


def note(text: str) -> None:
    """Show a note (a schema index built on the fly) on stderr, dimmed."""
    stderr.print(text, style="dim")


def _stream(run: Run, inputs: InputState | Command[Any] | None, request: AskRequest) -> None:
    """Stream node updates (checkpointed after every step) into the live view and the trace."""
    thread_id = run.thread_id
    tracing = TrajectoryWriter(request.trace) if request.trace is not None else nullcontext()
    resumed = not isinstance(inputs, dict)  # None, or a Command answering the question the thread waits on
    steps_before = int(run.state().values.get("steps", 0)) if resumed else 0
    with tracing as writer, StepView(stderr, enabled=request.live, steps_before=steps_before) as view:
        view.note(f"thread {thread_id}{' (resumed)' if resumed else ''}; resume with --resume {thread_id}")
        if writer is not None and run.identity is not None:
            writer.start(
                question=run.config.get("metadata", {}).get("question"),
                thread_id=thread_id,
                resumed=resumed,
                knowledge_graph=run.identity.graph,
                model=run.identity.model,
                context=vars(run.context),
            )
        try:
            observers: list[RunObserver] = [view] if writer is None else [writer, view]
            run.stream(inputs, observers)
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
        state = run.state().values
        _end(writer, status=state.get("status"), final_sparql=state.get("final_sparql"))


def warn(message: str) -> None:
    """Show a warning (a thread resumed on a model server that moved) on stderr."""
    stderr.print(f"warning: {message}", markup=False, highlight=False, style="yellow")


def _end(writer: TrajectoryWriter | None, **details: Any) -> None:
    if writer is not None:
        writer.end(**details)
