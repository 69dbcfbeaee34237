"""The ``ask`` MCP tool: the whole SAGA agent answers a question, offered only when a model is configured.

Heavy: each call runs the LangGraph agent (model calls, tool calls) in a worker thread
(:mod:`saga_kgqa.serve.mcp.ask_run`), under a wall-clock budget checked between the graph's
steps. Hosts can wait for it: with a progress token the caller gets a progress notification
after every step and at least every :attr:`ToolHost.progress_s` seconds between them; a
``notifications/cancelled`` (or a dropped connection) stops the run at its next step, and its
checkpoint stays: asking again with the returned ``run_id`` resumes it.
"""

import threading
from dataclasses import replace
from typing import Annotated, Any

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.config.catalog import UnknownName
from saga_kgqa.errors import ConfigurationError, SagaError
from saga_kgqa.runs.answer_view import readable_rows
from saga_kgqa.serve.mcp.ask_run import AskOutcome, AskRuns
from saga_kgqa.serve.mcp.clarify import elicit_choice, question_text
from saga_kgqa.serve.mcp.limits import caller_key
from saga_kgqa.serve.mcp.models import AskOutput, cap_evidence, cap_rows
from saga_kgqa.serve.mcp.terms import TermOut, rows_of
from saga_kgqa.serve.mcp.tooling import RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.state.evidence import evidence_line
from saga_kgqa.state.outcome import RowCounts, counts_text
from saga_kgqa.text_safety import graph_text

#: Elicitations one call may send (each refused or ambiguous answer asks again, at most this often).
MAX_ELICITATIONS = 4


class StepWatch:
    """The last step a worker thread reported, read by the request's progress loop."""

    def __init__(self) -> None:
        """No step yet."""
        self._lock = threading.Lock()
        self.steps = 0
        self.node = "start"
        self.seen = 0

    def step(self, steps: int, node: str) -> None:
        """Called by the worker after each graph step."""
        with self._lock:
            self.steps, self.node = steps, node
            self.seen += 1

    def read(self) -> tuple[int, int, str]:
        """(updates so far, actions so far, last node)."""
        with self._lock:
            return self.seen, self.steps, self.node


async def report_while(ctx: Context[Any, Any], watch: StepWatch, every_s: float, run_id: str) -> None:
    """Send progress after each new step, and at least every ``every_s`` seconds (a no-op without a token).

    The message names the run, so a caller that cancels can resume it with that ``run_id``.
    """
    sent_seen, waited = -1, every_s
    while True:
        seen, steps, node = watch.read()
        if seen != sent_seen or waited >= every_s:
            await ctx.report_progress(seen, None, f"run_id={run_id}: {steps} step(s); last step: {node}")
            sent_seen, waited = seen, 0.0
        await anyio.sleep(0.25)
        waited += 0.25


def ask_tools(host: ToolHost) -> list[ToolSpec]:
    """The ``ask`` tool, or nothing when the server has no model."""
    if not host.with_model:
        return []
    catalog = host.sources.catalog
    models = sorted(catalog.models)
    model_doc = (
        f"Model name, one of: {', '.join(models)} (default {catalog.default_model or models[0]})."
        if models
        else "Leave unset: the operator configured one model."
    )
    Model = Annotated[str | None, Field(description=model_doc, json_schema_extra={"enum": [*models, None]})]
    Source = Annotated[str | None, host.source_field()]
    RunId = Annotated[
        str | None,
        Field(description="A run_id an earlier ask returned: resume that run from its checkpoint.", max_length=64),
    ]
    runs = AskRuns(catalog, host.checkpoints)
    # The runs' own worker threads (the gate admits host.gate.runs at once): a run holds its thread for
    # minutes, and must not take one of the bounded pool the quick tools share (serve/memory.py).
    run_threads = anyio.CapacityLimiter(max(1, host.gate.runs))
    active: set[str] = set()
    lock = threading.Lock()

    Choice = Annotated[
        str | None,
        Field(
            description="With run_id: answer the question the run waits on (needs_clarification): a candidate's id.",
            max_length=500,
        ),
    ]

    async def ask(
        question: Annotated[str, Field(description="A question in natural language.", min_length=1, max_length=2000)],
        ctx: Context[Any, Any],
        source: Source = None,
        model: Model = None,
        run_id: RunId = None,
        choice: Choice = None,
    ) -> Annotated[CallToolResult, AskOutput]:
        name = host.source_name(source)
        try:
            catalog.model(model)
            thread, resumed = runs.start(run_id, question, name, model, caller_key(ctx.request_context.request))
        except (UnknownName, ConfigurationError) as exc:
            raise ToolError(f"{exc.message}. Hint: check model and run_id, or omit them.") from None
        host.session(ctx).begin(name)
        view = await host.view(name)  # opens the source, or says why it cannot be
        context = replace(host.run_context(), source=name, model=model or "")
        output = AskOutput(source=name, question=question, run_id=thread, resumed=resumed)
        resume: dict[str, str] | None = None
        if choice is not None:
            waiting = await anyio.to_thread.run_sync(runs.pending, context, thread) if resumed else None
            if waiting is None:
                raise ToolError(
                    "this run waits on no choice. Hint: pass choice only with the run_id of a run "
                    "that ended needs_clarification."
                )
            resume = waiting.resume(choice)

        async def run_graph(resume: dict[str, str] | None, first: bool) -> AskOutcome:
            with lock:
                if thread in active:
                    raise ToolError(f"busy: run {thread!r} is still stopping. Hint: retry after 5 s.")
                active.add(thread)
            watch, stop = StepWatch(), threading.Event()

            def work() -> AskOutcome:
                try:
                    return runs.run(
                        thread,
                        question if first and not resumed else None,
                        context,
                        view.graph,
                        on_step=watch.step,
                        stop=stop,
                        max_seconds=host.ask_seconds,
                        resume=resume,
                    )
                finally:
                    with lock:
                        active.discard(thread)

            launched, result = False, None
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(report_while, ctx, watch, host.progress_s, thread)
                    launched = True
                    try:
                        # Abandoned on cancel: the request ends now; the worker stops at its next step.
                        result = await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=run_threads)
                    finally:
                        stop.set()
                        group.cancel_scope.cancel()
            finally:
                if not launched:  # the worker never ran: it cannot clear its own run
                    with lock:
                        active.discard(thread)
            assert result is not None  # the worker returned, or its exception left above
            return result

        try:
            outcome = await run_graph(resume, True)
            # Asking back: a client that declared elicitation asks its user now; else needs_clarification.
            for _ in range(MAX_ELICITATIONS):
                asked = outcome.clarification
                picked = await elicit_choice(ctx, asked) if asked is not None else None
                if asked is None or picked is None:
                    break
                outcome = await run_graph(asked.resume(picked), False)
        except SagaError as exc:
            return host.failure(exc, output)
        fill_output(host, output, outcome)
        if outcome.clarification is not None:
            output.clarification = outcome.clarification.model_dump(mode="json")
            hint = f"\nAnswer with kg_ask(run_id={thread!r}, choice=<a candidate's id>)."
            return host.result(ask_text(output, None) + "\n" + question_text(outcome.clarification) + hint, output)
        shown = None
        if output.boolean is None:
            # Each IRI as "Label (short)" in the run's language; the structured rows keep the exact IRIs.
            cells = _display_cells(output.rows)
            shown = await anyio.to_thread.run_sync(
                readable_rows, view, output.variables, cells, context.language, len(cells)
            )
        failed = outcome.outcome.status in ("failed", "timed_out") and not output.resumable
        return host.result(ask_text(output, outcome.error, shown), output, is_error=failed or outcome.sparql is None)

    return [
        ToolSpec(
            "ask",
            "Answer a question (whole agent)",
            "Answer a question with the whole SAGA agent: it searches, looks up, checks and runs queries itself "
            "and returns its final SPARQL and the answer rows. Slow (many model calls): pass a progress token to "
            "get progress; a cancelled or timed-out run resumes with its run_id. status says how the run ended "
            "(answered, partial, empty, failed, timed_out, refused, needs_clarification); only answered and partial "
            "rows are an answer, and row_count is the answer's size. Asking the same again rarely helps.\n"
            f"{RETRY_NOTE}",
            ask,
            read_only=True,
            open_world=True,
        )
    ]


def ask_text(output: AskOutput, error: str | None, rows_text: str | None = None) -> str:
    """The text content of a ``kg_ask`` result: status, query, and the answer rows as cleaned one-line cells.

    Each cell is graph text (a value cannot add lines, tags or bidi overrides to the table). ``rows_text``:
    the rows as :func:`~saga_kgqa.runs.answer_view.readable_rows` shows them (labels and short names).
    """
    text = f"status: {output.status} (run_id {output.run_id})\n"
    if output.message and output.status != "answered":
        text += f"{graph_text(output.message, 600)}\n"
    text += f"SPARQL:\n{output.sparql or '(none)'}\n"
    counts = counts_text(RowCounts(total=output.row_count, truncated=output.rows_cut), output.rows_shown)
    if output.boolean is not None:
        text += f"answer: {str(output.boolean).lower()}\n"
    elif output.status in ("answered", "partial"):
        if rows_text is None:
            rows_text = "\n".join(" | ".join(graph_text(cell.text) for cell in row.values()) for row in output.rows)
        text += f"{counts}\n{rows_text}"
    else:
        text += f"{counts}\n"
    if output.diagnosis:
        text += f"\nwhy it is empty: {graph_text(output.diagnosis, 600)}"
    if output.earlier_sparql:
        text += f"\nan earlier result, not the answer:\n{output.earlier_sparql}"
    if output.evidence is not None:
        text += "\n" + evidence_text(output.evidence)
    if error:
        text += f"\nerror: {graph_text(error, 500)}"
    if output.resumable:
        text += f"\nResume with run_id={output.run_id!r}."
    return text


def fill_output(host: ToolHost, output: AskOutput, outcome: AskOutcome) -> None:
    """Copy a finished (or stopped) run's outcome, query, typed rows and steps into ``output``, capped.

    The counts, columns and steps are the run's own (its outcome and state); the rows listed
    are cut to fit the size cap, and ``rows_shown`` says how many are listed in both channels.
    """
    run = outcome.outcome
    output.sparql = outcome.sparql
    _, output.rows, output.boolean = rows_of(outcome.answers)
    # The columns are the run's answer's (its state), listed for an empty answer too, as saga ask lists them.
    output.variables = list(outcome.variables)
    del output.rows[run.rows.total :]
    output.status = run.status
    output.reason = run.reason
    output.message = run.message
    output.row_count = run.rows.total
    output.rows_cut = run.rows.truncated
    output.diagnosis = run.diagnosis
    output.earlier_sparql = run.earlier.sparql if run.earlier is not None else None
    output.resumable = run.reason in ("run_deadline", "cancelled")
    output.steps = outcome.steps
    output.evidence = outcome.evidence
    # The evidence gets at most half the cap, so it never pushes the answer rows out.
    cap_evidence(output, host.max_chars // 2)
    cap_rows(output, "rows", host.max_chars)
    output.rows_shown = len(output.rows)


def _display_cells(rows: list[dict[str, TermOut]]) -> list[dict[str, str]]:
    """Rows for the readable view: an IRI by its value (to find its label), any other term as its pasteable text."""
    return [{var: cell.value if cell.kind == "iri" else cell.text for var, cell in row.items()} for row in rows]


def evidence_text(evidence: dict[str, Any]) -> str:
    """One line on the answer's evidence (the triples themselves are in the structured content)."""
    line = evidence_line(evidence, note=lambda note: graph_text(note, 200))
    return line + "; the supporting triples are in the structured content (evidence)"
