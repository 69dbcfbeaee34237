"""langchain-mcp-adapters and the SDK's 1.x client (protocol 2025-11-25) against ``saga mcp``, beside a second server.

Runs in this directory's environment; reads a JSON job on stdin (``saga``: the ``saga``
executable, ``env``: its environment, ``repo``: the repository root, ``question``, ``script``:
the scripted model's turns) and prints one JSON report on stdout: the tool names the adapters
loaded from both servers, the handshake saga answered, and what a LangGraph ReAct agent saw.
"""

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def handshake(saga: str, env: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(command=saga, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        return {
            "protocol": init.protocolVersion,
            "name": init.serverInfo.name,
            "version": init.serverInfo.version,
            "capabilities": sorted(k for k, v in init.capabilities.model_dump().items() if v is not None),
        }


async def main(job: dict[str, Any]) -> dict[str, Any]:
    sys.path.insert(0, job["repo"])
    from tests.support.scripted_model import ScriptedChatModel, tool_call

    here = Path(__file__).parent
    client = MultiServerMCPClient(
        {
            "saga": {"command": job["saga"], "args": ["mcp"], "env": job["env"], "transport": "stdio"},
            "other": {"command": sys.executable, "args": [str(here / "other_server.py")], "transport": "stdio"},
        }
    )
    tools = await client.get_tools()
    names = [tool.name for tool in tools]
    script = [tool_call(t["tool"], **t["args"]) if isinstance(t, dict) else t for t in job["script"]]
    model = ScriptedChatModel(script)
    agent = create_agent(model, tools)
    state = await agent.ainvoke({"messages": [("user", job["question"])]})
    observations = {
        m.name: {"content": str(m.content), "status": m.status} for m in state["messages"] if isinstance(m, ToolMessage)
    }
    return {
        "tools": names,
        "handshake": await handshake(job["saga"], job["env"]),
        "bound_tools": list(model.bound_tools),
        "observations": observations,
        "third_prompt": model.prompt_text(2),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.load(sys.stdin)))))
