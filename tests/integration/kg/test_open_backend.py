"""open_backend: choosing the embedded store (files or a store directory) and wrapping it in the cache.

The remote branch (``endpoint=...``) is tested where kg/remote/endpoint.py lives.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from saga_kgqa.errors import CacheMiss, ConfigurationError
from saga_kgqa.kg.cache.replay_cache import CacheMode, RecordReplayBackend
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.core.result import Term
from saga_kgqa.kg.embedded.store import EmbeddedStore, load_files
from saga_kgqa.kg.opening import open_backend

EX = "http://example.org/"
NAME_QUERY = from_template(f"SELECT ?n WHERE {{ <{EX}ada> <{EX}name> ?n }}")


@pytest.fixture
def turtle(tmp_path: Path) -> Path:
    path = tmp_path / "graph.ttl"
    path.write_text(f'<{EX}ada> <{EX}name> "Ada"@en .\n', encoding="utf-8")
    return path


def names(backend: object) -> list[Term]:
    assert isinstance(backend, EmbeddedStore | RecordReplayBackend)
    return backend.execute(NAME_QUERY).column("n")


def test_files_open_a_temporary_store_removed_on_close(turtle: Path) -> None:
    backend = open_backend(data=[turtle])
    assert isinstance(backend, EmbeddedStore)
    assert backend.profile.name == "embedded"
    assert names(backend) == [Term("literal", "Ada", lang="en")]
    backend.close()
    assert not backend.store_dir.exists()


def test_a_directory_in_data_is_opened_as_a_persisted_store(turtle: Path, tmp_path: Path) -> None:
    load_files(tmp_path / "store", [turtle])
    backend = open_backend(data=[tmp_path / "store"])
    assert isinstance(backend, EmbeddedStore)
    assert backend.store_dir == tmp_path / "store"
    assert names(backend) == [Term("literal", "Ada", lang="en")]
    backend.close()
    assert (tmp_path / "store").is_dir()


def test_files_with_a_store_dir_are_loaded_into_it_and_kept(turtle: Path, tmp_path: Path) -> None:
    backend = open_backend(data=[turtle], store_dir=tmp_path / "kept")
    assert names(backend) == [Term("literal", "Ada", lang="en")]
    backend.close()
    reopened = open_backend(store_dir=tmp_path / "kept")
    assert names(reopened) == [Term("literal", "Ada", lang="en")]
    reopened.close()


def test_profile_prefixes_reach_the_store(turtle: Path, tmp_path: Path) -> None:
    wd = tmp_path / "wd.ttl"
    wd.write_text('<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas" .\n')
    backend = open_backend(data=[wd], profile="wikidata")
    try:
        assert backend.profile.name == "wikidata"
        result = backend.execute(from_template("SELECT ?l WHERE { wd:Q42 rdfs:label ?l }"))
    finally:
        backend.close()
    assert result.column("l") == [Term("literal", "Douglas")]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "no knowledge graph configured"),
        ({"endpoint": "http://127.0.0.1:9/sparql", "data": [Path("x.ttl")]}, "not both"),
        ({"data": [Path("x.ttl")], "profile": "nonsense"}, "unknown endpoint profile"),
        ({"data": [Path("absent.ttl")]}, "not found"),
        ({"store_dir": Path("/nonexistent/store")}, "store directory not found"),
        ({"data": [Path("x.ttl")], "cache_mode": CacheMode.REPLAY}, "needs a cache directory"),
        ({"data": [Path("x.ttl")], "cache_mode": "sometimes", "cache_dir": Path("c")}, "unknown cache mode"),
    ],
)
def test_contradictory_or_incomplete_settings_are_configuration_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        open_backend(**kwargs)


def test_a_store_dir_cannot_be_mixed_with_files(turtle: Path, tmp_path: Path) -> None:
    load_files(tmp_path / "store", [turtle])
    with pytest.raises(ConfigurationError, match="give it alone"):
        open_backend(data=[tmp_path / "store", turtle])


def test_recordings_made_over_files_replay_in_a_later_run(turtle: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    recorder = open_backend(data=[turtle], cache_dir=cache_dir, cache_mode=CacheMode.RECORD)
    assert isinstance(recorder, RecordReplayBackend)
    recorded = recorder.execute(NAME_QUERY)
    recorder.close()

    # A new temporary store over the same content has the same identity, so the recording applies.
    replayer = open_backend(data=[turtle], cache_dir=cache_dir, cache_mode="replay")
    assert isinstance(replayer, RecordReplayBackend)
    assert replayer.execute(NAME_QUERY).to_dict() == recorded.to_dict()
    with pytest.raises(CacheMiss):
        replayer.execute(from_template(f"ASK {{ <{EX}ada> ?p ?o }}", "ASK"))
    replayer.close()


def test_the_data_files_prefixes_are_usable_in_queries_and_survive_a_persisted_store(tmp_path: Path) -> None:
    from saga_kgqa.kg.embedded.declared_prefixes import load_store_prefixes, read_declared_prefixes, save_store_prefixes
    from saga_kgqa.kg.knowledge_graph import KnowledgeGraph

    ttl = tmp_path / "people.ttl"
    ttl.write_text(
        "@prefix zz: <http://example.org/zz/> .\nzz:ada zz:knows zz:bob .\n",
        encoding="utf-8",
    )
    query = "SELECT ?who WHERE { zz:ada zz:knows ?who }"
    with KnowledgeGraph(open_backend(data=[ttl])) as graph:
        assert graph.profile.prefixes["zz"] == "http://example.org/zz/"
        assert [r["who"].value for r in graph.query(query).rows] == ["http://example.org/zz/bob"]
    store = tmp_path / "store"
    load_files(store, [ttl])
    save_store_prefixes(store, read_declared_prefixes([ttl]))
    assert load_store_prefixes(store) == {"zz": "http://example.org/zz/"}
    with KnowledgeGraph(open_backend(data=[store])) as graph:
        assert [r["who"].value for r in graph.query(query).rows] == ["http://example.org/zz/bob"]
    # A profile prefix is never redefined by a data file.
    ttl.write_text("@prefix rdfs: <http://evil.example/> .\n<http://a/x> <http://a/p> 1 .\n", encoding="utf-8")
    with KnowledgeGraph(open_backend(data=[ttl])) as graph:
        assert graph.profile.prefixes["rdfs"] == "http://www.w3.org/2000/01/rdf-schema#"


_LAZY_GUARD = """
import sys
from pathlib import Path
from saga_kgqa.kg.core.query import from_template
from saga_kgqa.kg.knowledge_graph import KnowledgeGraph
from saga_kgqa.kg.opening import open_backend
with KnowledgeGraph(open_backend(data=[Path(sys.argv[1])])) as graph:
    graph.run(from_template("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", limit=1))
    print("template", "saga_kgqa.kg.guard.query_guard" in sys.modules, "rdflib.plugins.sparql" in sys.modules)
    graph.query("SELECT ?s WHERE { ?s ?p ?o }")
    print("guarded", "saga_kgqa.kg.guard.query_guard" in sys.modules)
"""


def test_the_guard_and_its_parser_load_only_when_a_text_query_needs_them(turtle: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LAZY_GUARD, str(turtle)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:2] == ["template False False", "guarded True"]
