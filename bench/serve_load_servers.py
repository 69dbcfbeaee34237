"""bench/serve_load.py's servers: the loopback chat model and the ``saga`` faces it starts on free ports.

The mock answers the chat-completions protocol by the request's shape (answer type, then one ``execute``,
then ``stop``), so the real ChatOpenAI path runs and nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SAGA = str(Path(sys.executable).with_name("saga"))
EX = "PREFIX ex: <http://example.org/space/> "
QUERY = EX + "SELECT ?m ?d WHERE { ?m ex:crewMember ex:JimLovell ; ex:launchDate ?d } ORDER BY ?d"
QUESTION = "Which missions did Jim Lovell fly, and when?"
_URL = re.compile(r"serving (http://\S+)")


# ---------------------------------------------------------------- the loopback model


def _reply(body: dict[str, Any]) -> dict[str, Any]:
    """Answer by the request's shape: answer type (no tools), execute once, then stop."""
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if not body.get("tools"):
        message["content"] = json.dumps({"answer_type_label": "space mission", "answer_type_id": "ex:Mission"})
        reason = "stop"
    else:
        # The query already ran when the prompt shows it (a tool message, or the history's text).
        ran = any(m.get("role") == "tool" or "ORDER BY ?d" in str(m.get("content")) for m in body["messages"][1:])
        # A question with a nonce gets a query that carries it: an answer that reaches another client shows it.
        nonce = re.search(r"#nonce-\d+-\d+", " ".join(str(m.get("content")) for m in body["messages"]))
        query = (
            QUERY if nonce is None else QUERY.replace(" } ORDER BY", f' . BIND("{nonce.group(0)}" AS ?tag) }} ORDER BY')
        )
        name, args = ("stop", {}) if ran else ("execute", {"sparql": query})
        call = {"id": f"call-{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        message["tool_calls"] = [call]
        reason = "tool_calls"
    return {
        "id": "mock",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "mock"),
        "choices": [{"index": 0, "message": message, "finish_reason": reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class _ModelHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        payload = json.dumps(_reply(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        return


@contextmanager
def mock_model() -> Iterator[str]:
    """The loopback chat-completions mock; yields its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ModelHandler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


# ---------------------------------------------------------------- servers


def child_env(extra: dict[str, str]) -> dict[str, str]:
    """A server's environment: the developer's model settings removed, tracing off, ``extra`` added."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SAGA_", "OPENAI_", "LANGCHAIN_"))}
    return {**env, "LANGSMITH_TRACING": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1", **extra}


@dataclass
class Server:
    """A started server: its URL and process."""

    url: str
    process: subprocess.Popen[str]

    def rss_mb(self) -> float:
        """Resident memory of the server process (MB)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def threads(self) -> int:
        """Threads of the server process now."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return -1


@contextmanager
def saga_server(args: list[str], env: dict[str, str]) -> Iterator[Server]:
    """``saga ARGS --port 0`` in its own session; yields it once it says its URL, stops it after."""
    process = subprocess.Popen(
        [SAGA, *args, "--port", "0"],
        env=child_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stderr is not None
        url = None
        for line in process.stderr:
            found = _URL.search(line)
            if found:
                url = found.group(1)
                break
        if url is None:
            raise RuntimeError(f"saga {' '.join(args)} did not start (exit {process.wait(5)})")
        threading.Thread(target=process.stderr.read, daemon=True).start()
        yield Server(url, process)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
