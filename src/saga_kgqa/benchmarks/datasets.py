"""Gold questions over complete offline graphs: TEXT2SPARQL'25 CK25 and Spider4SPARQL dev.

Both come from the shared data directory (its README, sections 5A and 5B). The loaders
normalise what the files leave implicit and never change the data themselves:

* Spider4SPARQL queries use an undeclared default prefix; ``PREFIX :`` (and ``xsd:``) are
  prepended to each query text.
* Spider4SPARQL ``kg_name`` casing differs from the file names
  (``cre_Doc_Template_Mgt`` is ``cre_doc_template_mgt_triples.ttl``; ``voter_1.ttl`` has
  no ``_triples`` suffix), so graph files are matched case-insensitively with either form.
* Questions whose graph is absent (some graphs are kept aside upstream) are skipped and
  counted, never failed.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from saga_kgqa.errors import ConfigurationError

CK25_DIR = "text2sparql_ck25"
SPIDER_DIR = "spider4sparql"
#: The namespace Spider4SPARQL queries use as their undeclared default prefix.
SPIDER_NAMESPACE = "http://valuenet/ontop/"
SPIDER_PROLOGUE = f"PREFIX : <{SPIDER_NAMESPACE}>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"


@dataclass(frozen=True, slots=True)
class GoldQuestion:
    """One question with its reference query.

    Attributes:
        qid: Identifier unique across benchmarks (``ck25:7``, ``spider/car_1:3``).
        graph: Name of the graph the query runs on.
        question: The English question.
        sparql: The reference query, with any implicit prefixes made explicit.
    """

    qid: str
    graph: str
    question: str
    sparql: str


@dataclass(frozen=True, slots=True)
class BenchmarkGraph:
    """A graph present on disk with the gold questions that run on it.

    Attributes:
        name: ``ck25`` or ``spider/<database>``.
        files: RDF files to load together: the data and, for Spider, its OWL schema.
        questions: The questions, in file order.
    """

    name: str
    files: tuple[Path, ...]
    questions: tuple[GoldQuestion, ...]


@dataclass(frozen=True, slots=True)
class GraphCatalog:
    """Every benchmark graph found under a data directory, and what had to be skipped.

    Attributes:
        graphs: Graphs whose files are present.
        absent_graphs: Names of graphs whose files are absent, with their question counts.
    """

    graphs: tuple[BenchmarkGraph, ...]
    absent_graphs: dict[str, int] = field(default_factory=dict)

    @property
    def skipped_questions(self) -> int:
        """Questions skipped because their graph is absent."""
        return sum(self.absent_graphs.values())


def discover_graphs(data_dir: Path) -> GraphCatalog:
    """Find CK25 and every Spider4SPARQL dev graph under ``data_dir``.

    Args:
        data_dir: The shared data directory.

    Returns:
        The graphs present and the ones absent (a missing benchmark directory counts as
        absent, with its questions when they can be read).

    Raises:
        ConfigurationError: A question file exists but cannot be read.
    """
    graphs: list[BenchmarkGraph] = []
    absent: dict[str, int] = {}
    ck25 = load_ck25(data_dir)
    if ck25 is None:
        absent["ck25"] = 0
    else:
        graphs.append(ck25)
    spider_graphs, spider_absent = load_spider_dev(data_dir)
    graphs.extend(spider_graphs)
    absent.update(spider_absent)
    return GraphCatalog(graphs=tuple(graphs), absent_graphs=absent)


def load_ck25(data_dir: Path) -> BenchmarkGraph | None:
    """Load the 50 CK25 questions and the graph file; ``None`` when the graph is absent.

    Raises:
        ConfigurationError: ``questions.yml`` is present but malformed.
    """
    base = data_dir / CK25_DIR
    graph_file = base / "prod-inst.ttl"
    questions_file = base / "questions.yml"
    if not graph_file.is_file() or not questions_file.is_file():
        return None
    data = _read_yaml(questions_file)
    questions = []
    for item in _list_field(data, "questions", questions_file):
        try:
            qid = item["id"]
            text = item["question"]["en"]
            sparql = item["query"]["sparql"]
        except (KeyError, TypeError) as exc:
            raise ConfigurationError(f"{questions_file}: question without id/question.en/query.sparql: {exc}") from exc
        questions.append(GoldQuestion(qid=f"ck25:{qid}", graph="ck25", question=str(text), sparql=str(sparql)))
    return BenchmarkGraph(name="ck25", files=(graph_file,), questions=tuple(questions))


def load_spider_dev(data_dir: Path) -> tuple[list[BenchmarkGraph], dict[str, int]]:
    """Group the Spider4SPARQL dev questions by database and match each with its files.

    Returns:
        The graphs whose data file is present (with the database's OWL ontology when it
        exists), and the absent databases with their question counts.

    Raises:
        ConfigurationError: ``dev.json`` is present but malformed.
    """
    base = data_dir / SPIDER_DIR
    dev_file = base / "dev.json"
    if not dev_file.is_file():
        return [], {}
    by_db: dict[str, list[dict[str, Any]]] = {}
    for item in _read_json_list(dev_file):
        by_db.setdefault(str(item["kg_name"]), []).append(item)
    graphs: list[BenchmarkGraph] = []
    absent: Counter[str] = Counter()
    for db, items in by_db.items():
        name = f"spider/{db}"
        data_file = spider_graph_file(base / "kg", db)
        if data_file is None:
            absent[name] += len(items)
            continue
        ontology = base / "ontology" / f"mpboot_spider_{db.lower()}.owl"
        files = (data_file, ontology) if ontology.is_file() else (data_file,)
        questions = tuple(
            GoldQuestion(
                qid=f"{name}:{number}",
                graph=name,
                question=str(item["question"]),
                sparql=SPIDER_PROLOGUE + str(item["query"]),
            )
            for number, item in enumerate(items, start=1)
        )
        graphs.append(BenchmarkGraph(name=name, files=files, questions=questions))
    graphs.sort(key=lambda g: g.name)
    return graphs, dict(sorted(absent.items()))


def spider_graph_file(kg_dir: Path, db: str) -> Path | None:
    """The data file of a Spider database: ``<db>_triples.ttl`` or ``<db>.ttl``, any casing."""
    if not kg_dir.is_dir():
        return None
    wanted = {f"{db.lower()}_triples.ttl", f"{db.lower()}.ttl"}
    matches = sorted(p for p in kg_dir.iterdir() if p.is_file() and p.name.lower() in wanted)
    return matches[0] if matches else None


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc


def _read_json_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, list) or not all(
        isinstance(item, dict) and {"kg_name", "question", "query"} <= item.keys() for item in data
    ):
        raise ConfigurationError(f"{path}: expected a list of {{kg_name, question, query}} objects")
    return data


def _list_field(data: Any, key: str, path: Path) -> list[dict[str, Any]]:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ConfigurationError(f"{path}: no '{key}' list")
    return items
