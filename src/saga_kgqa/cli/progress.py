"""Progress bars for long operations: counts and an ETA on a terminal, silence everywhere else.

A bar is drawn on stderr only when stderr is a terminal and the command was not asked for
machine-readable output, so pipes, logs and ``--json`` runs stay clean.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from saga_kgqa.cli.output import real_console, stderr

ItemT = TypeVar("ItemT")

#: Advance a bar: by ``steps`` items, optionally renaming what is being done.
Advance = Callable[..., None]


def bar_wanted(*, quiet: bool = False) -> bool:
    """Whether a progress bar should be drawn: stderr is a terminal and no quiet output was asked for."""
    return not quiet and real_console(stderr).is_terminal


@contextmanager
def progress_bar(description: str, total: int | None, *, quiet: bool = False) -> Iterator[Advance]:
    """Show a bar with ``done/total``, elapsed time and an ETA while the block runs; yields ``advance``.

    ``advance(steps=1, description=None)`` moves it on. When no bar is wanted
    (:func:`bar_wanted`) ``advance`` does nothing and nothing is imported or drawn.
    """
    if not bar_wanted(quiet=quiet):
        yield _ignore
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=real_console(stderr), transient=True) as bar:
        task = bar.add_task(description, total=total)

        def advance(steps: int = 1, description: str | None = None) -> None:
            if description is None:
                bar.advance(task, steps)
            else:
                bar.update(task, advance=steps, description=description)

        yield advance


def tracked(items: Iterable[ItemT], description: str, total: int, *, quiet: bool = False) -> Iterator[ItemT]:
    """Yield ``items`` while a :func:`progress_bar` counts them."""
    with progress_bar(description, total, quiet=quiet) as advance:
        for item in items:
            yield item
            advance()


def _ignore(steps: int = 1, description: str | None = None) -> None:
    return None
