"""Which graph dialect a run's tools speak, which schema index they read, and how they search names.

The context's ``dialect`` (``generic``, ``wikidata``, ``freebase``) picks the grounding
tools' :class:`~saga_kgqa.dialects.Dialect`: its type vocabulary (Wikidata's P31/P279,
Freebase's ``type.object.type``), which predicates are properties, qualifiers and CVT
nodes. When no dialect is given, a Wikidata endpoint profile implies the Wikidata dialect,
and a benchmark implies the graph it was written for. The schema index is a saved file,
else the dialect's own index built from offline sources, else one built from the graph
with induction (under the dialect's vocabulary). Online entity search is off unless the
operator turns it on; its URL is configuration, never the model's choice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from saga_kgqa.config.context import WIKIDATA_PROFILES, DialectName, EntitySearch
from saga_kgqa.dialects import Dialect, get_dialect
from saga_kgqa.errors import ConfigurationError
from saga_kgqa.schema import SchemaVocabulary

if TYPE_CHECKING:
    # The HTTP stack loads only when the operator turns online search on (saga lookup starts without it).
    from saga_kgqa.kg.remote.wikidata_search import WikidataEntitySearch

ENTITY_SEARCH_KINDS: tuple[str, ...] = get_args(EntitySearch)

#: Benchmarks by the graph they were written for (the rest run on their own RDF graphs).
_BENCHMARK_PREFIXES: tuple[tuple[str, DialectName], ...] = (
    ("qald7-", "wikidata"),
    ("qald10", "wikidata"),
    ("qald9plus-", "wikidata"),
    ("wwq-", "wikidata"),
    ("spinach-", "wikidata"),
    ("lcquad2", "wikidata"),
    ("cwq-", "freebase"),
    ("grailqa-", "freebase"),
    ("webqsp", "freebase"),
    ("webquestions-", "freebase"),
)


def dialect_implied_by_profile(profile: str | None) -> DialectName | None:
    """The dialect an endpoint profile implies (``wikidata`` for the Wikidata profiles), or ``None``."""
    return "wikidata" if profile in WIKIDATA_PROFILES else None


def benchmark_dialect(benchmark: str) -> DialectName:
    """The dialect of the graph a benchmark was written for (``generic`` for the RDF benchmarks)."""
    for prefix, dialect in _BENCHMARK_PREFIXES:
        if benchmark.startswith(prefix):
            return dialect
    return "generic"


def tool_dialect(name: DialectName) -> Dialect | None:
    """The grounding tools' dialect for a context dialect name; ``None`` for ``generic``.

    ``None`` keeps plain RDF's behaviour: the tools take their type predicates from the
    schema index rather than from a fixed vocabulary.

    Raises:
        ConfigurationError: Unknown name.
    """
    return None if name == "generic" else get_dialect(name)


def open_entity_search(kind: str, *, url: str | None = None) -> WikidataEntitySearch | None:
    """The online entity search the operator turned on, or ``None`` (``off``: search the graph's names).

    ``url`` is the MediaWiki API asked (Wikidata's by default). The User-Agent names the operator from ``$SAGA_CONTACT``
    (:func:`~saga_kgqa.kg.remote.endpoint.build_user_agent`).

    Raises:
        ConfigurationError: Unknown kind, or an unusable URL or contact.
    """
    if kind not in ENTITY_SEARCH_KINDS:
        raise ConfigurationError(f"unknown entity search {kind!r}; known: {', '.join(ENTITY_SEARCH_KINDS)}")
    if kind == "off":
        return None
    from saga_kgqa.kg.remote.wikidata_search import WIKIDATA_API, WikidataEntitySearch

    return WikidataEntitySearch(url or WIKIDATA_API)


def schema_vocabulary(dialect: Dialect | None) -> SchemaVocabulary | None:
    """The vocabulary to build a schema index under: the dialect's, or the builder's RDFS default."""
    return dialect.vocabulary if dialect is not None else None
