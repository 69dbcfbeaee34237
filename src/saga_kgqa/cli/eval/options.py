"""Options and question loading shared by ``saga eval`` (score, gold, drift) and its run commands.

Both :mod:`~saga_kgqa.cli.eval.commands` and :mod:`~saga_kgqa.cli.eval.run`
import from here, so the import between those two points one way only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from saga_kgqa.cli.option_groups import OptionGroup
from saga_kgqa.cli.options import DataDirOption

if TYPE_CHECKING:
    from saga_kgqa.benchmarks.questions import BenchmarkQuestion

__all__ = [
    "BenchmarkArgument",
    "DataDirOption",
    "GraphOption",
    "LanguageOption",
    "QuestionOptions",
    "benchmark_questions",
]

# The names are not listed here: that would load every loader at start-up; an unknown name's error lists them.
BenchmarkArgument = Annotated[
    str, typer.Argument(help="Benchmark name, e.g. qald10, spinach-dev, ck25 (an unknown name lists them all).")
]
LanguageOption = Annotated[str, typer.Option(help="Question language.")]
GraphOption = Annotated[str | None, typer.Option("--graph", help="Only questions on this graph (Spider4SPARQL).")]


def benchmark_questions(
    benchmark: str, data_dir: Path | None, language: str, graph: str | None
) -> list[BenchmarkQuestion]:
    """The questions of a named benchmark, optionally only those on one graph.

    Raises:
        ConfigurationError: Unknown benchmark or unreadable files.
    """
    from saga_kgqa.benchmarks.loaders import load_benchmark
    from saga_kgqa.config import settings

    loaded = load_benchmark(benchmark, settings.data_dir(data_dir), language=language)
    return [q for q in loaded.questions if graph is None or q.graph == graph]


@dataclass(frozen=True)
class QuestionOptions(OptionGroup):
    """Which of a benchmark's questions a command reads: where its files are, the language, the graph."""

    data_dir: DataDirOption = None
    language: LanguageOption = "en"
    graph_name: GraphOption = None

    def questions(self, benchmark: str) -> list[BenchmarkQuestion]:
        """The chosen questions of ``benchmark`` (see :func:`benchmark_questions`).

        Raises:
            ConfigurationError: Unknown benchmark or unreadable files.
        """
        return benchmark_questions(benchmark, self.data_dir, self.language, self.graph_name)
