"""Talking to graph stores: typed results, the read-only guard, backends and the replay cache.

One room each: ``core`` (typed results, checked queries, the backend protocol, profiles,
clocks), ``guard`` (the read-only guard and its SPARQL text work), ``embedded`` (the pyoxigraph
store, loading and its query worker), ``remote`` (SPARQL-protocol endpoints over HTTP), ``cache``
(record/replay). ``knowledge_graph`` is the one entry point (guard, then backend); ``opening``
opens what the operator configured.
"""
