"""A loopback server speaking the OpenAI chat-completions protocol, with scripted replies.

Each POST to ``/v1/chat/completions`` takes the next scripted :class:`MockReply` and
records the request body, so tests assert what a real client sent (model, tokens,
tools, messages) and drive tool-calling trajectories over real HTTP. It runs in a
thread inside the test process; a ``saga ask`` subprocess reaches it over loopback.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class MockToolCall:
    """One tool call the mock model makes."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class MockReply:
    """One scripted reply: text, tool calls, or an HTTP error status.

    Attributes:
        content: Assistant text.
        tool_calls: Tool calls in the reply.
        status: HTTP status; anything but 200 sends an OpenAI-style error body.
        reasoning: A ``reasoning_content`` field, as vLLM sends for reasoning models.
        delay_s: Seconds to wait before replying (a slow model, or a request to kill a client during).
        raw: A whole recorded chat-completion body, sent as it was (a real server's reply, tests/data/real_model).
    """

    content: str = ""
    tool_calls: tuple[MockToolCall, ...] = ()
    status: int = 200
    reasoning: str | None = None
    delay_s: float = 0.0
    raw: dict[str, Any] | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MockReply:
        """Build a reply from its JSON form (``content``, ``tool_calls: [{name, arguments}]``, ...)."""
        calls = tuple(MockToolCall(c["name"], c.get("arguments", {})) for c in data.get("tool_calls", []))
        return cls(
            content=data.get("content", ""),
            tool_calls=calls,
            status=data.get("status", 200),
            reasoning=data.get("reasoning"),
        )


@dataclass
class OpenAIMock:
    """The running server: its base URL and what it received."""

    base_url: str
    replies: list[MockReply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """Record ``body`` and return the status and JSON of the next scripted reply."""
        with self._lock:
            self.requests.append(body)
            if not self.replies:
                return 500, {"error": {"message": "the mock's script is exhausted", "type": "server_error"}}
            reply = self.replies.pop(0)
            number = next(self._ids)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if reply.delay_s:
                time.sleep(reply.delay_s)
        finally:
            with self._lock:
                self.in_flight -= 1
        if reply.status != 200:
            return reply.status, {"error": {"message": f"scripted status {reply.status}", "type": "mock_error"}}
        if reply.raw is not None:
            return 200, reply.raw
        message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{number}_{index}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for index, call in enumerate(reply.tool_calls)
            ]
        return 200, {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "mock"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }


def _handler(mock: OpenAIMock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                status, payload = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                status, payload = mock.next_reply(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler


@contextmanager
def serve_openai_mock(replies: Sequence[MockReply]) -> Iterator[OpenAIMock]:
    """Serve the scripted replies on a free loopback port until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    mock = OpenAIMock(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", replies=list(replies))
    server.RequestHandlerClass = _handler(mock)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield mock
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
