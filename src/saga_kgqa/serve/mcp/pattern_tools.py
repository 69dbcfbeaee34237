"""The ``patterns`` tool over MCP: an entity's triple patterns ranked for a question, type-filtered like lookup.

It is the SAGA controller's ``patterns(entity)`` (:func:`saga_kgqa.tools.patterns.tool.patterns_tool`):
MARS's ranked, enriched patterns, with a property hidden when its domain (outgoing) or range
(incoming) conflicts with the entity's types -- the declared ones and those this MCP session
learnt (Θ). A host has no run question, so it passes the question the patterns are ranked for.
The ranking is the operator's (``SAGA_PATTERN_RANKING``, default the in-process MiniLM of the
``patterns`` extra), imported on the first call only. This module does not use postponed
annotations: MCPServer reads the handler's annotations as objects.
"""

from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.errors import SagaError
from saga_kgqa.serve.mcp.models import PatternOut, PatternsOutput, cap_rows
from saga_kgqa.serve.mcp.tooling import RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.tools.render import iri_text

#: The most patterns one call may ask for (each is a line of the observation).
MAX_TOP_N = 50


def pattern_tools(host: ToolHost) -> list[ToolSpec]:
    """The ``patterns`` tool over ``host``'s sources; none where the operator's ranking cannot run here."""
    from saga_kgqa.tools.patterns.configured import ranking_unavailable  # with the tools, as run() below

    if ranking_unavailable(host.context) is not None:
        return []  # listed only when it can answer (an install without the patterns extra)
    Source = Annotated[str | None, host.source_field()]
    listing = host.source_listing()
    default_top_n = min(host.context.mars_top_n, MAX_TOP_N)

    async def patterns(
        entity: Annotated[
            str, Field(description="Entity id as search printed it: prefix:local, <http://...> or http://...")
        ],
        question: Annotated[
            str, Field(description="The question the patterns are ranked for.", min_length=1, max_length=1000)
        ],
        ctx: Context[Any, Any],
        source: Source = None,
        top_n: Annotated[
            int | None,
            Field(description=f"Patterns to show, 1 to {MAX_TOP_N} (default {default_top_n}).", ge=1, le=MAX_TOP_N),
        ] = None,
    ) -> Annotated[CallToolResult, PatternsOutput]:
        name = host.source_name(source)
        theta, _step = host.session(ctx).begin(name)
        view = await host.view(name)
        output = PatternsOutput(source=name, entity=entity, question=question)

        def run() -> Any:
            # Here, not at import: the embedding runtime loads only when a host asks for patterns.
            from saga_kgqa.tools.patterns.configured import configured_ranking

            return view.patterns(
                entity,
                question=question,
                theta=theta,
                ranking=configured_ranking(host.context),
                top_n=top_n or default_top_n,
            )

        try:
            result = await anyio.to_thread.run_sync(run)
        except SagaError as exc:
            return host.failure(exc, output)
        output.entity = iri_text(result.entity, view.prefixes)
        output.types = sorted(iri_text(t, view.prefixes) for t in result.types)
        output.patterns = [
            PatternOut(property=p.property_id, label=p.property_label, direction=p.direction, count=p.count)
            for p in result.shown
        ]
        output.hidden = sorted({p.property_id for p in result.hidden})
        cap_rows(output, "hidden", host.max_chars)
        cap_rows(output, "patterns", host.max_chars)
        return host.result(result.text, output)

    return [
        ToolSpec(
            "patterns",
            "Ranked triple patterns",
            "Show an entity's triple patterns, outgoing ('entity' 'property' ?value) and incoming "
            "(?subject 'property' 'entity'), ranked by similarity to the question, each with its count, a few "
            "instances and the property's domain and range. Properties whose domain or range conflicts with the "
            "entity's types (declared, or learnt this session) are hidden and listed, as lookup hides them. "
            "An empty list means the entity has no triples: check the id with search, do not resend it. "
            f"Pass ids as search printed them.\n{listing}\n{RETRY_NOTE}",
            patterns,
            open_world=host.sources.any_remote,
        )
    ]
