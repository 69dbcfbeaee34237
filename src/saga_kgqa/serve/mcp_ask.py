"""The ``ask`` MCP tool: the whole SAGA agent answers a question, offered only when a model is configured.

Heavy: each call runs the LangGraph agent (model calls, tool calls) in a worker thread,
under a wall-clock budget checked between the graph's steps.
"""

from dataclasses import replace
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.fastmcp import Context
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.app.caller import CallerModelFactory, CallerToolboxFactory
from saga_kgqa.errors import SagaError
from saga_kgqa.eval.qa.agent_answerer import AgentAnswerer
from saga_kgqa.eval.qa.predictions import PredictionRecord
from saga_kgqa.eval.qa.questions import BenchmarkQuestion
from saga_kgqa.graph.answer_view import readable_rows
from saga_kgqa.graph.builder import build_graph
from saga_kgqa.serve.mcp_models import AskOutput, cap_rows
from saga_kgqa.serve.mcp_tooling import RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.sources.catalog import UnknownName
from saga_kgqa.tools.text_safety import graph_text


def answer_rows(answers: dict[str, Any] | None) -> tuple[list[str], list[dict[str, str]], bool | None]:
    """Variables, rows (values only) and the ASK boolean of a SPARQL JSON result."""
    if not answers:
        return [], [], None
    if "boolean" in answers:
        return [], [], bool(answers["boolean"])
    variables = [str(v) for v in answers.get("head", {}).get("vars", [])]
    bindings = answers.get("results", {}).get("bindings", [])
    rows = [{var: str(cell.get("value", "")) for var, cell in row.items()} for row in bindings]
    return variables, rows, None


def ask_tools(host: ToolHost) -> list[ToolSpec]:
    """The ``ask`` tool, or nothing when the server has no model."""
    if not host.with_model:
        return []
    catalog = host.sources.catalog
    names = host.sources.names
    source_doc = f"Source name, one of: {', '.join(names)} (default {host.sources.default})."
    Source = Annotated[str | None, Field(description=source_doc, json_schema_extra={"enum": [*names, None]})]
    models = sorted(catalog.models)
    model_doc = (
        f"Model name, one of: {', '.join(models)} (default {catalog.default_model or models[0]})."
        if models
        else "Leave unset: the operator configured one model."
    )
    Model = Annotated[str | None, Field(description=model_doc, json_schema_extra={"enum": [*models, None]})]
    graph = build_graph(model_factory=CallerModelFactory(catalog), toolbox_factory=CallerToolboxFactory(catalog))

    async def ask(
        question: Annotated[str, Field(description="A question in natural language.", min_length=1, max_length=2000)],
        ctx: Context[Any, Any, Any],
        source: Source = None,
        model: Model = None,
    ) -> Annotated[CallToolResult, AskOutput]:
        name = host.source_name(source)
        try:
            catalog.model(model)
        except UnknownName as exc:
            raise ToolError(f"{exc.message}. Hint: omit model or pass a configured one.") from None
        host.session(ctx).begin(name)
        view = await host.view(name)  # opens the source, or says why it cannot be
        context = replace(host.run_context(), source=name, model=model or "")
        answerer = AgentAnswerer(graph, context, view.graph, max_seconds=host.ask_seconds)
        output = AskOutput(source=name, question=question)
        try:
            record: PredictionRecord = await anyio.to_thread.run_sync(
                answerer, BenchmarkQuestion(id="mcp:ask", benchmark="mcp", question=question)
            )
        except SagaError as exc:
            return host.failure(exc, output)
        output.sparql = record.predicted_sparql
        output.variables, output.rows, output.boolean = answer_rows(record.predicted_answers)
        output.status = str(record.status)
        output.steps = sum(record.trace.actions.values())
        cap_rows(output, "rows", host.max_chars)
        shown = None
        if output.boolean is None:
            # Each IRI as "Label (short)"; the structured rows keep the exact IRIs.
            shown = await anyio.to_thread.run_sync(readable_rows, view, output.variables, output.rows, context.language)
        return host.result(ask_text(output, record.error, shown), output, is_error=record.predicted_sparql is None)

    return [
        ToolSpec(
            "ask",
            "Answer a question (whole agent)",
            "Answer a question with the whole SAGA agent: it searches, looks up, checks and runs queries itself "
            "and returns its final SPARQL and the answer rows. Slow (many model calls); use the other tools to "
            f"ground a query yourself. Status other than 'answered' means it found no confident query; asking the "
            f"same again rarely helps.\nSources:\n{host.sources.describe()}\n{RETRY_NOTE}",
            ask,
            read_only=True,
            open_world=True,
        )
    ]


def ask_text(output: AskOutput, error: str | None, rows_text: str | None = None) -> str:
    """The text content of an ``ask`` result: status, query, and the answer rows as cleaned one-line cells.

    Each cell is graph text (a value cannot add lines, tags or bidi overrides to the table). ``rows_text``:
    the rows as :func:`~saga_kgqa.graph.answer_view.readable_rows` shows them (labels and short names).
    """
    text = f"status: {output.status}\nSPARQL:\n{output.sparql or '(none)'}\n"
    if output.boolean is not None:
        text += f"answer: {str(output.boolean).lower()}\n"
    elif rows_text is not None:
        text += f"{len(output.rows)} row(s)\n{rows_text}"
    else:
        rows = (" | ".join(graph_text(str(value)) for value in row.values()) for row in output.rows[:20])
        text += f"{len(output.rows)} row(s)\n" + "\n".join(rows)
    if error:
        text += f"\nerror: {graph_text(error, 500)}"
    return text
