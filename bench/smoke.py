"""The benches' smoke mode: every documented bench command runs as written, end to end, in seconds.

With ``SAGA_BENCH_SMOKE=1`` in the environment a bench keeps its code path (generate or load the data, run the
measured steps, print its tables and its one ``RESULT`` line) but on tiny sizes: a few samples, one pair, one
round, the first graph, a graph of a few hundred triples. Its figures mean nothing then: the line it prints first,
``smoke mode: …``, says so and names what was shrunk. The documented-commands test
(``tests/integration/cli/test_documented_commands.py``) sets it, so the command lines of ``docs/`` are checked to
run exactly as written without the minutes to hours a measurement takes. Benches write only to scratch
directories (a new temporary one, or what the command names), never into the repository.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from itertools import islice
from typing import TypeVar

#: The environment variable that turns the smoke mode on (any value but empty or ``0``).
SMOKE_ENV = "SAGA_BENCH_SMOKE"

T = TypeVar("T")


def smoke() -> bool:
    """Whether this run is a smoke run (``SAGA_BENCH_SMOKE`` set)."""
    return os.environ.get(SMOKE_ENV, "") not in ("", "0")


def shrink(args: argparse.Namespace, **small: object) -> argparse.Namespace:
    """In smoke mode, set each named option to its small value and say so on stderr; else change nothing.

    Args:
        args: the parsed options.
        **small: option name (as on ``args``) to its smoke value.

    Returns:
        ``args`` itself.
    """
    if smoke():
        for name, value in small.items():
            if not hasattr(args, name):
                raise AttributeError(f"bench option {name!r} does not exist")
            setattr(args, name, value)
        shown = " ".join(f"{name}={value}" for name, value in small.items())
        print(f"smoke mode ({SMOKE_ENV}): tiny sizes, figures meaningless; {shown}".rstrip("; "), file=sys.stderr)
    return args


def first(items: Iterable[T], count: int = 1) -> list[T]:
    """All of ``items``, or in smoke mode only the first ``count``."""
    return list(islice(items, count)) if smoke() else list(items)


def size(full: int, tiny: int) -> int:
    """``full``, or ``tiny`` in smoke mode (a size not given as an option)."""
    return tiny if smoke() else full


def cap(tiny: int) -> int | None:
    """``None`` (no cap), or ``tiny`` in smoke mode (e.g. the triples per source of a trial Wikidata store)."""
    return tiny if smoke() else None
