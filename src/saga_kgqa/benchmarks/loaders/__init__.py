"""Benchmark loaders: every format in the shared data directory, by name.

:func:`load_benchmark` knows where each benchmark lives under the data directory (its
README lists them); the per-format loaders also read files elsewhere, such as LC-QuAD 2.0
and WebQSP, which the data directory does not hold.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from saga_kgqa.benchmarks.loaders.files import LoadedBenchmark
from saga_kgqa.benchmarks.loaders.freebase import load_cwq, load_grailqa, load_webqsp, load_webquestions
from saga_kgqa.benchmarks.loaders.text2sparql import load_ck25, load_db25, load_lcquad2, load_spider4sparql_dev
from saga_kgqa.benchmarks.loaders.wikidata import load_qald_json, load_spinach_list, load_wikiwebquestions
from saga_kgqa.errors import ConfigurationError

__all__ = [
    "BENCHMARKS",
    "LoadedBenchmark",
    "load_benchmark",
    "load_ck25",
    "load_cwq",
    "load_db25",
    "load_grailqa",
    "load_lcquad2",
    "load_qald_json",
    "load_spider4sparql_dev",
    "load_spinach_list",
    "load_webqsp",
    "load_webquestions",
    "load_wikiwebquestions",
]

_Loader = Callable[[Path, str], LoadedBenchmark]


def _qald(relative: str) -> Callable[[Path, str, str], LoadedBenchmark]:
    return lambda data_dir, name, language: load_qald_json(data_dir / relative, name, language=language)


def _english(loader: _Loader, relative: str) -> Callable[[Path, str, str], LoadedBenchmark]:
    def load(data_dir: Path, name: str, language: str) -> LoadedBenchmark:
        if language != "en":
            raise ConfigurationError(f"benchmark {name} is English only")
        return loader(data_dir / relative, name)

    return load


def _whole(loader: Callable[[Path], LoadedBenchmark]) -> Callable[[Path, str, str], LoadedBenchmark]:
    def load(data_dir: Path, name: str, language: str) -> LoadedBenchmark:
        loaded = loader(data_dir)
        if name in ("ck25", "db25"):
            kept = tuple(q for q in loaded.questions if q.language == language)
            return LoadedBenchmark(loaded.name, kept, loaded.skipped)
        return loaded

    return load


#: Benchmark name -> loader of (data directory, name, language).
BENCHMARKS: dict[str, Callable[[Path, str, str], LoadedBenchmark]] = {
    "qald7-test": _qald("qald7_wikidata/qald-7-test-en-wikidata.json"),
    "qald7-train": _qald("qald7_wikidata/qald-7-train-en-wikidata.json"),
    "qald10": _qald("qald10/qald_10.json"),
    "qald9plus-test": _english(load_spinach_list, "qald9plus_wikidata/spinach_qald_9_plus_en_test.json"),
    "qald9plus-train": _english(load_spinach_list, "qald9plus_wikidata/spinach_qald_9_plus_en_train.json"),
    "wwq-dev": _english(load_wikiwebquestions, "wikiwebquestions/dev.json"),
    "wwq-train": _english(load_wikiwebquestions, "wikiwebquestions/train.json"),
    "wwq-test": _english(load_spinach_list, "wikiwebquestions/spinach_wwq_test.json"),
    "spinach-dev": _english(load_spinach_list, "spinach/dev.json"),
    "spinach-test": _english(load_spinach_list, "spinach/test.json"),
    "cwq-test": _english(load_cwq, "tog_freebase/cwq_test.json.gz"),
    "grailqa-sample": _english(load_grailqa, "tog_freebase/grailqa_sample1000.json.gz"),
    "webquestions-test": _english(load_webquestions, "tog_freebase/webquestions_test.json.gz"),
    "ck25": _whole(load_ck25),
    "db25": _whole(load_db25),
    "spider4sparql-dev": _whole(load_spider4sparql_dev),
}


def load_benchmark(name: str, data_dir: Path, *, language: str = "en") -> LoadedBenchmark:
    """Load a benchmark of the shared data directory by name.

    Args:
        name: One of :data:`BENCHMARKS`.
        data_dir: The shared data directory.
        language: Question language (QALD and TEXT2SPARQL files have several).

    Raises:
        ConfigurationError: Unknown name, unsupported language, or a missing or malformed file.
    """
    loader = BENCHMARKS.get(name)
    if loader is None:
        raise ConfigurationError(f"unknown benchmark {name!r}; known: {', '.join(sorted(BENCHMARKS))}")
    return loader(data_dir, name, language)
