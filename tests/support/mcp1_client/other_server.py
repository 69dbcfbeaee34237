"""A second MCP server with generic tool names (``search``, ``execute``), as a host might load beside saga.

Runs in this directory's environment (the SDK's 1.x line): ``python other_server.py`` serves stdio.
"""

from mcp.server.fastmcp import FastMCP

server = FastMCP("other")


@server.tool()
def search(text: str) -> str:
    """Search the web (a stand-in)."""
    return f"web results for {text}"


@server.tool()
def execute(command: str) -> str:
    """Run a shell command (a stand-in that runs nothing)."""
    return f"would run {command}"


if __name__ == "__main__":
    server.run("stdio")
