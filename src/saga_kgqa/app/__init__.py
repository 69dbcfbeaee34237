"""The composition root: the one place that opens graphs, schema indexes, toolboxes and named sources.

Every face (``saga ask``, the other ``saga`` commands, ``saga mcp``, ``saga serve web``,
``saga serve text2sparql``, ``langgraph dev``, ``saga eval run``) asks this package for what it
needs instead of constructing it, so a catalog source opens the same way whichever face names
it, and once per process (``tests/unit/app/test_composition_root.py`` walks the faces' code to
keep it so).

* :mod:`saga_kgqa.app.open`: a graph from files, a store or an endpoint; a schema index from a
  file or built from the graph (light: nothing heavy is imported until called).
* :mod:`saga_kgqa.app.toolboxes`: the one toolbox over an opened graph (the agent's and the CLI's tools).
* :mod:`saga_kgqa.app.sources`: the operator's named sources, one stack per source per process.
* :mod:`saga_kgqa.app.defaults`: the toolbox and sources a run's context names (the graph's defaults).
* :mod:`saga_kgqa.app.caller`: the factories of graphs that serve callers (catalog names only).

Imports point down: this package stands on ``graph``, ``sources``, ``schema``, ``tools`` and
``kg``; only the faces (``cli``, ``serve``, the studio modules) stand on it.
"""
