"""What ``saga mcp`` offers beside its tools: resources, prompts and completions, each with content.

* Resources: ``saga://catalog`` (every source: name, title, categories, description) and
  ``saga://sources/{name}/summary`` for each source (its schema summary: classes with
  counts, their predicates; surveyed on the first read).
* A prompt, ``grounded_question``, that starts a grounded question on a source: it tells the
  model which tools to use in which order, and never to invent IRIs.
* Completions of source names, for the prompt's ``source`` argument and the summary template.
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.prompts.base import Prompt, UserMessage
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from saga_kgqa.errors import SagaError
from saga_kgqa.serve.mcp.tooling import CATALOG_URI, ToolHost
from saga_kgqa.sources.catalog_search import catalog_text, list_sources
from saga_kgqa.sources.grounding import source_summary

#: The summary resource of a source.
SUMMARY_TEMPLATE = "saga://sources/{name}/summary"
PROMPT_NAME = "grounded_question"
#: Completion values returned at most (the spec's cap is 100).
MAX_COMPLETIONS = 100


def add_content(server: MCPServer[Any], host: ToolHost) -> None:
    """Add the resources, the prompt and the completions to ``server``."""

    def catalog() -> str:
        return catalog_text(list_sources(host.source_set(), survey_missing=False)) or "no sources"

    server.add_resource(
        FunctionResource(
            uri=CATALOG_URI,
            name="catalog",
            title="The knowledge-graph sources",
            description="Every source of the operator's catalog: name, title, categories, description.",
            mime_type="text/markdown",
            fn=catalog,
        )
    )
    for name in host.sources.names:
        server.add_resource(
            FunctionResource(
                uri=SUMMARY_TEMPLATE.format(name=name),
                name=f"{name}-summary",
                title=f"Schema summary of {name}",
                description=f"What is needed to query {name}: classes with counts and their predicates.",
                mime_type="text/markdown",
                fn=summary_reader(host, name),
            )
        )
    server.add_prompt(
        Prompt.from_function(
            _grounded_prompt(host),
            name=PROMPT_NAME,
            title="Ask a grounded question",
            description="Start a question on one knowledge-graph source, answered with the kg_ tools "
            "(search, lookup, patterns, execute) and never with invented IRIs.",
        )
    )
    _add_completions(server, host)


def summary_reader(host: ToolHost, name: str) -> Any:
    """The async reader of one source's summary resource (surveyed on the first read, redacted to names)."""

    async def read() -> str:
        def summarise() -> str:
            return host.redact(source_summary(host.source_set(), name).text, name)

        try:
            return await anyio.to_thread.run_sync(summarise)
        except SagaError as exc:
            raise ResourceError(f"source {name!r} cannot be summarised ({type(exc).__name__})") from None

    return read


def _grounded_prompt(host: ToolHost) -> Any:
    names = host.sources.names

    def grounded_question(question: str, source: str = "") -> list[UserMessage]:
        try:
            chosen = host.source_name(source or None)
        except ToolError as exc:
            raise MCPError(code=INVALID_PARAMS, message=str(exc)) from None
        return [
            UserMessage(
                f"Answer this question from the knowledge graph '{chosen}' (pass source=\"{chosen}\" to every "
                "kg_ tool):\n\n"
                f"{question}\n\n"
                "Ground every name before using it: kg_search for the entities, classes and properties the "
                "question mentions, kg_lookup (or kg_patterns) on the entities found to see which properties fit "
                "them, then kg_execute one read-only SPARQL query built only from ids those tools printed. If the "
                "result is empty or blocked, read why and change the query. Answer with the rows and the final "
                f"query. The resource saga://sources/{chosen}/summary shows the graph's classes and predicates."
            )
        ]

    grounded_question.__doc__ = f"A grounded question on one of: {', '.join(names)}."
    return grounded_question


def _add_completions(server: MCPServer[Any], host: ToolHost) -> None:
    @server.completion()  # type: ignore[untyped-decorator, no-untyped-call]
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        if argument.name not in ("source", "name"):
            return None
        prefix = argument.value.lower()
        matches = [n for n in host.sources.names if n.lower().startswith(prefix)]
        return Completion(values=matches[:MAX_COMPLETIONS], total=len(matches), has_more=len(matches) > MAX_COMPLETIONS)

    del complete  # registered by the decorator
