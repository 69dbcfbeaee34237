"""The ``worked_examples`` tool over MCP: the question-query pairs nearest to a question (issue 25).

Offered only when the operator configured an examples file (``SAGA_EXAMPLES_FILE``, built by
``saga index examples``), so a server without one lists the same tools as before. The
examples are the operator's: a host passes a question, never a file. This module does not
use postponed annotations: FastMCP reads the handler's annotations as objects.
"""

from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from saga_kgqa.errors import SagaError
from saga_kgqa.serve.mcp.models import ToolOutput
from saga_kgqa.serve.mcp.tooling import RETRY_NOTE, ToolHost, ToolSpec

#: The most examples one call may ask for.
MAX_K = 10


class ExampleOut(BaseModel):
    """One worked example."""

    question: str
    sparql: str
    origin: str = Field(description="Where the pair came from (graph:shacl, graph:spex, graph:shui, train:<name>).")
    result_count: int | None = None


class ExamplesOutput(ToolOutput):
    """The examples nearest to a question, best first."""

    question: str = ""
    examples: list[ExampleOut] = Field(default_factory=list)


def example_tools(host: ToolHost) -> list[ToolSpec]:
    """The ``worked_examples`` tool, when the operator configured examples; else none."""
    if not host.context.examples_file:
        return []

    async def worked_examples(
        question: Annotated[
            str, Field(description="The question to find examples for.", min_length=1, max_length=1000)
        ],
        ctx: Context[Any, Any],
        k: Annotated[int, Field(description=f"Examples to return, 1 to {MAX_K}.", ge=1, le=MAX_K)] = 3,
    ) -> Annotated[CallToolResult, ExamplesOutput]:
        output = ExamplesOutput(source=host.source_name(None), question=question)

        def run() -> Any:
            # The same function the controller's worked_examples tool calls.
            from saga_kgqa.examples.serving import examples_text, worked_examples

            chosen = worked_examples(host.context, question, k)
            return chosen, examples_text(chosen, host.context.max_observation_bytes)

        try:
            chosen, text = await anyio.to_thread.run_sync(run)
        except SagaError as exc:
            return host.failure(exc, output)
        output.examples = [
            ExampleOut(question=e.question, sparql=e.sparql, origin=e.source, result_count=e.result_count)
            for e in chosen
        ]
        return host.result(text or "No worked examples are configured for this server.", output)

    return [
        ToolSpec(
            "worked_examples",
            "Worked example queries",
            "Show question-query pairs published for the graph (or from a train split), nearest to the question "
            "first. They show the graph's vocabulary and query shapes; check every IRI with search or lookup "
            f"before using it.\n{RETRY_NOTE}",
            worked_examples,
        )
    ]
