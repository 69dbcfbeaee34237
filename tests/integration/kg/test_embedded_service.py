"""Issue 10, hole 4: the embedded store makes no outbound call, whatever the profile allows.

pyoxigraph's ``Store.query`` evaluates SERVICE by itself over HTTP and has no switch to turn
that off, so the embedded backend refuses every SERVICE clause even when the profile's guard
allow-lists it (the Wikidata label service; an operator's own allow-list). A loopback listener
that the profile allow-lists must see zero connections. A profile that describes a remote
server is refused when an embedded store is opened with it, and the reverse.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from saga_kgqa.errors import ConfigurationError, QueryRejected
from saga_kgqa.kg.core.profiles import EndpointProfile, get_profile
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.embedded.store import EmbeddedStore
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend


class Listener:
    """A loopback TCP listener on a free port that counts the connections it accepts."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/sparql"
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self._server.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    opened = Listener()
    yield opened
    opened.close()


@pytest.fixture
def graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "g.ttl"
    path.write_text('<http://example.org/s> <http://www.w3.org/2000/01/rdf-schema#label> "s"@en .\n', encoding="utf-8")
    return path


def test_allow_listed_service_is_still_refused_by_the_embedded_store(listener: Listener, graph_file: Path) -> None:
    profile = EndpointProfile(name="embedded", service_allowlist=frozenset({listener.url}))
    store = EmbeddedStore.from_files([graph_file], profile=profile)
    with KnowledgeGraph(store) as graph:
        text = f"SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}"
        assert graph.check(text).form == "SELECT"  # the guard lets it through: the profile allows it
        with pytest.raises(QueryRejected) as info:
            graph.query(text)
        assert info.value.reason == "service"
        assert "embedded store" in info.value.message
        # Built by saga-kgqa or not, no query reaches pyoxigraph with a SERVICE clause.
        with pytest.raises(QueryRejected):
            store.execute(from_template(text))
    time.sleep(0.3)
    assert listener.accepted == 0


def test_wikidata_label_service_is_rewritten_before_the_store_which_refuses_it_raw(graph_file: Path) -> None:
    text = "SELECT ?s ?sLabel WHERE { ?s ?p ?o SERVICE wikibase:label { bd:serviceParam wikibase:language 'en' } }"
    # Through the facade the label service becomes plain label patterns (issue 12), so it runs offline.
    with KnowledgeGraph(EmbeddedStore.from_files([graph_file], profile=get_profile("wikidata"))) as graph:
        assert "SERVICE" not in graph.check(text).text.upper()
        assert "sLabel" in graph.query(text).variables
    # A SERVICE that reaches the store itself is refused, saying what to write instead.
    with EmbeddedStore.from_files([graph_file], profile=get_profile("wikidata")) as store:
        with pytest.raises(QueryRejected) as info:
            store.execute(from_template(text))
        assert info.value.reason == "service"
        assert "rdfs:label" in info.value.message


@pytest.mark.parametrize("profile", ["qlever", "virtuoso", "fuseki", "generic"])
def test_remote_only_profile_on_an_embedded_store_is_refused_at_open(graph_file: Path, profile: str) -> None:
    with pytest.raises(ConfigurationError, match="profile"):
        open_backend(data=[graph_file], profile=profile)
    with pytest.raises(ConfigurationError, match="profile"):
        EmbeddedStore.from_files([graph_file], profile=get_profile(profile))


def test_embedded_profile_on_a_remote_endpoint_is_refused_at_open(listener: Listener) -> None:
    with pytest.raises(ConfigurationError, match="profile"):
        open_backend(endpoint=listener.url, profile="embedded")
    assert listener.accepted == 0
