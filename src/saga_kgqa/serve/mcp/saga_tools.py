"""The SAGA grounding tools as MCP tools: search, lookup (type-filtered by the session's Θ), examples, execute.

The handlers are built inside :func:`saga_tools` so their parameter descriptions can list
the configured source names. This module does not use postponed annotations: MCPServer reads
the handlers' annotations as objects to build each tool's input and output schema.
"""

from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.errors import SagaError
from saga_kgqa.serve.mcp.models import (
    BlockedOut,
    ExampleOut,
    ExamplesOutput,
    ExecuteOutput,
    LookupOutput,
    PropertyOut,
    SearchHitOut,
    SearchOutput,
    UpstreamFailure,
    cap_rows,
)
from saga_kgqa.serve.mcp.terms import row_out
from saga_kgqa.serve.mcp.tooling import RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.tools.execute.tool import ExecuteSettings
from saga_kgqa.tools.results import Ref, Value


def _ref(ref: Ref) -> str:
    return ref.id or ref.iri


def _value(value: Value) -> str:
    if value.kind == "literal":
        return value.value
    return value.id or value.value


def saga_tools(host: ToolHost) -> list[ToolSpec]:
    """The four SAGA tools over ``host``'s sources."""
    Source = Annotated[str | None, host.source_field()]
    listing = host.source_listing()
    open_world = host.sources.any_remote

    async def search(
        text: Annotated[str, Field(description="A name or part of one.", min_length=1, max_length=300)],
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        name = host.source_name(source)
        host.session(ctx).begin(name)
        view = await host.view(name)
        output = SearchOutput(source=name, query=text)
        try:
            result = await anyio.to_thread.run_sync(view.search, text)
        except SagaError as exc:
            return host.failure(exc, output)
        output.hits = [
            SearchHitOut(
                kind=hit.kind,
                id=_ref(hit.resource),
                label=hit.resource.label,
                matched=hit.matched,
                match=str(hit.match),
                score=hit.score,
                description=hit.description,
            )
            for hit in result.hits
        ]
        cap_rows(output, "hits", host.max_chars)
        return host.result(result.text, output)

    async def lookup(
        entity: Annotated[
            str, Field(description="Entity id as search printed it: prefix:local, <http://...> or http://...")
        ],
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, LookupOutput]:
        name = host.source_name(source)
        session = host.session(ctx)
        theta, step = session.begin(name)
        view = await host.view(name)
        output = LookupOutput(source=name, entity=entity)
        try:
            result = await anyio.to_thread.run_sync(lambda: view.lookup(entity, theta=theta, step=step))
        except SagaError as exc:
            return host.failure(exc, output)
        known = session.learn(name, result.type_delta)
        output.entity = _ref(result.entity)
        output.label = result.entity.label
        output.found = result.found
        output.types = [_ref(t) for t in result.types]
        output.properties = [
            PropertyOut(
                id=_ref(kept.info.property),
                label=kept.info.property.label,
                domain=[_ref(r) for r in kept.info.domain],
                range=[_ref(r) for r in kept.info.range],
                value_count=kept.value_count,
            )
            for kept in result.kept
        ]
        output.hidden = [_ref(h.info.property) for h in result.hidden]
        output.session_types_known = known
        cap_rows(output, "hidden", host.max_chars)
        cap_rows(output, "properties", host.max_chars)
        return host.result(result.text, output)

    async def examples(
        property: Annotated[str, Field(description="Property id: prefix:local, <http://...> or http://...")],
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, ExamplesOutput]:
        name = host.source_name(source)
        host.session(ctx).begin(name)
        view = await host.view(name)
        output = ExamplesOutput(source=name, property=property)
        try:
            result = await anyio.to_thread.run_sync(view.examples, property)
        except SagaError as exc:
            return host.failure(exc, output)
        output.property = _ref(result.info.property)
        output.label = result.info.property.label
        output.found = result.found
        output.domain = [_ref(r) for r in result.info.domain]
        output.range = [_ref(r) for r in result.info.range]
        output.examples = [ExampleOut(subject=_value(e.subject), object=_value(e.object)) for e in result.examples]
        cap_rows(output, "examples", host.max_chars)
        return host.result(result.text, output)

    async def execute(
        sparql: Annotated[
            str, Field(description="One read-only SPARQL SELECT or ASK query.", min_length=1, max_length=20_000)
        ],
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, ExecuteOutput]:
        name = host.source_name(source)
        session = host.session(ctx)
        theta, step = session.begin(name)
        view = await host.view(name)
        settings = ExecuteSettings(
            max_rows_shown=host.context.max_rows_shown,
            max_bytes=min(host.context.max_observation_bytes, host.max_chars),
        )
        outcome = await anyio.to_thread.run_sync(
            lambda: view.execute(sparql, theta=theta, step=step, settings=settings)
        )
        session.learn(name, outcome.theta_delta)
        output = ExecuteOutput(
            source=name,
            status=outcome.status,
            variables=list(outcome.variables),
            row_count=outcome.row_count,
            boolean=outcome.boolean,
            blocked=[BlockedOut(pattern=b.pattern, side=b.side, reason=b.reason) for b in outcome.blocked]
            + [
                BlockedOut(
                    pattern=v.pattern, side="pattern", reason=v.reason, kind="matches_nothing", instead=list(v.instead)
                )
                for v in outcome.vacuous
            ],
            diagnosis=outcome.diagnosis.message if outcome.diagnosis is not None else None,
        )
        if outcome.result is not None:
            output.rows = [row_out(row) for row in outcome.result.rows[: host.context.max_rows_shown]]
        if outcome.status == "rejected" and outcome.error is not None:
            output.problem = outcome.error.message
        elif outcome.status == "error" and outcome.error is not None:
            error = outcome.error
            output.error = UpstreamFailure(
                kind=error.kind, message=error.message, query_at_fault=error.query_at_fault, retryable=error.retryable
            )
        cap_rows(output, "rows", host.max_chars)
        return host.result(outcome.text, output, is_error=outcome.status in ("rejected", "error"))

    return [
        ToolSpec(
            "search",
            "Search names",
            "Find entities, classes and properties of a knowledge graph by label, alias or name "
            "(exact, prefix, fuzzy). Returns hits best first, each with the id to pass to lookup, "
            "examples or a query. An empty hit list means no name matches: try a shorter or other wording, "
            f"not the same text again.\n{listing}\n{RETRY_NOTE}",
            search,
            open_world=open_world,
        ),
        ToolSpec(
            "lookup",
            "Look up an entity",
            "Show an entity's types and the properties that fit them (with domains, ranges and sample values); "
            "properties whose domain conflicts with the types are listed as hidden. The types found are kept "
            "for this session (Θ): a later execute that uses a property against them is blocked before it runs. "
            f"Pass ids as search printed them.\n{listing}\n{RETRY_NOTE}",
            lookup,
            open_world=open_world,
        ),
        ToolSpec(
            "examples",
            "Property examples",
            "Show a property's domain and range and a few triples that use it. Pass a property id as search or "
            f"lookup printed it.\n{listing}\n{RETRY_NOTE}",
            examples,
            open_world=open_world,
        ),
        ToolSpec(
            "execute",
            "Run a SPARQL query",
            "Run one read-only SPARQL SELECT or ASK query. It passes the read-only guard (updates, SERVICE and "
            "unbounded queries are rejected: status 'rejected', do not resend), then a type check against the "
            "types this session learnt (status 'blocked' names the conflicting pattern: change the query). "
            "Returns rows (capped), an ASK boolean, or for an empty result a diagnosis of the pattern that "
            f"matched nothing.\n{listing}\n{RETRY_NOTE}",
            execute,
            open_world=open_world,
        ),
    ]
