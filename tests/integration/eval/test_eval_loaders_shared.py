"""Every benchmark loader on the real files, with the counts of the data README."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from saga_kgqa.benchmarks.loaders import load_benchmark
from saga_kgqa.benchmarks.questions import AnswerKind
from saga_kgqa.errors import ConfigurationError

pytestmark = pytest.mark.shared_data

# name -> (questions, questions with shipped answers, ASK questions) from shared/data/README.md §1, §5.
EXPECTED = {
    "qald7-test": (50, 50, 8),
    "qald7-train": (100, 100, 4),
    "qald10": (394, 394, 61),
    "qald9plus-test": (136, 0, None),
    "qald9plus-train": (371, 0, None),
    "wwq-dev": (454, 454, None),
    "wwq-train": (2431, 0, None),
    "wwq-test": (1431, 0, None),
    "spinach-dev": (155, 0, None),
    "spinach-test": (165, 0, None),
    "cwq-test": (3531, 3531, None),
    "grailqa-sample": (1000, 1000, None),
    "webquestions-test": (2032, 2032, None),
    "ck25": (50, 50, 3),
    "db25": (100, 100, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_match_the_data_readme(data_dir: Path, name: str) -> None:
    loaded = load_benchmark(name, data_dir)
    total, answered, asks = EXPECTED[name]
    assert len(loaded) == total
    assert sum(q.gold_answers is not None for q in loaded.questions) == answered
    assert len({q.id for q in loaded.questions}) == total
    if asks is not None:
        assert sum(q.kind is AnswerKind.BOOLEAN for q in loaded.questions) == asks
    assert all(q.question for q in loaded.questions)


def test_qald10_answers_and_languages(data_dir: Path) -> None:
    english = load_benchmark("qald10", data_dir)
    first = english.questions[0]
    assert first.question == "After whom is the Riemannian geometry named?"
    gold = first.gold_result()
    assert gold is not None and gold.rows[0]["result"].value == "http://www.wikidata.org/entity/Q42299"
    # id 313 ships an empty binding set: loaded as such, for the gold store to mark gold_empty.
    empty = next(q for q in english.questions if q.id == "qald10:313").gold_result()
    assert empty is not None and empty.rows == []
    chinese = load_benchmark("qald10", data_dir, language="zh")
    assert len(chinese) == 382 and chinese.skipped == {"no zh text": 12}


def test_wikiwebquestions_dev_results_keep_their_variables(data_dir: Path) -> None:
    dev = load_benchmark("wwq-dev", data_dir)
    assert all((q.gold_result() or pytest.fail(q.id)).rows for q in dev.questions)
    assert dev.questions[0].question == "what is the political system in argentina?"


def test_freebase_answers_become_iris_or_values(data_dir: Path) -> None:
    grail = load_benchmark("grailqa-sample", data_dir)
    levels = Counter(q.extra["level"] for q in grail.questions)
    assert levels == {"zero-shot": 562, "i.i.d.": 240, "compositional": 198}
    first = grail.questions[0].gold_result()
    assert first is not None and first.rows[0]["answer"].value == "http://rdf.freebase.com/ns/m.0yrltsn"
    cwq = load_benchmark("cwq-test", data_dir)
    types = Counter(q.extra["compositionality_type"] for q in cwq.questions)
    assert types == {"conjunction": 1575, "composition": 1546, "comparative": 213, "superlative": 197}
    assert all(q.answers_are_values for q in cwq.questions)


def test_text2sparql_official_sets_and_spanish(data_dir: Path) -> None:
    ck25 = load_benchmark("ck25", data_dir)
    ask = next(q for q in ck25.questions if q.id == "ck25:16-en").gold_result()
    assert ask is not None and ask.form == "ASK" and ask.boolean is True
    official_empty = next(q for q in ck25.questions if q.id == "ck25:25-en").gold_result()
    assert official_empty is not None and official_empty.rows == []
    spanish = load_benchmark("db25", data_dir, language="es")
    assert len(spanish) == 100 and {q.language for q in spanish.questions} == {"es"}


def test_spider_dev_counts_absent_graphs(data_dir: Path) -> None:
    spider = load_benchmark("spider4sparql-dev", data_dir)
    assert len(spider) + sum(spider.skipped.values()) == 1034
    assert all(q.graph and q.gold_sparql and q.gold_sparql.startswith("PREFIX :") for q in spider.questions)


def test_unknown_benchmark_and_language_are_typed_errors(data_dir: Path) -> None:
    with pytest.raises(ConfigurationError, match="unknown benchmark"):
        load_benchmark("qald-11", data_dir)
    with pytest.raises(ConfigurationError, match="English only"):
        load_benchmark("wwq-dev", data_dir, language="de")
