"""One worked example: a question and the query that answers it on one source."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from saga_kgqa.errors import ConfigurationError
from saga_kgqa.examples.file_reading import loads_capped, read_text_file

#: Characters kept of an example's question and of its query (text from outside is capped).
MAX_QUESTION_CHARS = 1_000
MAX_QUERY_CHARS = 8_000


class QueryExample(BaseModel):
    """A question-query pair shown to the model as a worked example.

    Attributes:
        question: The question (or the example's comment/label) in ``language``.
        sparql: The query.
        source: Where it came from: ``graph:shacl``, ``graph:spex``, ``graph:shui``, ``train:<name>``, ``runs``.
        origin: The file, endpoint or benchmark it was read from.
        language: ISO 639-1 code of the question ("" when unknown).
        result_count: Rows (or 1 for a true ASK, 0 for false) when it was executed.
        checked_on: UTC date it was checked by the guard (and executed, when ``result_count`` is set).
    """

    model_config = ConfigDict(frozen=True)

    question: str = Field(max_length=MAX_QUESTION_CHARS)
    sparql: str = Field(max_length=MAX_QUERY_CHARS)
    source: str
    origin: str = ""
    language: str = ""
    result_count: int | None = None
    checked_on: str | None = None


def clipped(question: str, sparql: str, **fields: Any) -> QueryExample:
    """An example with its question made one line and both texts capped (outside text is data)."""
    text = " ".join(question.split())[:MAX_QUESTION_CHARS]
    return QueryExample(question=text, sparql=sparql.strip()[:MAX_QUERY_CHARS], **fields)


def write_examples(examples: Iterable[QueryExample], path: Path) -> int:
    """Write examples as JSON lines; returns how many."""
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for example in examples:
            handle.write(example.model_dump_json() + "\n")
            count += 1
    return count


def read_examples(path: Path) -> list[QueryExample]:
    """Read examples written by :func:`write_examples`.

    Raises:
        ConfigurationError: The file is missing or a line is not an example
            (:class:`~saga_kgqa.examples.file_reading.ExampleFileError`: not a regular file, too large,
            not UTF-8, nested too deeply).
    """
    lines = read_text_file(path).splitlines()  # a regular file, bounded, strict UTF-8 (file_reading)
    return list(_parse(lines, path))


def _parse(lines: list[str], path: Path) -> Iterator[QueryExample]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield QueryExample.model_validate(loads_capped(line, f"{path}, line {number}"))
        except (ValueError, TypeError) as exc:
            raise ConfigurationError(f"{path}:{number}: not an example ({str(exc)[:200]})") from exc
