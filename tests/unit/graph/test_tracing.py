"""LangSmith naming per question and per tool call; tracing off and silent in tests, on when configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from saga_kgqa.graph.builder import question_run_config
from saga_kgqa.graph.tracing import (
    AGENT_TAG,
    TOOL_TAG,
    traced_tool_call,
    tracing_enabled,
)
from tests.support.run_recorder import Recorder

# Not imported from tests.conftest: the traced subprocess imports this module, and conftest turns tracing off.
REPO_ROOT = Path(__file__).resolve().parents[3]


class Q(TypedDict, total=False):
    question: str
    answer: str


def _graph() -> Any:
    def search_node(state: Q) -> Q:
        found = traced_tool_call("search", {"text": "Apollo"}, lambda: "Apollo 13", step=1)
        return {"answer": found}

    builder: StateGraph[Q, None, Q, Q] = StateGraph(Q)
    builder.add_node("search", search_node)
    builder.add_edge(START, "search")
    builder.add_edge("search", END)
    return builder.compile()


def test_question_and_tool_calls_carry_names_tags_and_metadata() -> None:
    recorder = Recorder()
    config = question_run_config(
        "Which mission did Jim Lovell command?",
        graph="space.ttl",
        model="m at http://h/v1",
        model_name="m",
        tags=("bench",),
    )
    config["callbacks"] = [recorder]
    out = _graph().invoke({"question": "Which mission did Jim Lovell command?"}, config)
    assert out["answer"] == "Apollo 13"
    root_name, root_tags, root_meta = recorder.runs[0]
    assert root_name == "saga: Which mission did Jim Lovell command?"
    assert {AGENT_TAG, "model:m", "bench"} <= set(root_tags)
    assert not any("http" in tag for tag in root_tags)  # the server's URL is metadata only
    assert root_meta["model"] == "m at http://h/v1"
    assert root_meta["question"] == "Which mission did Jim Lovell command?"
    assert root_meta["knowledge_graph"] == "space.ttl"
    (tool_run,) = [run for run in recorder.runs if run[0] == "tool:search"]
    assert {TOOL_TAG, "tool:search"} <= set(tool_run[1])
    assert tool_run[2]["tool_arguments"] == {"text": "Apollo"}
    assert tool_run[2]["step"] == 1
    assert recorder.tool_inputs == [("tool:search", {"text": "Apollo"})]
    # Tool runs nest inside the question's run, so they inherit its metadata.
    assert tool_run[2]["question"] == "Which mission did Jim Lovell command?"


def test_long_questions_are_shortened_in_the_run_name_but_kept_in_metadata() -> None:
    question = "word " * 100
    config = question_run_config(question, thread_id="t", recursion_limit=50)
    assert len(config["run_name"]) <= len("saga: ") + 80
    assert config["metadata"]["question"] == question
    assert config["configurable"] == {"thread_id": "t"}
    assert config["recursion_limit"] == 50


def test_tracing_is_off_in_tests() -> None:
    # The autouse no_egress fixture fails any non-loopback connection made by the run above.
    assert os.environ["LANGSMITH_TRACING"] == "false"
    assert "LANGCHAIN_TRACING_V2" not in os.environ
    assert not tracing_enabled()


@contextmanager
def _fake_langsmith() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    bodies: list[tuple[str, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def _reply(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.headers.get("Content-Encoding") == "zstd":
                import zstandard

                body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
            bodies.append((self.headers.get("Content-Type", ""), body))
            data = json.dumps({"version": "0.0", "batch_ingest_config": {}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = _reply

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()


def test_tracing_on_sends_the_named_runs_to_the_configured_endpoint() -> None:
    script = textwrap.dedent(
        """
        from langsmith import Client
        from langchain_core.tracers.langchain import wait_for_all_tracers
        from tests.unit.graph.test_tracing import _graph
        from saga_kgqa.graph.builder import question_run_config
        from saga_kgqa.graph.tracing import tracing_enabled
        assert tracing_enabled()
        config = question_run_config(
            "traced question", model="fake-model at http://127.0.0.1:18933/v1", model_name="fake-model"
        )
        _graph().invoke({"question": "traced question"}, config)
        wait_for_all_tracers()
        """
    )
    with _fake_langsmith() as (url, bodies):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
        env.update(LANGSMITH_TRACING="true", LANGSMITH_ENDPOINT=url, LANGSMITH_API_KEY="test-key")
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    runs = _captured_runs(bodies)
    (root,) = [run for run in runs.values() if run.get("name") == "saga: traced question"]
    assert "model:fake-model" in root["tags"]
    assert not any("http" in tag for tag in root["tags"])  # the server's URL only in metadata
    assert root["extra"]["metadata"]["model"] == "fake-model at http://127.0.0.1:18933/v1"
    (tool,) = [run for run in runs.values() if run.get("name") == "tool:search"]
    assert tool["run_type"] == "tool"
    assert tool["inputs"] == {"text": "Apollo"}
    assert tool["outputs"] == {"output": "Apollo 13"}


def _captured_runs(bodies: list[tuple[str, bytes]]) -> dict[str, dict[str, Any]]:
    """The runs LangSmith sent, by id, from multipart ingest (``post.<id>[.<field>]`` parts) or JSON batches."""
    runs: dict[str, dict[str, Any]] = {}
    for content_type, body in bodies:
        if content_type.startswith("multipart/"):
            message = BytesParser().parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
            for part in message.walk():
                name = part.get_param("name", header="content-disposition")
                if not isinstance(name, str) or not name.startswith("post."):
                    continue
                payload = part.get_payload(decode=True)
                assert isinstance(payload, bytes)
                _, run_id, *field = name.split(".")
                value = json.loads(payload)
                run = runs.setdefault(run_id, {})
                run.update({field[0]: value} if field else value)
        elif content_type.startswith("application/json") and body.startswith(b"{"):
            for run in json.loads(body).get("post", []):
                runs.setdefault(run["id"], {}).update(run)
    return runs
