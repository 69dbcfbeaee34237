"""Endpoint profiles: what differs between the stores saga-kgqa talks to.

A profile is data, not a subclass: predeclared prefixes, which SERVICE IRIs are
allowed, how many requests may run at once, the server's own deadline and how to read
its error signals (on QLever an HTTP 429 means "your query timed out", on WDQS it
means "slow down"). The LLM never picks a profile's URL; operators configure it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from saga_kgqa.errors import ConfigurationError

ProfileName = Literal["generic", "embedded", "wikidata", "qlever", "virtuoso", "fuseki"]

COMMON_PREFIXES: dict[str, str] = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
}

WIKIDATA_PREFIXES: dict[str, str] = {
    **COMMON_PREFIXES,
    "wd": "http://www.wikidata.org/entity/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "wdtn": "http://www.wikidata.org/prop/direct-normalized/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "psv": "http://www.wikidata.org/prop/statement/value/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "pqv": "http://www.wikidata.org/prop/qualifier/value/",
    "pr": "http://www.wikidata.org/prop/reference/",
    "prov": "http://www.w3.org/ns/prov#",
    "wikibase": "http://wikiba.se/ontology#",
    "bd": "http://www.bigdata.com/rdf#",
    "schema": "http://schema.org/",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "geo": "http://www.opengis.net/ont/geosparql#",
    # The rest of WDQS's predeclared prefixes; LLM-written and forum queries use them
    # without PREFIX lines (hint: and geof: appear in the SPINACH gold queries).
    "wds": "http://www.wikidata.org/entity/statement/",
    "wdv": "http://www.wikidata.org/value/",
    "wdref": "http://www.wikidata.org/reference/",
    "psn": "http://www.wikidata.org/prop/statement/value-normalized/",
    "pqn": "http://www.wikidata.org/prop/qualifier/value-normalized/",
    "prv": "http://www.wikidata.org/prop/reference/value/",
    "prn": "http://www.wikidata.org/prop/reference/value-normalized/",
    "wdno": "http://www.wikidata.org/prop/novalue/",
    "wdata": "http://www.wikidata.org/wiki/Special:EntityData/",
    "bds": "http://www.bigdata.com/rdf/search#",
    "gas": "http://www.bigdata.com/rdf/gas#",
    "hint": "http://www.bigdata.com/queryHints#",
    "geof": "http://www.opengis.net/def/function/geosparql/",
}

WIKIBASE_LABEL_SERVICE = "http://wikiba.se/ontology#label"

_GEOF = WIKIDATA_PREFIXES["geof"]
#: Functions WDQS offers beyond SPARQL 1.1 (SPINACH's gold queries call geof:distance).
WIKIDATA_FUNCTIONS = frozenset(
    {
        f"{_GEOF}distance",
        f"{_GEOF}globe",
        f"{_GEOF}latitude",
        f"{_GEOF}longitude",
        "http://wikiba.se/ontology#decodeUri",
    }
)
#: QLever on Wikidata computes distances and coordinates the same way.
QLEVER_FUNCTIONS = frozenset({f"{_GEOF}distance", f"{_GEOF}latitude", f"{_GEOF}longitude"})

#: Graphs Virtuoso keeps for itself (found on a fresh 7.2.5: virtrdf: quad maps, LDP,
#: the service description, DAV); a default graph that merges them skews every count.
VIRTUOSO_SYSTEM_GRAPH_PREFIXES: tuple[str, ...] = (
    "http://www.openlinksw.com/schemas/virtrdf#",
    "http://www.w3.org/ns/ldp#",
    "http://www.w3.org/2002/07/owl#",
    "http://localuriqaserver/",
    "http://localhost:8890/",
    "http://www.openlinksw.com/schemas/",
)

VIRTUOSO_PROMPT_NOTES = (
    "This endpoint is Virtuoso: dividing two integers gives an integer (1/2 is 0) and dividing "
    "by an integer 0 is an error, so write xsd:decimal(?a) / ?b for ratios and guard the divisor; "
    "a result may be cut at the server's row cap or returned partial at its time limit (the "
    "observation says so); bif: and sql: functions are not allowed."
)


@dataclass(frozen=True)
class EndpointProfile:
    """How to talk to one kind of store.

    Attributes:
        name: Profile name.
        prefixes: Prefixes the store predeclares; the guard parses with them and the
            embedded store receives them as default prefixes.
        service_allowlist: SERVICE IRIs a query may use (none by default).
        max_concurrency: Requests that may run at once against one endpoint.
        server_timeout_s: The server's own query deadline, if it has one.
        default_limit: LIMIT injected into a SELECT that has none.
        max_limit: Largest top-level LIMIT allowed; larger ones are clamped.
        throttle_means_timeout: HTTP 429 signals a query timeout (QLever), not throttling.
        default_retry_after_s: Wait after a 429 without ``Retry-After``.
        max_throttle_retries: Retries after throttling within one call.
        partial_result_headers: Response headers whose presence marks a partial result.
        allowed_functions: Function IRIs a query may call besides SPARQL 1.1's built-ins
            and XSD casts (an allow-list: engine extensions such as Virtuoso's
            ``bif:http_get`` reach outside the store).
        allowed_graphs: Graph IRIs FROM / FROM NAMED may name (none by default; an
            embedded store adds its own named graphs).
        row_cap_header: Response header with which the server says it cut the rows at
            its own cap (Virtuoso's ``X-SPARQL-MaxRows``); the result is then truncated.
        timeout_param: Protocol parameter carrying our deadline to the server in
            milliseconds (Virtuoso's ``timeout``, which turns a timeout into an
            "anytime" partial answer instead of an error).
        sqlstate_errors: Error bodies carry SQLSTATE codes (Virtuoso) that say whose
            fault an error is (:mod:`saga_kgqa.kg.remote.sqlstate`).
        system_graph_prefixes: Graphs of the server's own bookkeeping (Virtuoso's
            virtrdf:, LDP, service description); never part of the data a query sees.
        default_graphs: ``default-graph-uri`` values sent with every query (operator
            configuration); the query's default graph is their merge.
        named_graphs: ``named-graph-uri`` values sent with every query.
        prompt_notes: Dialect differences the model must know, added to its prompt.
    """

    name: ProfileName
    prefixes: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType(dict(COMMON_PREFIXES)))
    service_allowlist: frozenset[str] = frozenset()
    max_concurrency: int = 4
    server_timeout_s: float | None = None
    default_limit: int = 1000
    max_limit: int = 10000
    throttle_means_timeout: bool = False
    default_retry_after_s: float = 60.0
    max_throttle_retries: int = 2
    partial_result_headers: tuple[str, ...] = ()
    allowed_functions: frozenset[str] = frozenset()
    allowed_graphs: frozenset[str] = frozenset()
    row_cap_header: str | None = None
    timeout_param: str | None = None
    sqlstate_errors: bool = False
    system_graph_prefixes: tuple[str, ...] = ()
    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    prompt_notes: str = ""


def _profile(name: ProfileName, prefixes: dict[str, str] | None = None, **kwargs: object) -> EndpointProfile:
    return EndpointProfile(
        name=name,
        prefixes=MappingProxyType(dict(prefixes if prefixes is not None else COMMON_PREFIXES)),
        **kwargs,  # type: ignore[arg-type]
    )


PROFILES: MappingProxyType[str, EndpointProfile] = MappingProxyType(
    {
        "generic": _profile("generic"),
        "fuseki": _profile("fuseki"),
        # One probe at a time: the store's one query worker answers unbounded templates (survey
        # probes) in turn, so probes sent together only queued, spending their deadlines waiting.
        "embedded": _profile("embedded", max_concurrency=1),
        # WDQS: one request at a time, 60 s server deadline, label service allowed
        # (operators' guidance; see docs/faults.md section 1).
        "wikidata": _profile(
            "wikidata",
            WIKIDATA_PREFIXES,
            service_allowlist=frozenset({WIKIBASE_LABEL_SERVICE}),
            allowed_functions=WIKIDATA_FUNCTIONS,
            max_concurrency=1,
            server_timeout_s=60.0,
        ),
        # QLever answers a timed-out query with HTTP 429 and a JSON "exception".
        "qlever": _profile(
            "qlever",
            WIKIDATA_PREFIXES,
            server_timeout_s=30.0,
            throttle_means_timeout=True,
            allowed_functions=QLEVER_FUNCTIONS,
        ),
        # Virtuoso "anytime" results come back with HTTP 200 and X-SQL-State; its own
        # row cap (ResultSetMaxRows) shows only in X-SPARQL-MaxRows; errors carry
        # SQLSTATEs; with no default graph it answers over every graph, its system
        # graphs included (checked against Virtuoso 7.2.5, docs/faults.md).
        "virtuoso": _profile(
            "virtuoso",
            server_timeout_s=120.0,
            partial_result_headers=("X-SQL-State",),
            row_cap_header="X-SPARQL-MaxRows",
            timeout_param="timeout",
            sqlstate_errors=True,
            system_graph_prefixes=VIRTUOSO_SYSTEM_GRAPH_PREFIXES,
            prompt_notes=VIRTUOSO_PROMPT_NOTES,
        ),
    }
)


def protocol_params(profile: EndpointProfile, *, remaining_s: float) -> list[tuple[str, str]]:
    """Protocol parameters sent beside the query: graphs, and our deadline where the server takes one.

    The server's timeout is set well below what is left of ours: Virtuoso overshoots it
    by about a second while it assembles the partial answer, and that answer must still
    arrive in time to be read.

    Args:
        profile: The endpoint profile.
        remaining_s: Seconds left of the caller's deadline.

    Returns:
        ``(name, value)`` pairs, in order.
    """
    params = [("default-graph-uri", graph) for graph in profile.default_graphs]
    params += [("named-graph-uri", graph) for graph in profile.named_graphs]
    if profile.timeout_param is not None:
        budget = remaining_s - max(2.0, remaining_s / 4)
        if profile.server_timeout_s is not None:
            budget = min(budget, profile.server_timeout_s)
        params.append((profile.timeout_param, str(max(500, int(budget * 1000)))))
    return params


def is_system_graph(profile: EndpointProfile, graph: str) -> bool:
    """Whether ``graph`` is one of the store's own bookkeeping graphs under ``profile``."""
    return any(graph.startswith(prefix) for prefix in profile.system_graph_prefixes)


def get_profile(name: str) -> EndpointProfile:
    """Return the profile called ``name``.

    Raises:
        ConfigurationError: No such profile.
    """
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(sorted(PROFILES))
        raise ConfigurationError(f"unknown endpoint profile {name!r}; known profiles: {known}") from None
