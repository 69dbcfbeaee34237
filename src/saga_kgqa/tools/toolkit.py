"""The grounding toolkit: search, lookup and property examples over one graph and its schema index.

The agent graph and the MCP server wrap these methods as tools. Each returns a typed
result whose ``text`` is the capped, escaped observation for the model, whose
``model_dump()`` is the machine-readable form, and whose ``type_delta`` is the Θ update.
Errors stay typed: a bad argument raises :class:`~saga_kgqa.errors.ToolInputError`,
a store failure a :class:`~saga_kgqa.errors.BackendError`.
"""

from __future__ import annotations

from typing import Unpack

from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.schema import SchemaIndex
from saga_kgqa.state import TypeState
from saga_kgqa.tools.context import ToolContext, ToolOptions
from saga_kgqa.tools.lookup.tool import lookup_entity
from saga_kgqa.tools.results import LookupResult, PropertyExamplesResult, SearchResult
from saga_kgqa.tools.search.label_index import NameIndex
from saga_kgqa.tools.search.tool import property_examples, search_names


class GroundingToolkit:
    """Search, lookup and property examples, holding what they need."""

    def __init__(self, graph: KnowledgeGraph, schema: SchemaIndex, **options: Unpack[ToolOptions]) -> None:
        """Hold the graph, the schema index and the caps.

        Args:
            graph: The graph; the tools send it only bounded template queries.
            schema: The schema index (see :func:`saga_kgqa.schema.build_schema_index`).
            **options: How the tools read and name the graph (:class:`~saga_kgqa.tools.context.ToolOptions`:
                vocabulary, caps, compatibility mode, prefixes, name predicates, language, dialect,
                entity search).
        """
        self.context = ToolContext(graph, schema, **options)

    @property
    def prefixes(self) -> dict[str, str]:
        """The prefixes used for compact ids (and accepted in tool arguments)."""
        return dict(self.context.prefixes)

    @property
    def label_index(self) -> NameIndex:
        """The name index behind :meth:`search`, built from the graph on first use."""
        return self.context.label_index

    def search(self, text: str) -> SearchResult:
        """Find entities, classes and properties whose label, alias or name matches ``text``.

        Matches are exact, then prefix, then every word, then substring, then fuzzy.
        Entities show their types and description; properties their domain and range.

        Args:
            text: A name or part of one ("Karen Brant", "member of").

        Returns:
            Up to ``caps.entity_hits`` entities and classes and ``caps.property_hits``
            properties, best first. ``type_delta`` is empty: types enter Θ on lookup.

        Raises:
            BackendError: The graph failed while building the index or reading hits.
        """
        return search_names(self.context, text)

    def lookup(self, entity: str, *, type_state: TypeState | None = None, step: int | None = None) -> LookupResult:
        """Show an entity's types and its outgoing properties that fit those types.

        A property is hidden only when its known domain conflicts with every known type
        of the entity (declared types, plus pattern and trace types for it in
        ``type_state``); unknown domains are kept. Kept properties whose range fits the
        expected answer type in ``type_state`` are listed first.

        Args:
            entity: ``<iri>``, a prefixed name (``pv:Employee``) or an absolute IRI.
            type_state: The agent's Θ, if any.
            step: The agent step, recorded on the Θ evidence.

        Returns:
            The lookup; ``type_delta`` records the declared types, and
            ``needs_prune_fallback`` is set when no type is known at all.

        Raises:
            ToolInputError: ``entity`` is text, a literal, a blank node or has an unknown prefix.
            BackendError: The graph failed.
        """
        return lookup_entity(self.context, entity, type_state=type_state, step=step)

    def property_examples(self, prop: str) -> PropertyExamplesResult:
        """Show a property's schema and a few real triples that use it, labelled.

        Args:
            prop: The property as ``<iri>``, a prefixed name or an absolute IRI.

        Returns:
            The examples, or, when no triple uses it, properties with similar names.

        Raises:
            ToolInputError: ``prop`` is not an IRI.
            BackendError: The graph failed.
        """
        return property_examples(self.context, prop)
