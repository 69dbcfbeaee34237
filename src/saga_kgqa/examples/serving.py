"""The one way every face gets worked examples: the controller's prompt and tool, and MCP.

:func:`worked_examples` asks the run's configured index (:func:`configured_examples`) for
the pairs nearest to a question and passes them through the leakage guard once more at run
time, against the run's own question: a model may ask with other words than the question it
answers, and an example that *is* that question must never come back. (An evaluation run
has already screened its file against the whole benchmark, :mod:`saga_kgqa.examples.run_examples`.)
:func:`examples_text` renders them for a model: questions and queries come from files and
endpoints, so both pass the project's sanitiser and the whole text is capped.
"""

from __future__ import annotations

from collections.abc import Sequence

from saga_kgqa.benchmarks.questions import BenchmarkQuestion
from saga_kgqa.config.context import SagaContext
from saga_kgqa.examples.configured import configured_examples
from saga_kgqa.examples.index import render_examples
from saga_kgqa.examples.leakage import LeakageGuard
from saga_kgqa.examples.model import QueryExample
from saga_kgqa.text_safety import graph_text, outside_value
from saga_kgqa.tools.render import cap_bytes

#: Characters of an example's question shown (one line).
QUESTION_CHARS = 300
#: Characters of an example's query shown.
QUERY_CHARS = 1_500


def examples_offered(context: SagaContext) -> bool:
    """Whether the run offers the ``worked_examples`` tool: an examples file is configured and the switch is on."""
    return bool(context.examples_file) and context.examples_k > 0 and context.examples_tool


def worked_examples(
    context: SagaContext, question: str, k: int, *, run_question: str | None = None
) -> list[QueryExample]:
    """The ``k`` examples nearest to ``question`` from the run's examples file (none when examples are off).

    Args:
        context: The run's context (``examples_file``, ``examples_k``, the embedding runtime).
        question: What to find examples for (the run's question, or the model's own words).
        k: How many at most.
        run_question: The question the run answers: an example with this question is refused.

    Raises:
        ConfigurationError: The examples file cannot be read.
    """
    index = configured_examples(context)
    if index is None or k <= 0:
        return []
    chosen = index.examples_for(question, k)
    if run_question and run_question.strip():
        guard = LeakageGuard([BenchmarkQuestion(id="the run's own question", benchmark="run", question=run_question)])
        chosen = guard.screen(chosen).kept
    return chosen


def examples_text(examples: Sequence[QueryExample], max_bytes: int) -> str:
    """The examples as text for a model: each question cleaned to one line, each query cleaned; capped in bytes.

    Each query gets an equal share of ``max_bytes`` (a long query is cut, not dropped), and the
    whole text is capped once more in bytes.
    """
    share = max_bytes // max(len(examples), 1) - QUESTION_CHARS // 2
    query_chars = max(min(QUERY_CHARS, share // 2), 80)  # a character may take up to 4 bytes; most take 1-2
    safe = [
        example.model_copy(
            update={
                "question": graph_text(example.question, QUESTION_CHARS),
                "sparql": outside_value(example.sparql, query_chars),
            }
        )
        for example in examples
    ]
    return cap_bytes(render_examples(safe, max_query_chars=query_chars), max_bytes)
