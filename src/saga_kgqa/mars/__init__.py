"""The MARS pipeline as its own LangGraph graph: link, retrieve patterns, reason, execute, verify.

See :mod:`saga_kgqa.mars.builder`. It shares SAGA's state records, toolbox, finalize node,
tracing and checkpointing; only the nodes and prompts are its own.
"""
