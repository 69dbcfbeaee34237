"""The HTTP API chooses infrastructure only by name (faults.md: caller-chosen infrastructure).

A run posted to ``langgraph dev`` with ``context.base_url``, ``endpoint`` or ``data`` aimed at
a loopback listener is refused, and the listener sees no connection: before this rule the
operator's ``OPENAI_API_KEY`` went to a posted ``base_url`` as a bearer token. A run that
names the operator's source and model works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import REPO_ROOT
from tests.integration.graph.test_langgraph_dev import QUESTION, SCRIPT, expected_missions
from tests.support.connection_counter import ConnectionCounter
from tests.support.langgraph_dev import DevServer, langgraph_dev

pytestmark = pytest.mark.slow

SECRET = "sk-operator-secret-0123456789"


@pytest.fixture(scope="module")
def listener() -> Iterator[ConnectionCounter]:
    counter = ConnectionCounter()
    yield counter
    counter.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    workdir = tmp_path_factory.mktemp("caller")
    script = workdir / "script.json"
    script.write_text(json.dumps(SCRIPT))
    catalog = workdir / "catalog.toml"
    example = REPO_ROOT / "src" / "saga_kgqa" / "example_graph" / "space_exploration.ttl"
    catalog.write_text(
        f'default_source = "space"\n[sources.space]\ndata = ["{example}"]\n'
        '[models.scripted]\nfactory = "tests.support.studio_models:scripted_factory"\n'
    )
    env = {
        # The operator's real model settings: a posted base_url must never receive this key.
        "OPENAI_API_KEY": SECRET,
        "SAGA_MODEL": "gpt-4o-mini",
        "SAGA_CATALOG": str(catalog),
        "SAGA_TEST_SCRIPT": str(script),
        "PYTHONPATH": str(REPO_ROOT),
    }
    with langgraph_dev(REPO_ROOT / "langgraph.json", workdir, env) as running:
        yield running


def _run(server: DevServer, context: dict[str, object]) -> object:
    thread = server.request("POST", "/threads", {})
    return server.request(
        "POST",
        f"/threads/{thread['thread_id']}/runs/wait",
        {"assistant_id": "saga", "input": {"question": QUESTION}, "context": context},
    )


@pytest.mark.parametrize("field", ["base_url", "endpoint", "data"])
def test_infrastructure_in_the_context_is_refused_without_contact(
    server: DevServer, listener: ConnectionCounter, field: str
) -> None:
    value = listener.url if field != "data" else "/etc/passwd"
    before = listener.accepted
    reply = _run(server, {field: value})
    text = json.dumps(reply)
    assert "answered" not in text
    assert listener.wait_for(before + 1, within_s=1.0) == before
    log = server.log.read_text(errors="replace")
    assert f"may not set {field}" in log
    assert SECRET not in log


def test_a_run_naming_the_operators_source_and_model_answers(server: DevServer) -> None:
    reply = _run(server, {"source": "space", "model": "scripted", "max_steps": 10})
    assert isinstance(reply, dict)
    assert reply["status"] == "answered"
    assert {row["mission"] for row in reply["answer"]["rows"]} == expected_missions()


def test_an_unknown_source_name_is_refused(server: DevServer) -> None:
    _run(server, {"source": "elsewhere", "model": "scripted"})
    assert "unknown source 'elsewhere'; configured sources: space" in server.log.read_text(errors="replace")


def test_a_refused_context_reaches_the_sdk_caller_with_its_reason(server: DevServer) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server.url)
    thread = client.threads.create()
    with pytest.raises(Exception, match=r"CallerContextRefused: max_steps=10000 exceeds the operator's limit of \d+"):
        client.runs.wait(thread["thread_id"], "saga", input={"question": QUESTION}, context={"max_steps": 10000})


def test_an_unknown_source_reaches_the_sdk_caller_with_its_reason(server: DevServer) -> None:
    """The refusal names the source and the configured ones, not "internal error" (issue 43)."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=server.url)
    thread = client.threads.create()
    with pytest.raises(Exception, match=r"UnknownNameRefused: unknown source 'elsewhere'; configured sources: space"):
        client.runs.wait(
            thread["thread_id"],
            "saga",
            input={"question": QUESTION},
            context={"source": "elsewhere", "model": "scripted"},
        )
