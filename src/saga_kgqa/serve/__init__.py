"""The faces that serve saga-kgqa to other programs and people.

* :mod:`~saga_kgqa.serve.mcp.server` -- ``saga mcp``: the tools (and the whole agent) as an MCP server;
* :mod:`~saga_kgqa.serve.text2sparql.app` -- ``saga serve text2sparql``: the TEXT2SPARQL challenge API;
* :mod:`~saga_kgqa.serve.web.app` -- ``saga serve web``: a local page that shows a run step by step.

Every module here imports its web or MCP stack at the top, so only the commands that
serve import this package (never ``saga_kgqa.cli`` at start-up).
"""
