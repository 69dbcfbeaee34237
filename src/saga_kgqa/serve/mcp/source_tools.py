"""The live-grounding source tools as MCP tools: catalog list/categories/find, summary, resolution, expansion, bridging.

They are the plain functions of :mod:`saga_kgqa.sources` (sources by catalog name only)
over one :class:`~saga_kgqa.sources.session.SourceSet` per server, opened lazily: a source
is opened, surveyed and indexed on its first use. This module does not use postponed
annotations: MCPServer reads the handlers' annotations as objects to build each tool's schemas.
"""

import logging
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from saga_kgqa.config.catalog import UnknownName
from saga_kgqa.errors import ConfigurationError, SagaError, SourceMisbehaved, ToolInputError
from saga_kgqa.serve.mcp.models import ToolOutput, cap_rows
from saga_kgqa.serve.mcp.source_models import (
    BridgeOutput,
    CatalogListOutput,
    CategoriesOutput,
    ExpansionOutput,
    FindOutput,
    ResolutionOutput,
    SummaryOutput,
)
from saga_kgqa.serve.mcp.tooling import LISTED_SOURCES, RETRY_NOTE, ToolHost, ToolSpec
from saga_kgqa.sources.catalog_search import catalog_text, find_sources, list_categories, list_sources
from saga_kgqa.sources.grounding import bridge_sources, expand_entity, resolve_entity, source_summary
from saga_kgqa.sources.resolution import render_resolution
from saga_kgqa.text_safety import graph_text

logger = logging.getLogger(__name__)
T = TypeVar("T")


class SourceCalls:
    """The server's sources for these tools, and the error conventions of a call on them."""

    def __init__(self, host: ToolHost) -> None:
        """Open nothing yet: each source is opened on its first call."""
        self.host = host
        self.sources = host.source_set()

    def name(self, source: str | None) -> str:
        """The resolved source name (a tool error listing the valid names for an unknown one)."""
        return self.host.source_name(source)

    def redact(self, text: str) -> str:
        """``text`` with every source's location replaced by its name (a bridge names two sources)."""
        for name in self.host.sources.names:
            text = self.host.redact(text, name)
        return text

    async def run(self, call: Callable[[], T], output: ToolOutput) -> T | CallToolResult:
        """Run ``call`` in a worker thread; a failing graph becomes an error payload, a bad argument a tool error.

        Raises:
            ToolError: A bad argument (with a hint), an unknown source, or a source that cannot be opened.
        """
        try:
            return await anyio.to_thread.run_sync(call)
        except UnknownName as exc:
            raise ToolError(f"{exc.message}. Hint: pass one of {', '.join(self.host.sources.names)}.") from None
        except ToolInputError as exc:
            return self.host.failure(exc, output)  # raises the tool error with its hint
        except ConfigurationError as exc:
            # The message may name the operator's paths or URLs: it goes to the server's log, not the caller.
            logger.warning("source %r cannot be used: %s", output.source, exc.message)
            raise ToolError(
                f"source {output.source!r} cannot be opened ({type(exc).__name__}; the server's log says why); "
                "retrying will not help."
            ) from None
        except SagaError as exc:
            exc.message = self.redact(exc.message)
            return self.host.failure(exc, output)
        except (ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
            # Something read from the source was not what it should be: that source failed, not the server.
            logger.warning("source %r answered with something unreadable", output.source, exc_info=True)
            misbehaved = SourceMisbehaved(
                f"source {output.source!r} answered with something saga could not read ({type(exc).__name__}); "
                "other sources are unaffected"
            )
            return self.host.failure(misbehaved, output)

    def result(self, text: str, output: ToolOutput, *lists: str) -> CallToolResult:
        """The capped text beside the structured output, its ``lists`` cut (last first) to fit the cap."""
        for field in reversed(lists):
            cap_rows(output, field, self.host.max_chars)
        return self.host.result(self.redact(text), output)


def shared_calls(host: ToolHost) -> SourceCalls:
    """The host's one :class:`SourceCalls`, so every tool set opens (and surveys) each source once.

    Tool sets are built once, in one thread, when the server starts.
    """
    found = host.__dict__.get("_source_calls")
    if not isinstance(found, SourceCalls):
        found = SourceCalls(host)
        host.__dict__["_source_calls"] = found
    return found


def source_tools(host: ToolHost) -> list[ToolSpec]:
    """The seven source tools over ``host``'s catalog."""
    calls = shared_calls(host)
    names = host.sources.names
    Source = Annotated[str | None, host.source_field()]
    listed = f"one of: {', '.join(names)}" if len(names) <= LISTED_SOURCES else "see kg_catalog_list"
    Named = Annotated[str, Field(description=f"Source name, {listed}.", json_schema_extra={"enum": names})]
    listing = host.source_listing()
    open_world = host.sources.any_remote

    async def catalog_list(ctx: Context[Any, Any]) -> Annotated[CallToolResult, CatalogListOutput]:
        output = CatalogListOutput(source=host.sources.default)
        got = await calls.run(lambda: list_sources(calls.sources), output)
        if isinstance(got, CallToolResult):
            return got
        output.sources = got
        return calls.result(catalog_text(got) or "no sources", output, "sources")

    async def catalog_categories(ctx: Context[Any, Any]) -> Annotated[CallToolResult, CategoriesOutput]:
        output = CategoriesOutput(source=host.sources.default)
        got = await calls.run(lambda: list_categories(calls.sources), output)
        if isinstance(got, CallToolResult):
            return got
        output.categories = got
        lines = [f"{graph_text(c.category)}: {', '.join(c.sources)}" for c in got]
        return calls.result("\n".join(lines) or "no categories configured", output, "categories")

    async def catalog_find(
        text: Annotated[str, Field(description="Words of the question or topic.", min_length=1, max_length=300)],
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, FindOutput]:
        output = FindOutput(source=host.sources.default, query=text)
        got = await calls.run(lambda: find_sources(calls.sources, text), output)
        if isinstance(got, CallToolResult):
            return got
        output.found = got
        lines = [f"{f.entry.name} (score {f.score:g}): {graph_text(f.entry.title)}" for f in got]
        shown = "\n".join(lines) or "no source matches these words; catalog_list shows them all"
        return calls.result(shown, output, "found")

    async def summary(
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, SummaryOutput]:
        name = calls.name(source)
        output = SummaryOutput(source=name)
        got = await calls.run(lambda: source_summary(calls.sources, name), output)
        if isinstance(got, CallToolResult):
            return got
        output = SummaryOutput(
            source=name,
            title=got.title,
            description=got.description,
            declared_schema=got.declared_schema,
            built_at=got.built_at,
            graphs=list(got.graphs),
            named_graphs=list(got.named_graphs),
            coverage=list(got.coverage),
            classes=list(got.classes),
        )
        return calls.result(got.text, output, "classes")

    async def resolve(
        text: Annotated[
            str,
            Field(
                description="A name, part of one, or an identifier (P12345, GO:0008150).", min_length=1, max_length=300
            ),
        ],
        ctx: Context[Any, Any],
        source: Source = None,
        language: Annotated[
            str | None,
            Field(
                description="The question's language (BCP 47: de, es, pt-BR): names in it rank first, then "
                "untagged names, then others. Default: the source's.",
                pattern=r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$",
                max_length=35,
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ResolutionOutput]:
        name = calls.name(source)
        output = ResolutionOutput(source=name, query=text)
        got = await calls.run(lambda: resolve_entity(calls.sources, name, text, language=language), output)
        if isinstance(got, CallToolResult):
            return got
        output.candidates = list(got.candidates)
        output.index_size = got.index_size
        output.engine = got.engine
        output.notes = [graph_text(note) for note in got.notes[:5]]
        return calls.result(render_resolution(got), output, "candidates")

    async def expand(
        entity: Annotated[
            str, Field(description="Entity id as resolve_entity or search printed it: prefix:local, <http://...>")
        ],
        ctx: Context[Any, Any],
        source: Source = None,
    ) -> Annotated[CallToolResult, ExpansionOutput]:
        name = calls.name(source)
        output = ExpansionOutput(source=name, entity=entity)
        got = await calls.run(lambda: expand_entity(calls.sources, name, entity), output)
        if isinstance(got, CallToolResult):
            return got
        output.entity = got.entity
        output.types = list(got.types)
        output.paths = list(got.paths)
        output.hidden = list(got.hidden)
        output.notes = [graph_text(note) for note in got.notes[:5]]
        return calls.result(got.text, output, "hidden", "paths")

    async def bridge(
        left: Named,
        right: Named,
        ctx: Context[Any, Any],
    ) -> Annotated[CallToolResult, BridgeOutput]:
        left_name, right_name = calls.name(left), calls.name(right)
        output = BridgeOutput(source=left_name, right=right_name)
        got = await calls.run(lambda: bridge_sources(calls.sources, left_name, right_name), output)
        if isinstance(got, CallToolResult):
            return got
        output.candidates = list(got.candidates)
        output.notes = [graph_text(note) for note in got.notes[:5]]
        return calls.result(got.text, output, "candidates")

    return [
        ToolSpec(
            "catalog_list",
            "List the sources",
            "List every knowledge-graph source of the operator's catalog: name, title, description, categories "
            "(derived from a bounded survey where the operator gave none; the first call may survey them). "
            f"Pass a name to the other tools' source argument.\n{listing}\n{RETRY_NOTE}",
            catalog_list,
            open_world=open_world,
        ),
        ToolSpec(
            "catalog_categories",
            "List source categories",
            f"List the catalog's categories, each with the names of its sources.\n{listing}\n{RETRY_NOTE}",
            catalog_categories,
        ),
        ToolSpec(
            "catalog_find",
            "Find sources",
            "Rank the sources for a question or topic by its words in their titles, descriptions, categories and "
            "surveyed class and property names. An empty list means no source shares a word: use catalog_list, "
            f"do not resend the same text.\n{listing}\n{RETRY_NOTE}",
            catalog_find,
            open_world=open_world,
        ),
        ToolSpec(
            "source_summary",
            "Summarise a source",
            "Show what is needed to query one source: its classes with instance counts, each class's predicates "
            "with object kinds, types and examples, its named graphs, a checked example query per class, and what "
            "the bounded survey did not cover (a class missing here may still exist). Cached after the first "
            f"call.\n{listing}\n{RETRY_NOTE}",
            summary,
            open_world=open_world,
        ),
        ToolSpec(
            "resolve_entity",
            "Resolve a name to IRIs",
            "Find the IRIs a name, part of a name or an identifier refers to in one source (labels, aliases, "
            "name-like and identifier literals; identifier forms folded), best first, each with its classes. No "
            f"candidate: try another spelling or a shorter name, not the same text.\n{listing}\n{RETRY_NOTE}",
            resolve,
            open_world=open_world,
        ),
        ToolSpec(
            "expand_entity",
            "Expand an entity",
            "Show an entity's outgoing and incoming relation paths in one source, one hop further through blank "
            "and untyped intermediate nodes; properties whose domain (or range, for incoming paths) conflicts with "
            f"the entity's types are listed as hidden.\n{listing}\n{RETRY_NOTE}",
            expand,
            open_world=open_world,
        ),
        ToolSpec(
            "bridge_sources",
            "Find joins between two sources",
            "Find candidate joins from the left source to the right one: the same IRIs, shared identifier values, "
            "shared property IRIs (strongest first), each with sampled evidence and a two-step plan (a query on "
            "each source, joined by you: federated SERVICE queries are rejected). A candidate is a hypothesis: "
            f"run the plan and inspect the rows.\n{listing}\n{RETRY_NOTE}",
            bridge,
            open_world=open_world,
        ),
    ]
