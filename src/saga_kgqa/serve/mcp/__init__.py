"""The MCP face: the server, its tools over named sources, limits, sessions' middleware and content."""
